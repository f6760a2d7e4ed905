"""The pipe model obeys the physics it claims (issue 21's checks): bandwidth, overlap, overheads, scaling."""
from __future__ import annotations

import pytest

from ascendcraft_lab.perf import costs_for
from perf_helpers import SOC, traced

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

BW = costs_for(SOC).gm_bandwidth.value


def test_a_pure_copy_approaches_but_never_exceeds_the_gm_bandwidth(tmp_path):
    small = traced("copy", 48, 48 * 8192, 8192, tmp_path)
    big = traced("copy", 48, 48 * 8192 * 16, 8192, tmp_path)
    assert small.achieved_bandwidth < big.achieved_bandwidth <= BW
    assert big.achieved_bandwidth > 0.7 * BW
    assert big.gm_bytes == 2 * 4 * 48 * 8192 * 16   # every byte read once and written once


def test_one_buffer_per_queue_never_overlaps_copy_in_with_compute_and_two_do(tmp_path):
    single = traced("stream_add", 8, 8 * 4096 * 8, 4096, tmp_path, flags=["-DBUFFER_NUM=1"])
    double = traced("stream_add", 8, 8 * 4096 * 8, 4096, tmp_path)
    assert all(b.mte2_v_overlap == 0 for b in single.blocks)
    assert all(b.mte2_v_overlap > 0 for b in double.blocks)
    assert double.kernel_s < single.kernel_s


def test_halving_the_tile_doubles_the_per_tile_overheads(tmp_path):
    n = 8 * 4096 * 8
    whole = traced("stream_add", 8, n, 4096, tmp_path).blocks[0]
    half = traced("stream_add", 8, n, 2048, tmp_path).blocks[0]
    assert half.instructions == 2 * whole.instructions
    assert half.overhead == pytest.approx(2 * whole.overhead, rel=0.02)


def test_a_streaming_kernel_takes_time_linear_in_its_data(tmp_path):
    one, two, four = (traced("stream_add", 48, 48 * 4096 * k, 4096, tmp_path).device_s for k in (8, 16, 32))
    assert two == pytest.approx(2 * one, rel=0.05)
    assert four == pytest.approx(2 * two, rel=0.05)


def test_a_waitflag_holds_its_pipe_until_the_setflags_pipe_is_done(tmp_path):
    est = traced("flag_add", 4, 4 * 4096 * 4, 4096, tmp_path)
    spans = est.blocks[0].spans
    for i, s in enumerate(spans):
        before = [p for p in spans[:i] if p.pipe != s.pipe]
        if s.pipe == "V":       # MTE2_V: after both copies in of its tile
            assert s.start >= max(p.end for p in before if p.pipe == "MTE2")
        if s.pipe == "MTE3":    # V_MTE3: after its tile's Add
            assert s.start >= max(p.end for p in before if p.pipe == "V")
        if s.pipe == "MTE2" and any(p.pipe == "MTE3" for p in before):   # MTE3_MTE2: the buffers are free again
            assert s.start >= max(p.end for p in before if p.pipe == "MTE3")
    assert est.blocks[0].overlap == 0   # every pipe waits for the one before it: nothing overlaps
