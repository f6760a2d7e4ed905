"""The eager estimate: each op of the traced reference is one kernel at its roofline plus a launch."""
from __future__ import annotations

from pathlib import Path

import pytest

import ascendcraft_lab
from ascendcraft_lab.drafter.trace import trace_reference
from ascendcraft_lab.perf import costs_for, estimate_eager

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

MSE = Path(ascendcraft_lab.__file__).parent / "examples" / "loss" / "mse_loss.py"


def test_each_op_of_the_reference_is_one_memory_bound_kernel_plus_a_launch():
    est = estimate_eager(trace_reference(MSE), "Ascend910B2")
    costs = costs_for("Ascend910B2")
    n = 128 * 4096 * 4   # bytes of one [128, 4096] float32 tensor
    assert [(o.target, o.bytes, o.bound) for o in est.ops] == [("sub", 3 * n, "memory"), ("pow", 2 * n, "memory"),
                                                               ("mean", n + 4, "memory")]
    floor = sum(o.bytes for o in est.ops) / costs.gm_bandwidth.value
    assert est.seconds == pytest.approx(3 * costs.eager_op_s.value + floor)
