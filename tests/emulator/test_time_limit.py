"""The time limit of an emulated run: scaled with the work, and what a stopped run says (no process
is started here; test_findings.py stops real kernels)."""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft_lab.backends.emulator.runner import read_progress, timeout_message
from ascendcraft_lab.backends.emulator.verify import KERNEL_TIMEOUT_S, work_of, work_timeout

# Pure functions, but tests/emulator's conftest compiles the test kernels first: not in `make test-fast`.
pytestmark = pytest.mark.heavy


def arrays(*shapes):
    return {f"t{i}": np.zeros(s, np.float32) for i, s in enumerate(shapes)}


def test_cube_work_is_the_product_flops():
    m, n, k = 96, 40, 72
    flops, nbytes = work_of(arrays((m, k), (k, n)), [(m, n)], 4, cube=True)
    assert flops == 2 * m * n * k
    assert nbytes == 4 * (m * k + k * n + m * n)
    # batched: never less than the batch's products; matrix-vector: exact
    b = 6
    flops, _ = work_of(arrays((b, m, k), (b, k, n)), [(b, m, n)], 4, cube=True)
    assert flops >= 2 * b * m * n * k
    flops, _ = work_of(arrays((m, k), (k,)), [(m,)], 4, cube=True)
    assert flops == 2 * m * k


def test_vector_work_is_bytes_only():
    flops, nbytes = work_of(arrays((1000, 300)), [(1000, 300)], 4, cube=False)
    assert flops == 0 and nbytes == 2 * 4 * 1000 * 300


def test_the_limit_grows_with_the_work_from_a_floor():
    assert work_timeout(0, 0) == KERNEL_TIMEOUT_S
    small = work_timeout(*work_of(arrays((256, 256), (256, 256)), [(256, 256)], 4, cube=True))
    assert small < KERNEL_TIMEOUT_S + 1
    # issue 42's 4-D tensor-matrix product, 16 x 256 x 512 x 256 by 256 x 768 (shapes only: no data)
    flops = 2.0 * 16 * 256 * 512 * 256 * 768
    nbytes = 4.0 * (16 * 256 * 512 * 256 + 256 * 768 + 16 * 256 * 512 * 768)
    assert work_timeout(flops, nbytes) > 10 * KERNEL_TIMEOUT_S


def test_progress_file_round_trip(tmp_path):
    p = tmp_path / "progress.txt"
    p.write_text("elapsed 9.5\nlaunches 0\nblocks 3 8\nrunning 4 AIV 120 0.2 58 DataCopy /x/my kernel.cpp\n")
    got = read_progress(p)
    assert got["blocks_done"] == 3 and got["blocks_total"] == 8 and got["elapsed_s"] == 9.5
    assert got["running"] == [{"block": 4, "core": "AIV", "calls": 120, "idle_s": 0.2, "line": 58, "api": "DataCopy",
                               "file": "/x/my kernel.cpp"}]
    assert read_progress(tmp_path / "missing.txt") is None


def progress(done, total, running, elapsed=100.0):
    return {"elapsed_s": elapsed, "launches": 0, "blocks_done": done, "blocks_total": total, "running": running}


def block(b, calls, idle, api="Mmad", line=104):
    return {"block": b, "core": "AIC", "calls": calls, "idle_s": idle, "line": line, "api": api, "file": "/p/k.cpp"}


def test_slow_emulation_and_endless_loop_are_different_messages():
    slow = timeout_message(120, progress(6, 24, [block(6, 900, 0.1), block(7, 880, 0.0)], elapsed=118))
    assert "6 of 24 blocks had finished" in slow and "needs about 472 s" in slow
    assert "slow for this size, not stuck" in slow and "endless" not in slow
    assert "block 6 at Mmad (k.cpp:104)" in slow
    running = [block(0, 12, 110.0, "DataCopy", 58), block(1, 900, 0.0)]
    stuck = timeout_message(120, progress(0, 24, running, elapsed=118))
    assert "0 of 24 blocks had finished" in stuck and "endless loop" in stuck
    assert "block 0 at DataCopy (k.cpp:58) has made no AscendC call for the last 110 s" in stuck
    busy = timeout_message(120, progress(0, 2, [block(0, 5000, 0.1), block(1, 4000, 0.0)], elapsed=118))
    assert "keep calling AscendC (9000 calls so far" in busy
    assert "before its first block started" in timeout_message(120, None)
    named = timeout_message(120, progress(1, 2, [block(1, 5, 0.0)]), where=lambda f, ln: f", DSL line {ln - 100}")
    assert "(k.cpp:104, DSL line 4)" in named
