"""The pipe model orders a mixed launch's cube and vector cores by the cross-core flags of its trace."""
from __future__ import annotations

import pytest

from ascendcraft_lab.perf import trace as tr
from ascendcraft_lab.perf.model import _EVENTS, FIX, M, MTE3, S, V, estimate

SOC = "Ascend910B2"
FIX_T = 10  # pipe_t PIPE_FIX (base.h)
MTE3_T = 5


def ev(kind, pipe=S, a=0, b=0, api="x", dtype="float32"):
    return tr.Event(kind, pipe, api, "k.cpp", 1, a, b, dtype)


def mmad(m, n, k):
    return ev(tr.INSTR, M, m | n << 16 | k << 32, api="Mmad")


def launch(cube_events, vec_events, cubes=2):
    blocks = [tr.Block(i, True, len(cube_events), list(cube_events)) for i in range(cubes)]
    blocks += [tr.Block(i, False, len(vec_events), list(vec_events)) for i in range(2 * cubes)]
    return tr.Launch(cubes, 0, blocks)


def after(event: str):
    """SetFlag / WaitFlag of a HardEvent: the second pipe waits for the first (as the queues would make it)."""
    i = _EVENTS.index(event)
    return [ev(tr.SET_FLAG, a=i), ev(tr.WAIT_FLAG, a=i)]


CUBE_WORK = [mmad(128, 128, 2048)] + after("M_FIX") + [ev(tr.INSTR, FIX, 64 * 1024, api="Fixpipe")]
VEC_WORK = [ev(tr.INSTR, V, 4000, api="Add")] + after("V_MTE3") + [ev(tr.INSTR, MTE3, 4096, 1, api="DataCopy")]
# What the lowering writes for sync_all() between a cube phase and a vector phase (passes/compute.py).
CUBE_HANDOVER = [ev(tr.CROSS_SET, a=0, b=0 | FIX_T << 8), ev(tr.CROSS_WAIT, a=0),
                 ev(tr.CROSS_SET, a=1, b=2 | FIX_T << 8)]
VEC_WAIT = [ev(tr.CROSS_WAIT, a=1)]


def _phase_ends(est):
    cube = max(b.start + b.elapsed for b in est.blocks if b.cube)
    vec = max(b.start + b.elapsed for b in est.blocks if not b.cube)
    return cube, vec


def test_phases_that_sync_all_separates_run_one_after_the_other():
    alone_cube = estimate(launch(CUBE_WORK, []), SOC).device_s
    alone_vec = estimate(launch([], VEC_WORK), SOC).device_s
    assert alone_cube > 0 and alone_vec > 0
    free = estimate(launch(CUBE_WORK, VEC_WORK), SOC)
    assert free.device_s == pytest.approx(max(alone_cube, alone_vec), rel=0.02)   # nothing orders them
    synced = estimate(launch(CUBE_WORK + CUBE_HANDOVER, VEC_WAIT + VEC_WORK), SOC, keep_spans=99)
    assert synced.device_s >= alone_cube + alone_vec * 0.98
    assert synced.device_s == pytest.approx(alone_cube + alone_vec, rel=0.05)
    cube_end = max(s.end for b in synced.blocks if b.cube for s in b.spans)
    first_vec = min(s.start for b in synced.blocks if not b.cube for s in b.spans if s.pipe == "V")
    assert first_vec >= cube_end
    assert any("one after the other" in a for a in synced.assumptions)


def test_a_mode_0_set_releases_the_waits_only_once_every_core_of_its_kind_has_set_it():
    # Cube core 1 multiplies four times as long: cube core 0's vector cores wait for it too, since the
    # hand-over goes through the mode-0 barrier of every cube core.
    blocks = [tr.Block(0, True, 0, CUBE_WORK + CUBE_HANDOVER),
              tr.Block(1, True, 0, [mmad(128, 128, 8192)] + CUBE_WORK[1:] + CUBE_HANDOVER)]
    blocks += [tr.Block(i, False, 0, VEC_WAIT + VEC_WORK) for i in range(4)]
    est = estimate(tr.Launch(2, 0, blocks), SOC, keep_spans=99)
    slow_cube = next(b for b in est.blocks if b.cube and b.index == 1)
    slow_mmad_end = max(s.end for s in slow_cube.spans if s.pipe == "M")
    for b in est.blocks:
        if not b.cube:
            assert min(s.start for s in b.spans if s.pipe == "V") >= slow_mmad_end


def test_vector_cores_hand_back_to_their_cube_core_once_both_have_set_the_flag():
    # Mode 2 from the AIVs: cube core 0 waits for vector cores 0 and 1, the slower of which works twice as long.
    cube = [tr.Block(0, True, 0, [ev(tr.CROSS_WAIT, a=3), mmad(64, 64, 64)])]
    vec = [tr.Block(0, False, 0, VEC_WORK + [ev(tr.CROSS_SET, a=3, b=2 | MTE3_T << 8)]),
           tr.Block(1, False, 0, VEC_WORK * 2 + [ev(tr.CROSS_SET, a=3, b=2 | MTE3_T << 8)])]
    est = estimate(tr.Launch(1, 0, cube + vec), SOC, keep_spans=99)
    slow = next(b for b in est.blocks if not b.cube and b.index == 1)
    mm = next(s for b in est.blocks if b.cube for s in b.spans if s.pipe == "M")
    assert mm.start >= max(s.end for s in slow.spans if s.pipe == "V")


def test_a_wait_nothing_releases_leaves_the_core_where_it_is_instead_of_hanging_the_model():
    est = estimate(launch([], VEC_WAIT + VEC_WORK), SOC)
    assert all(b.busy.get("V", 0.0) == 0.0 for b in est.blocks)


def test_a_fixpipe_to_gm_pays_the_gm_bandwidth_and_counts_its_bytes():
    small = estimate(launch([ev(tr.INSTR, FIX, 4 * 1024, 16, api="Fixpipe")], []), SOC)
    big = estimate(launch([ev(tr.INSTR, FIX, 64 * 1024, 128, api="Fixpipe")], []), SOC)
    assert big.gm_bytes == 2 * 64 * 1024     # two cube blocks
    core_bw = big.blocks[0].gm_bytes / (big.device_s - small.device_s)
    assert core_bw < 70e9                    # at one core's share of the HBM, not at L0C's on-chip rate
