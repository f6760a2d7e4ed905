"""Scalar parameters bind to a reference by name (forward's arguments, the Model's attributes), else
by position; one plan (reference/scalars.py) serves the interpreter, the NPU run and the export."""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from ascendcraft_lab.backends.cann.signature import bind_op_args
from ascendcraft_lab.dsl import DslError, parse
from ascendcraft_lab.export.common import load_dsl_file, model_new_source
from ascendcraft_lab.reference import ReferenceRun, check_interpreter, load_references
from ascendcraft_lab.reference.scalars import scalar_plan

TILING = '''
@host
def tiling(x: Tensor[f32, (B, N)]):
    cores = min(VECTOR_CORES, B)
    rows = cdiv(B, cores)
    cores = cdiv(B, rows)
    tile = ub_elems(f32, live=3)
    return Launch(cores, rows=rows, tile=min(tile, N))
'''


def kernel(name, scalars, body):
    return TILING + textwrap.dedent(f'''

    @kernel
    def {name}(x: GM[f32, (B, N)], {scalars}, y: Out[f32, (B, N)], t: Tiling):
        for r in core_rows(t.rows, B):
            for c in tiles(N, t.tile):
                with copyin:
                    xu = load(x[r, c])
                with compute:
                    yu = {body}
                with copyout:
                    store(y[r, c], yu)
    ''')


# the kernel declares beta before alpha; forward takes (x, alpha, beta)
AFFINE = kernel("affine", "beta: f32, alpha: f32", "alpha * xu + beta")
AFFINE_REF = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, alpha, beta):
        return alpha * x + beta


def get_inputs():
    return [torch.randn(4, 64), 2.0, 0.5]


def get_init_inputs():
    return []
'''

# negative_slope is an attribute set from __init__'s second argument, named otherwise
LEAKY = kernel("leaky", "negative_slope: f32", "max(xu, 0.0) + negative_slope * min(xu, 0.0)")
LEAKY_REF = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, gain, slope):
        super().__init__()
        self.gain = gain
        self.negative_slope = slope

    def forward(self, x):
        return torch.nn.functional.leaky_relu(x, self.negative_slope)


def get_inputs():
    return [torch.randn(4, 64)]


def get_init_inputs():
    return [3.0, 0.1]
'''


@pytest.fixture(scope="module")
def refs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("refs")
    paths = {}
    for name, text in (("affine", AFFINE_REF), ("leaky", LEAKY_REF)):
        paths[name] = folder / f"{name}.py"
        paths[name].write_text(text)
    runs = load_references([(paths["affine"], None), (paths["leaky"], None)])
    return {"affine": (paths["affine"], runs[0]), "leaky": (paths["leaky"], runs[1])}


@pytest.mark.heavy
def test_scalars_bind_to_forward_arguments_by_name_in_any_order(refs):
    path, ref = refs["affine"]
    assert scalar_plan(parse(AFFINE), ref) == (1, 0)          # beta is the 2nd number, alpha the 1st
    verdict = check_interpreter(AFFINE, path, reference=ref)
    assert verdict.correct, verdict.message
    # the same kernel with names matching nothing binds by position: alpha * x + beta is then wrong
    positional = AFFINE.replace("beta", "b").replace("alpha", "a")
    assert not check_interpreter(positional, path, reference=ref).correct


@pytest.mark.heavy
def test_a_scalar_binds_to_a_model_attribute_by_name(refs):
    path, ref = refs["leaky"]
    assert scalar_plan(parse(LEAKY), ref) == ("negative_slope",)    # not get_init_inputs()[0] (gain)
    verdict = check_interpreter(LEAKY, path, reference=ref)
    assert verdict.correct, verdict.message


@pytest.mark.heavy
def test_the_npu_run_binds_the_op_arguments_by_the_same_plan(refs):
    torch = pytest.importorskip("torch")
    _, ref = refs["affine"]
    x = torch.randn(4, 64)
    plan = scalar_plan(parse(AFFINE), ref)
    assert bind_op_args([x, 2.0, 0.5], [], [], plan)[1:] == [0.5, 2.0]


@pytest.mark.heavy
@pytest.mark.parametrize("name, dsl", [("affine", AFFINE), ("leaky", LEAKY)])
def test_the_exported_model_new_binds_by_the_plan(refs, tmp_path, name, dsl):
    torch = pytest.importorskip("torch")
    path, _ = refs[name]
    (tmp_path / f"{name}.dsl.py").write_text(dsl)
    src = load_dsl_file(tmp_path / f"{name}.dsl.py", reference=path)
    text = model_new_source(src, module_import="", call="record")
    plan = "(1, 0)" if name == "affine" else "('negative_slope',)"
    assert f"bind_op_args(inputs, self.init_scalars, params, {plan}" in text
    namespace = {"record": lambda *args: args}
    exec(compile(text, "ModelNew.py", "exec"), namespace)
    x = torch.randn(4, 64)
    if name == "affine":
        assert namespace["ModelNew"]()(x, 2.0, 0.5)[1:] == (0.5, 2.0)
    else:
        assert namespace["ModelNew"](3.0, 0.1)(x)[1:] == (0.1,)


def fake_run(inputs, init=(), **kw) -> ReferenceRun:
    return ReferenceRun("ref.py", list(inputs), list(init), [np.zeros((4, 64), np.float32)],
                        input_dtypes=[getattr(v, "dtype", None) and str(v.dtype) for v in inputs],
                        output_dtypes=["float32"], **kw)


X = np.zeros((4, 64), np.float32)


@pytest.mark.parametrize("ref, words", [
    (fake_run([X, X, 0.5], forward_args=["x", "alpha", "beta"]),
     "scalar `alpha` is named like a forward argument, but forward argument `alpha` is a tensor"),
    (fake_run([X, 2.0, 0.5], forward_args=["x", "alpha", "beta"], attrs={"alpha": 3.0}),
     "scalar `alpha` is named like both forward argument `alpha` and the Model attribute `self.alpha`, which differ"),
    (fake_run([X, 0.5], forward_args=["x", "beta"], attrs={"alpha": {"kind": "tuple"}}),
     "scalar `alpha` is named like the Model attribute `self.alpha`, but it is a tuple, not a number"),
    (fake_run([X, 0.5], forward_args=["x", "beta"]),
     "kernel declares 2 scalars but the reference gives 1 (0.5) and `alpha` names none of its arguments"),
])
def test_a_name_that_cannot_bind_is_one_error_at_the_parameter(ref, words):
    with pytest.raises(DslError) as e:
        scalar_plan(parse(AFFINE), ref)
    line = next(i for i, t in enumerate(AFFINE.splitlines(), 1) if "def affine" in t)
    assert words in e.value.message
    assert e.value.line == line and e.value.col == AFFINE.splitlines()[line - 1].index("alpha: f32") + 1


def test_without_matching_names_the_old_positional_binding_holds():
    ref = fake_run([X, 2.0, 0.5], init=[7], forward_args=["x", "p", "q"], init_args=["k"])
    assert scalar_plan(parse(AFFINE), ref) == (0, 1)
