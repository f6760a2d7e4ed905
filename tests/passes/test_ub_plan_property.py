"""The UB plan is one source of truth (issue 22): for random well-typed kernels, the bytes the
plan counts are the bytes Init allocates (its InitBuffer calls evaluated), every scratch slot it
sizes is used, and, for a sample run on the emulator, the bytes the emulator saw allocated.

bench/ub_plan_property.py runs the same property over thousands of kernels.
"""
from __future__ import annotations

import collections

import pytest

from random_kernels import check_case, random_kernel

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy


def test_plan_equals_init_for_random_kernels():
    counts = collections.Counter(check_case(random_kernel(seed)) for seed in range(300))
    # the generator draws valid kernels; the few it rejects are scalar results stored to a view
    assert counts["ok"] >= 280, counts


@pytest.mark.parametrize("seed", [3, 17, 42, 77, 101, 150, 233, 239, 289])
def test_plan_equals_emulator_allocation(seed):
    assert check_case(random_kernel(seed), emulate=True) in ("ok", "rejected")


def test_property_can_fail(monkeypatch):
    """A plan that counts one 32-byte block more than Init allocates is caught."""
    from ascendcraft_lab.dsl import buffers

    real = buffers.UbUsage.total
    monkeypatch.setattr(buffers.UbUsage, "total", lambda self, *a: real(self, *a) + 32)
    with pytest.raises(AssertionError, match="vs InitBuffer"):
        check_case(random_kernel(0))
