"""Every identifier the passes generate is a valid C++ name whatever the DSL's sizes are (issue 33: a
tile whose size is the literal 1 named its byte count `1Bytes`)."""
from __future__ import annotations

import re

import pytest

from ascendcraft_lab.dsl.parser import parse
from ascendcraft_lab.dsl.verifier import verify
from ascendcraft_lab.engines.rule import render
from ascendcraft_lab.passes.manager import LowerOptions

KERNEL = '''
@host
def tiling(x: Tensor[f32, (N,)]):
    return Launch(1, tile={tile})


@kernel
def sized(x: GM[f32, (N,)], y: Out[f32, (N,)], z: Out[f32, (N,)], t: Tiling):
    for c in tiles(N, {size}):
        with copyin:
            xu = load(x[c])
        with compute:
            yu = relu(xu)
            zu = xu * 2.0
        with copyout:
            store(y[c], yu)
            store(z[c], zu)
'''

# a declaration: `[const] TYPE NAME =` or `;` (the name is whatever stands before the `=`)
TYPES = r"(?:u?int(?:8|16|32|64)_t|float|half|bool|auto)"
DECLARED = re.compile(rf"\b(?:const\s+)?{TYPES}\s*[*&]?\s*([^\s=;,()<>\[\]]+)\s*[=;]")


@pytest.mark.parametrize("size", ["1", "7", "32", "t.tile"])
def test_every_declared_name_is_a_cpp_identifier_whatever_the_tile_size(size):
    program = verify(parse(KERNEL.format(tile=1 if size == "t.tile" else size, size=size), "sized.dsl.py"))
    bundle = render(program, LowerOptions(shapes={"x": (9,), "y": (9,), "z": (9,)}), 4)
    names = [m.group(1) for path, text in bundle.files.items() if path.endswith((".cpp", ".h"))
             for m in DECLARED.finditer(text)]
    assert names
    bad = [n for n in names if not re.fullmatch(r"[A-Za-z_]\w*", n)]
    assert not bad, bad
