"""Broadcasts beyond the expert examples, lowered and run on the emulator and the interpreter (issue 17):
a value per plane (P, 1, 1) against a 3-D tile (a loop over the planes around the strided
instructions), and a one-element tile against a 1-D tile (Brcb once, block and repeat stride 0)."""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from ascendcraft_lab.backends.emulator.verify import check_emulator, render_run
from ascendcraft_lab.dsl.interp import run
from ascendcraft_lab.dsl.parser import parse
from ascendcraft_lab.dsl.verifier import verify
from ascendcraft_lab.engines.rule import RuleEngine
from ascendcraft_lab.passes.manager import LowerOptions, run_pipeline
from ascendcraft_lab.reference import load_reference
from ascendcraft_lab.reference.bind import bind

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

PER_PLANE = ("s", "x * s", lambda x, s: x * s, "[torch.randn(5, 3, 17), torch.randn(5, 1, 1)]", """
@host
def tiling(x: Tensor[f32, (P, H, W)]):
    return Launch(1, planes=min(P, 4))


@kernel
def plane(x: GM[f32, (P, H, W)], s: GM[f32, (P, 1, 1)], y: Out[f32, (P, H, W)], t: Tiling):
    for c in tiles(P, t.planes):
        with copyin:
            xu = load(x[c, :, :])               # 4 planes of 3 rows of 17: one strided copy per plane
            su = load(s[c, :, :])
        with compute:
            yu = xu * su
        with copyout:
            store(y[c, :, :], yu)
""")

ONE_ELEMENT = ("w", "x - w", lambda x, w: x - w, "[torch.randn(1003), torch.randn(1)]", """
@host
def tiling(x: Tensor[f32, (N,)]):
    return Launch(1, tile=256)


@kernel
def one(x: GM[f32, (N,)], w: GM[f32, (1,)], y: Out[f32, (N,)], t: Tiling):
    with copyin:
        wu = load(w[:])
    for c in tiles(N, t.tile):
        with copyin:
            xu = load(x[c])
        with compute:
            yu = xu - wu
        with copyout:
            store(y[c], yu)
""")


def _reference(folder, other: str, forward: str, inputs: str):
    path = folder / "ref.py"
    path.write_text(textwrap.dedent(f"""
        import torch
        import torch.nn as nn


        class Model(nn.Module):
            def forward(self, x, {other}):
                return {forward}


        def get_inputs():
            return {inputs}


        def get_init_inputs():
            return []
    """))
    return load_reference(path)


@pytest.mark.parametrize("case", [PER_PLANE, ONE_ELEMENT], ids=["per_plane", "one_element"])
def test_a_stretched_operand_is_read_in_place_and_matches_pytorch(case, tmp_path):
    other, forward, numpy_forward, inputs, dsl = case
    program = verify(parse(dsl, "k.dsl.py"))
    ref = _reference(tmp_path, other, forward, inputs)
    bound, _ = bind(program, ref)
    options = LowerOptions(shapes={n: v.shape for n, v in bound.items() if hasattr(v, "shape")})
    steps = run_pipeline(program, RuleEngine(), options)
    kernel = next(t for p, t in steps[-1].bundle.files.items() if p.endswith("_kernel.cpp"))
    assert "Brcb(" in kernel and "stretched" in kernel
    verdict, emu = check_emulator(program, steps[-1].bundle, ref)
    assert emu.findings == [], render_run(emu, program)
    assert verdict.correct, verdict.summary()
    arrays = {n: np.asarray(v) for n, v in bound.items() if hasattr(v, "shape")}
    want = numpy_forward(arrays["x"], arrays[other])
    np.testing.assert_array_equal(run(program, arrays)["y"], want)
