"""The long tail of real references (issue 33): how modules hold tensors, in-place forms, predicates
as outputs, splits consumed by computation, unused inputs and scalars, dtypes the NPU lacks, and
C++ names whatever the sizes. Each class is a general rule, checked here on several spellings."""
from __future__ import annotations

import pytest

from ascendcraft_lab.drafter import DraftError, draft_from_trace
from ascendcraft_lab.drafter.trace import run_jobs
from ascendcraft_lab.reference.bind import check_interpreter

from drafter_helpers import check_draft_on_emulator, write_ref

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

X = "[torch.randn(6, 40)]"
XY = "[torch.randn(6, 40), torch.randn(6, 40)]"
CASES = {  # name -> (forward, get_inputs, __init__ "PARAMS|BODY")
    # 1. tensors a module holds: plain attributes (top level and in a submodule), constants made in forward
    "attr_plain": ("def forward(self, x):\n    return x * self.gamma + self.beta", X,
                   "|self.gamma = torch.rand(40) + 0.5\nself.beta = torch.randn(40)"),
    "attr_sub": ("def forward(self, x):\n    return self.inner.scale * torch.tanh(x)", X,
                 "|self.inner = nn.Module()\nself.inner.scale = torch.randn(6, 40)"),
    "const_scalar": ("def forward(self, x):\n    return x * torch.tensor(2.5) - torch.tensor([0.5])", X, ""),
    "const_fill": ("def forward(self, x):\n    return x + torch.ones(40) * 3.0", X, ""),
    "const_varied": ("def forward(self, x):\n    return x * torch.arange(40.0)", X, ""),
}


@pytest.fixture(scope="module")
def traced(ref_dir):
    """Every case traced and run in one reference child (one torch start-up for the module)."""
    paths = {name: write_ref(ref_dir, f"lt_{name}", forward, inputs, init)
             for name, (forward, inputs, init) in CASES.items()}
    jobs = []
    for path in paths.values():
        jobs += [{"mode": "trace", "path": str(path)}, {"mode": "run", "path": str(path), "seed": 0}]
    answers = run_jobs(jobs)
    return {name: (paths[name], answers[2 * i], answers[2 * i + 1]) for i, name in enumerate(paths)}


def draft(traced, name):
    path, trace, _ = traced[name]
    assert isinstance(trace, dict), trace
    return draft_from_trace(trace["graph"], name="k", source=path.name)


def interpreted(traced, name):
    d = draft(traced, name)
    path, _, run = traced[name]
    assert isinstance(run, dict), run
    verdict = check_interpreter(d.text, path, reference=run["run"])
    assert verdict.correct, f"{name}: {verdict.summary()}\n{d.text}"
    return d


@pytest.mark.parametrize("name", ["attr_plain", "attr_sub"])
def test_a_plain_tensor_attribute_is_bound_by_name_like_a_buffer(traced, name):
    d = interpreted(traced, name)
    assert "Param[" in d.text
    assert '"inner.scale"' in d.text if name == "attr_sub" else '"gamma"' in d.text


@pytest.mark.parametrize("name", ["const_scalar", "const_fill"])
def test_a_constant_made_in_forward_that_holds_one_value_is_that_value(traced, name):
    d = interpreted(traced, name)
    assert "Param[" not in d.text and "_tensor_constant" not in d.text


def test_a_constant_made_in_forward_with_differing_values_is_refused_saying_what_to_do(traced):
    with pytest.raises(DraftError) as exc:
        draft(traced, "const_varied")
    msg = str(exc.value)
    assert "\n" not in msg and "created in forward" in msg and "register_buffer" in msg, msg


def test_a_plain_attribute_runs_on_the_emulator(traced):
    d = draft(traced, "attr_plain")
    path, _, run = traced["attr_plain"]
    verdict, _, _ = check_draft_on_emulator(d.text, run["run"])
    assert verdict.correct, verdict.summary()
