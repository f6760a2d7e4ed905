"""Loading a PyTorch reference in a child process: values out, one-sentence errors, never a traceback."""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft_lab.examples import get_example
from ascendcraft_lab.reference import ReferenceError, ReferenceRun, load_reference, load_references

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

GOOD = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, scale: float, shape: tuple):
        super().__init__()
        self.w = nn.Parameter(torch.randn(dim))
        self.register_buffer("offset", torch.ones(dim))
        self.scale = scale

    def forward(self, x, n: int):
        return (x * self.w + self.offset).sum() * self.scale * n, x.half()


batch = 3
dim = 8
shape = (batch, dim)


def get_inputs():
    return [torch.randn(*shape), 4]


def get_init_inputs():
    return [0.5, (1, 2)]
'''

BAD = {
    "syntax": "def broken(:\n    pass\n",
    "no_model": "import torch\n\ndef get_inputs():\n    return []\n\ndef get_init_inputs():\n    return []\n",
    "forward_raises": GOOD.replace("return (x * self.w",
                                   "raise RuntimeError('shape mismatch in forward')\n        return (x * self.w"),
    "import_raises": "import torch\nvalue = 1 / 0\n",
}


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    d = tmp_path_factory.mktemp("refs")
    paths = {}
    for name, text in {"good": GOOD, **BAD}.items():
        paths[name] = d / f"{name}.py"
        paths[name].write_text(text)
    example = get_example("layer_norm").reference
    requests = [(paths["good"], None), (paths["good"], {"batch": 5}), (paths["good"], {"nope": 1}),
                (paths["good"], None, 0), (paths["good"], None, 1), (example, {"batch_size": 2, "features": 16})]
    requests += [(paths[name], None) for name in BAD]
    requests += [(d / "missing.py", None)]
    results = load_references(requests, seed=0)        # one child process for all of them
    keys = ["good", "good_override", "bad_override", "seed0", "seed1", "example", *BAD, "missing"]
    return dict(zip(keys, results)), paths


def test_reference_returns_inputs_outputs_parameters_and_training_flag(loaded):
    ref = loaded[0]["good"]
    assert isinstance(ref, ReferenceRun)
    x, n = ref.inputs
    assert isinstance(x, np.ndarray) and x.shape == (3, 8) and x.dtype == np.float32 and n == 4
    assert ref.init_inputs == [0.5, [1, 2]]
    assert ref.scalars == [4, 0.5]                    # inputs' scalars first, tuples skipped
    total, half = ref.outputs
    assert total.shape == () and half.dtype == np.float16 and ref.output_dtypes == ["float32", "float16"]
    assert set(ref.parameters) == {"w"} and set(ref.buffers) == {"offset"}
    assert set(ref.named_tensors) == {"w", "offset"}
    assert ref.training is True


def test_the_same_seed_gives_the_same_inputs_and_parameters(loaded):
    first, again, other = (loaded[0][k] for k in ("good", "seed0", "seed1"))
    assert np.array_equal(again.inputs[0], first.inputs[0])
    assert np.array_equal(again.parameters["w"], first.parameters["w"])
    assert not np.array_equal(other.inputs[0], first.inputs[0])


def test_overrides_replace_module_constants_before_anything_runs(loaded):
    ref = loaded[0]["good_override"]
    assert ref.inputs[0].shape == (5, 8)              # `shape = (batch, dim)` sees the new batch
    assert ref.overrides == {"batch": 5}


def test_an_unknown_override_names_the_constant(loaded):
    err = loaded[0]["bad_override"]
    assert isinstance(err, ReferenceError)
    assert str(err) == "reference good.py failed to take overrides: it has no module-level constant nope"


@pytest.mark.parametrize("name, words", [
    ("syntax", ["reference syntax.py failed to parse (line 1): SyntaxError"]),
    ("no_model", ["reference no_model.py", "defines no `Model` class"]),
    ("forward_raises",
     ["reference forward_raises.py failed in forward (line 14): RuntimeError: shape mismatch in forward"]),
    ("import_raises", ["reference import_raises.py failed on import (line 2): ZeroDivisionError"]),
    ("missing", ["reference missing.py does not exist"]),
])
def test_failures_are_one_sentence_naming_the_file_and_the_cause(loaded, name, words):
    err = loaded[0][name]
    assert isinstance(err, ReferenceError)
    text = str(err)
    for w in words:
        assert w in text
    assert "\n" not in text and "Traceback" not in text


def test_a_failure_renders_in_the_diagnostic_format(loaded):
    rendered = loaded[0]["forward_raises"].render()
    assert rendered.startswith("error: reference forward_raises.py failed in forward")
    assert " --> " in rendered and "14 |" in rendered and "= help:" in rendered


def test_a_reference_that_hangs_times_out(tmp_path):
    slow = tmp_path / "slow.py"
    slow.write_text("import time\ntime.sleep(60)\n")
    with pytest.raises(ReferenceError) as e:
        load_reference(slow, timeout=2)
    assert str(e.value) == "reference slow.py did not finish within 2 s"


def test_an_example_reference_loads_in_kernelbench_format(loaded):
    ref = loaded[0]["example"]
    assert ref.inputs[0].shape == (2, 16) and ref.init_inputs == [[16]]
    assert set(ref.parameters) == {"ln.weight", "ln.bias"}
