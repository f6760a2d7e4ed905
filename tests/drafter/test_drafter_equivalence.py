"""The drafter is compositional: different spellings of one computation give the same draft."""
from __future__ import annotations

import pytest

from ascendcraft_lab.drafter import draft_from_trace
from ascendcraft_lab.drafter.trace import run_jobs

from drafter_helpers import write_ref

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

SPELLINGS = {
    # GELU (tanh): the functional call, the module, and the formula written out
    "gelu_functional": ("def forward(self, x):\n    return F.gelu(x, approximate='tanh')", "[torch.randn(4, 1000)]"),
    "gelu_module": ("def forward(self, x):\n    return self.act(x)", "[torch.randn(4, 1000)]",
                    "|self.act = nn.GELU(approximate='tanh')"),
    "gelu_formula": ("def forward(self, x):\n    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi)"
                     " * (x + 0.044715 * torch.pow(x, 3.0))))", "[torch.randn(4, 1000)]"),
    # a row sum: method with a keyword, function with a positional dim
    "sum_method": ("def forward(self, x):\n    return x.sum(dim=1)", "[torch.randn(8, 300)]"),
    "sum_function": ("def forward(self, x):\n    return torch.sum(x, 1)", "[torch.randn(8, 300)]"),
    # a scalar from get_inputs() vs from get_init_inputs(): both become the kernel scalar `s`
    "scale_input": ("def forward(self, x, s: float):\n    return x * s", "[torch.randn(8, 300), 2.5]"),
    "scale_init": ("def forward(self, x):\n    return x * self.s", "[torch.randn(8, 300)]", ", s: float|self.s = s",
                   "[2.5]"),
}


@pytest.fixture(scope="module")
def drafts(ref_dir):
    paths = {}
    for name, spec in SPELLINGS.items():
        forward, inputs = spec[0], spec[1]
        init = spec[2] if len(spec) > 2 else ""
        init_inputs = spec[3] if len(spec) > 3 else "[]"
        paths[name] = write_ref(ref_dir, name, forward, inputs, init, init_inputs)
    traced = run_jobs([{"mode": "trace", "path": str(p)} for p in paths.values()])
    out = {}
    for (name, path), t in zip(paths.items(), traced):
        assert isinstance(t, dict), f"{name}: {t}"
        out[name] = draft_from_trace(t["graph"], name="k", source="ref.py")
    return out


def _body(draft) -> str:
    """The draft without its docstring (which names the template and the source)."""
    return draft.text.split('"""', 2)[2]


def test_gelu_module_functional_and_formula_give_the_same_draft(drafts):
    assert _body(drafts["gelu_functional"]) == _body(drafts["gelu_formula"]) == _body(drafts["gelu_module"])
    assert "tanh(" in drafts["gelu_functional"].text


def test_sum_method_and_function_give_the_same_draft(drafts):
    assert _body(drafts["sum_method"]) == _body(drafts["sum_function"])
    assert drafts["sum_method"].template == "windows"


def test_scalar_from_get_inputs_and_from_get_init_inputs_become_a_kernel_scalar(drafts):
    for name in ("scale_input", "scale_init"):
        text = drafts[name].text
        assert "s: f32" in text and "* s" in text, text
    assert _body(drafts["scale_input"]).replace("x: GM", "X") == _body(drafts["scale_init"]).replace("x: GM", "X")
