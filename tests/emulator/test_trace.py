"""The pipe trace: a traced run records, per block and in program order, the pipe work and the
dependencies the kernel declared (acemu/trace.h)"""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft_lab.backends.emulator.runner import Arg, pack_tiling
from ascendcraft_lab.perf import trace as tr
from emulator_helpers import run

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

N, TILE, BLOCKS = 8 * 4 * 512, 512, 8


def add_args():
    x = np.arange(N, dtype=np.float32)
    return [Arg.input(x), Arg.input(x), Arg.output("float32", (N,)), Arg.workspace(0),
            Arg.tiling(pack_tiling([("uint32", N), ("uint32", TILE)]))]


def test_a_traced_run_records_each_blocks_copies_vector_work_and_queue_ops_in_program_order(tmp_path):
    path = tmp_path / "add.trace"
    assert run("add_double_buffer", BLOCKS, add_args(), trace=path).ok
    (launch,) = tr.read_trace(path)
    assert launch.block_dim == BLOCKS and sorted(b.index for b in launch.blocks) == list(range(BLOCKS))
    tiles = N // BLOCKS // TILE
    for block in launch.blocks:
        work = [(tr.PIPES[e.pipe], e.api, e.a) for e in block.events if e.kind == tr.INSTR]
        per_tile = [("MTE2", "DataCopy", TILE * 4), ("MTE2", "DataCopy", TILE * 4), ("V", "Add", TILE * 4 // 256),
                    ("MTE3", "DataCopy", TILE * 4)]
        assert work == per_tile * tiles
        kinds = [tr.KINDS[e.kind] for e in block.events if e.kind != tr.INSTR]
        assert kinds[:4] == ["alloc", "alloc", "enque", "enque"]
        assert kinds.count("deque") == kinds.count("enque") == kinds.count("free") == kinds.count("alloc") == 3 * tiles
        assert not block.truncated



def test_a_traced_cube_kernel_records_its_pipes_and_the_mmad_shape(tmp_path):
    m, n, k = 32, 64, 48
    a = np.ones((m, k), np.float16)
    b = np.ones((k, n), np.float16)
    path = tmp_path / "mm.trace"
    tiling = Arg.tiling(pack_tiling([("uint32", m), ("uint32", n), ("uint32", k), ("uint32", 0)]))
    assert run("mm_basic", 1, [Arg.input(a), Arg.input(b), Arg.output("float32", (m, n)), tiling], trace=path).ok
    (launch,) = tr.read_trace(path)
    work = [e for blk in launch.blocks for e in blk.events if e.kind == tr.INSTR]
    pipes = [tr.PIPES[e.pipe] for e in work]
    assert pipes.index("MTE2") < pipes.index("MTE1") < pipes.index("M") < pipes.index("FIX")
    mmads = [e for e in work if tr.PIPES[e.pipe] == "M"]
    assert [(e.a & 0xFFFF, (e.a >> 16) & 0xFFFF, e.a >> 32) for e in mmads] == [(m, n, k)]
    assert all(e.dtype == "float16" for e in mmads)
    assert sum(e.a for e in work if tr.PIPES[e.pipe] == "MTE2") == (m * k + k * n) * 2


def test_a_cut_or_foreign_trace_file_is_one_clear_error(tmp_path):
    path = tmp_path / "add.trace"
    assert run("add_double_buffer", BLOCKS, add_args(), trace=path).ok
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(tr.TraceError, match="ends early"):
        tr.read_trace(path)
    path.write_bytes(b"not a trace")
    with pytest.raises(tr.TraceError, match="is not an emulator pipe trace"):
        tr.read_trace(path)
