"""Activation backward as aten spells it (threshold_backward, elu_backward, ...): grad_output and the
forward's input (or output) -> grad_input, drafted elementwise and correct on the interpreter."""
from __future__ import annotations

import pytest

from ascendcraft_lab.drafter import draft_from_trace
from ascendcraft_lab.drafter.trace import run_jobs
from ascendcraft_lab.reference.bind import check_interpreter

from drafter_helpers import write_ref

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

INPUTS = "[torch.randn(4, 301), torch.randn(4, 301) * 4]"     # x * 4 reaches every piece (|x| > 3, > 20)

CALLS = {
    "relu": "threshold_backward(g, x, 0.0)",
    "threshold": "threshold_backward(g, x, 1.5)",
    "elu": "elu_backward(g, 1.0, 1.0, 1.0, False, x)",
    "elu_of_output": "elu_backward(g, 0.5, 1.0, 1.0, True, F.elu(x, 0.5))",
    "selu": "elu_backward(g, 1.6732632423543772, 1.0507009873554805, 1.0, False, x)",
    "mish": "mish_backward(g, x)",
    "hardsigmoid": "hardsigmoid_backward(g, x)",
    "hardswish": "hardswish_backward(g, x)",
    "gelu": "gelu_backward(g, x)",
    "gelu_tanh": "gelu_backward(g, x, approximate='tanh')",
    "sigmoid": "sigmoid_backward(g, torch.sigmoid(x))",
    "tanh": "tanh_backward(g, torch.tanh(x))",
    "silu": "silu_backward(g, x)",
    "softplus": "softplus_backward(g, x, 2.0, 10.0)",
    "hardtanh": "hardtanh_backward(g, x, -2.0, 2.0)",
    "leaky_relu": "leaky_relu_backward(g, x, 0.1, False)",
    "hardshrink": "hardshrink_backward(g, x, 0.5)",
}


@pytest.fixture(scope="module")
def traced(ref_dir):
    """Every backward traced and run in one reference child."""
    paths = {name: write_ref(ref_dir, f"bw_{name}", f"def forward(self, g, x):\n    return torch.ops.aten.{call}",
                             INPUTS)
             for name, call in CALLS.items()}
    jobs = []
    for path in paths.values():
        jobs += [{"mode": "trace", "path": str(path)}, {"mode": "run", "path": str(path), "seed": 0}]
    answers = run_jobs(jobs)
    return {name: (paths[name], answers[2 * i], answers[2 * i + 1]) for i, name in enumerate(paths)}


@pytest.mark.parametrize("name", list(CALLS))
def test_an_activation_backward_drafts_an_elementwise_kernel_pytorch_agrees_with(traced, name):
    path, trace, run = traced[name]
    assert isinstance(trace, dict), trace
    draft = draft_from_trace(trace["graph"], name=name, source=path.name)
    assert draft.template == "map"
    verdict = check_interpreter(draft.text, path, reference=run["run"])
    assert verdict.correct, verdict.summary()


def test_relu_backward_is_a_select_of_the_gradient_not_a_product(traced):
    """PyTorch's relu gradient is exactly 0 where x <= 0 (also for an inf gradient): a where(), no multiply."""
    path, trace, _ = traced["relu"]
    text = draft_from_trace(trace["graph"], name="k", source=path.name).text
    assert "where(xu > 0.0, gu, 0.0)" in text
