"""Two sibling core loops of one variable that split the same work share the split's members
(`partStart`, `partLen` are declared and set once); the verifier refuses the name for a different
split (tests/dsl_invalid/core_split_name_reused.dsl.py)."""
from __future__ import annotations
import pytest

from ascendcraft_lab.cli import main

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

KERNEL = '''
@host
def tiling(x: Tensor[f32, (N,)]):
    chunk = align_up(cdiv(N, VECTOR_CORES), 8)
    tile = ub_elems(f32, live=4)
    return Launch(cdiv(N, chunk), chunk=chunk, tile=min(tile, chunk))


@kernel
def two(x: GM[f32, (N,)], y: Out[f32, (N,)], z: Out[f32, (N,)], t: Tiling):
    for part in core_chunk(t.chunk, N):
        for c in tiles(part, t.tile):
            with copyin:
                xu = load(x[c])
            with compute:
                yu = relu(xu)
            with copyout:
                store(y[c], yu)
    for part in core_chunk(t.chunk, N):
        for c in tiles(part, t.tile):
            with copyin:
                xu = load(x[c])
            with compute:
                zu = xu * 2.0
            with copyout:
                store(z[c], zu)
'''

REFERENCE = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x), x * 2.0


N = 5003


def get_inputs():
    return [torch.randn(N)]


def get_init_inputs():
    return []
'''


def test_two_core_loops_of_one_split_compile_and_match_pytorch_on_the_emulator(tmp_path, capsys):
    (tmp_path / "two.dsl.py").write_text(KERNEL)
    (tmp_path / "two.py").write_text(REFERENCE)
    assert main(["check", str(tmp_path / "two.dsl.py"), "--ref", str(tmp_path / "two.py")]) == 0
    out = capsys.readouterr()
    assert "correct: `two` matches the reference on the emulator" in out.out + out.err
