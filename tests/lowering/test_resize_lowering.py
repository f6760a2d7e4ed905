"""Resampling's index arithmetic (issue 17), lowered and run on the emulator and the interpreter:
iota() (CreateVecIndex) gives a tile's columns, and cast(..., round="floor") rounds negative
positions down both on the vector unit (Cast CAST_FLOOR) and on the scalar unit (FloorOf: a
static_cast alone would truncate -1.25 to -1)."""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from ascendcraft_lab.backends.emulator.verify import check_emulator, render_run
from ascendcraft_lab.dsl import DslError
from ascendcraft_lab.dsl.interp import run
from ascendcraft_lab.dsl.parser import parse
from ascendcraft_lab.dsl.verifier import verify
from ascendcraft_lab.engines.rule import RuleEngine
from ascendcraft_lab.passes.manager import LowerOptions, run_pipeline
from ascendcraft_lab.reference import load_reference
from ascendcraft_lab.reference.bind import bind

KERNEL = """
@host
def tiling(x: Tensor[f32, (B, N)]):
    cores = min(VECTOR_CORES, B)
    rows = cdiv(B, cores)
    cores = cdiv(B, rows)
    return Launch(cores, rows=rows, tile=min(64, N))


@kernel
def floors(x: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):
    for r in core_rows(t.rows, B):
        k = cast(r * 0.5 - 1.25, i32, round="floor")
        for c in tiles(N, t.tile):
            with copyin:
                xu = load(x[r, c])
            with compute:
                col = cast(cast(iota(c.len, c.start) * 0.5 - 3.0, i32, round="floor"), f32)
                yu = xu + col + cast(k, f32)
            with copyout:
                store(y[r, c], yu)
"""

REFERENCE = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        r = torch.arange(x.shape[0], dtype=torch.float32)[:, None]
        c = torch.arange(x.shape[1], dtype=torch.float32)[None, :]
        return x + torch.floor(c * 0.5 - 3.0) + torch.floor(r * 0.5 - 1.25)


def get_inputs():
    return [torch.randn(7, 150)]


def get_init_inputs():
    return []
"""


@pytest.mark.heavy
def test_iota_and_floors_of_negative_positions_match_pytorch_on_the_emulator(tmp_path):
    program = verify(parse(KERNEL, "k.dsl.py"))
    (tmp_path / "ref.py").write_text(textwrap.dedent(REFERENCE))
    ref = load_reference(tmp_path / "ref.py")
    bound, _ = bind(program, ref)
    options = LowerOptions(shapes={n: v.shape for n, v in bound.items() if hasattr(v, "shape")})
    steps = run_pipeline(program, RuleEngine(), options)
    kernel = next(t for p, t in steps[-1].bundle.files.items() if p.endswith("_kernel.cpp"))
    assert "CreateVecIndex(" in kernel and "FloorOf(" in kernel
    verdict, emu = check_emulator(program, steps[-1].bundle, ref)
    assert emu.findings == [], render_run(emu, program)
    assert verdict.correct, verdict.summary()


def test_iota_on_the_interpreter_counts_from_its_start():
    program = verify(parse(KERNEL, "k.dsl.py"))
    x = np.zeros((3, 70), np.float32)
    r = np.arange(3, dtype=np.float32)[:, None]
    c = np.arange(70, dtype=np.float32)[None, :]
    np.testing.assert_array_equal(run(program, {"x": x})["y"], np.floor(c * 0.5 - 3.0) + np.floor(r * 0.5 - 1.25))


@pytest.mark.parametrize("call, message", [
    ("iota(c.len, 0.5, i32)", "an i32 iota() from a float start"),
    ("iota(1.5)", "the length of iota() must be an integer scalar"),
])
def test_iota_is_refused_with_one_message(call, message):
    bad = KERNEL.replace("iota(c.len, c.start)", call)
    with pytest.raises(DslError, match=message.replace("(", r"\(").replace(")", r"\)")):
        verify(parse(bad, "k.dsl.py"))
