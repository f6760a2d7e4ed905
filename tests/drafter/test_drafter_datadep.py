"""Data-dependent sizes and addressing (issue 18): torch.histc, repeat_interleave, nonzero / argwhere /
masked_select drafted from existing ops and checked against PyTorch; an output declared at its upper
bound beside a row count the kernel writes, compared on the rows the kernel filled."""
from __future__ import annotations

import numpy as np
import pytest

import torch

from ascendcraft_lab.drafter import DraftError, draft_from_trace, draft_reference
from ascendcraft_lab.dsl import DslError, parse, verify
from ascendcraft_lab.dsl.interp import run
from ascendcraft_lab.dsl.printer import print_program
from ascendcraft_lab.reference import load_reference, trim_outputs

from drafter_helpers import check_draft_on_emulator, write_ref

def traced(call: str, inputs: list, args: list, kwargs: dict, out_shape, out_dtype, init=()) -> dict:
    """The reference child's trace of `forward(x, ...) = torch.<call>(x, *args, **kwargs)`, written out (no child
    process): tensors as {"node": name}, numbers as {"const": v}."""
    enc = lambda v: {"node": v[1:]} if isinstance(v, str) and v.startswith("@") else {"const": v}
    nodes = [{"name": n, "op": "placeholder", "index": i, "target": n,
              "meta": {"kind": "tensor", "shape": list(a.shape), "dtype": str(a.dtype).replace("torch.", "")}}
             for i, (n, a) in enumerate(inputs)]
    meta = {"kind": "tensor", "shape": list(out_shape), "dtype": out_dtype}
    nodes += [{"name": "r", "op": "call_function", "meta": meta, "line": 1, "target": f"torch.{call}",
               "args": [enc(a) for a in args], "kwargs": {k: enc(v) for k, v in kwargs.items()}},
              {"name": "output", "op": "output", "meta": meta, "args": [{"node": "r"}]}]
    return {"method": "fx", "nodes": nodes, "fallback_errors": [], "inputs": [n["meta"] for n in nodes[:len(inputs)]],
            "init_inputs": [{"kind": "scalar", "type": type(v).__name__, "value": v} for v in init],
            "init_names": ["arg"] * len(init), "training": False, "parameters": {}, "buffers": {}}


def interpret(x_inputs: list, call: str, args: list, kwargs: dict, template: str):
    """Draft torch.<call> from its trace, run the draft on the interpreter: (kernel outputs trimmed, PyTorch's)."""
    want = getattr(torch, call)(*[a for _, a in x_inputs], *[a for a in args if not str(a).startswith("@")], **kwargs)
    d = draft_from_trace(traced(call, x_inputs, ["@" + x_inputs[0][0]] + args, kwargs, want.shape,
                                str(want.dtype).replace("torch.", "")))
    assert d.template == template
    program = parse(d.text)
    arrays = {p.name: a.numpy() for p, (_, a) in zip(program.inputs, x_inputs)}
    shapes = {n: a.shape for n, a in arrays.items()}
    typed = verify(program, shapes=shapes)
    return trim_outputs(typed, run(typed, arrays)), want.numpy()


def test_histc_over_the_datas_range_counts_as_pytorch():
    got, want = interpret([("x", torch.randn(1003))], "histc", [], {"bins": 13}, "histc")
    assert np.array_equal(got["y"], want)


def test_histc_of_one_value_widens_the_range_as_pytorch():
    got, want = interpret([("x", torch.full((40,), 3.0))], "histc", [], {"bins": 4}, "histc")
    assert np.array_equal(got["y"], want)


def test_repeat_interleave_along_a_middle_dim_copies_each_slice():
    got, want = interpret([("x", torch.randn(2, 5, 33))], "repeat_interleave", [3], {"dim": 1}, "interleave")
    assert np.array_equal(got["y"], want)


def test_masked_select_keeps_the_values_under_the_mask_in_order():
    x, m = torch.randn(9, 40), torch.rand(9, 40) < 0.5
    got, want = interpret([("x", x), ("mask", m)], "masked_select", ["@mask"], {}, "nonzero")
    assert np.array_equal(got["y"], want) and got["count"].tolist() == [int(m.sum())]


def test_a_half_histc_trace_is_refused_naming_why():
    with pytest.raises(DraftError, match="float32 values: PyTorch computes a half type's bin positions"):
        draft_from_trace(traced("histc", [("x", torch.randn(64).half())], ["@x", 10], {}, (10,), "float16"))


@pytest.mark.heavy
def test_nonzero_on_the_emulator_compares_the_rows_the_kernel_counted(tmp_path):
    ref_path = write_ref(tmp_path, "nz", "def forward(self, x):\n    return torch.nonzero(x)",
                         "[torch.randn(5, 203) > 0.5]")
    ref = load_reference(ref_path)
    verdict, run, _ = check_draft_on_emulator(draft_reference(ref_path).text, ref)
    assert run.findings == [] and verdict.correct, verdict.summary()
    rows = ref.outputs[0].shape[0]
    assert 0 < rows < 5 * 203 and run.outputs["count"].tolist() == [rows]


@pytest.mark.heavy
def test_a_half_histc_reference_is_refused_naming_why(tmp_path):
    ref_path = write_ref(tmp_path, "hh", "def forward(self, x):\n    return torch.histc(x, 10)",
                         "[torch.randn(64).half()]")
    with pytest.raises(DraftError, match="float32 values: PyTorch computes a half type's bin positions"):
        draft_reference(ref_path)


KERNEL = '''
@host
def tiling(x: Tensor[f32, (N,)]):
    return Launch(1)


@kernel
def k(x: GM[f32, (N,)], y: Out[i64, (N, 1)], n: Out[{count}], t: Tiling):
    z = cast(0, i64)
    with copyout:
        store(y[0, 0], z)
        store(n[0], z)
'''


def test_a_row_count_prints_as_it_is_written():
    program = parse(KERNEL.format(count='i64, (1,), "y"'))
    assert program.row_counts["y"].name == "n" and [p.name for p in program.results] == ["y"]
    assert 'n: Out[i64, (1,), "y"]' in print_program(program)


@pytest.mark.parametrize("count, message", [('i32, (1,), "y"', "is one i64 element"),
                                            ('i64, (1,), "z"', "not an output of this kernel")])
def test_a_row_count_that_is_not_one_i64_of_an_output_is_an_error(count, message):
    with pytest.raises(DslError, match=message):
        verify(parse(KERNEL.format(count=count)))


def test_trim_outputs_cuts_an_output_to_its_count_clamped_to_the_bound():
    program = parse(KERNEL.format(count='i64, (1,), "y"'))
    y = np.arange(8, dtype=np.int64).reshape(8, 1)
    assert trim_outputs(program, {"y": y, "n": np.array([3])})["y"].tolist() == [[0], [1], [2]]
    assert trim_outputs(program, {"y": y, "n": np.array([99])})["y"].shape == (8, 1)
    assert trim_outputs(program, {"y": y, "n": np.array([-4])})["y"].shape == (0, 1)
