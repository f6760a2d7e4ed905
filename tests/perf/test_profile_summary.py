"""The compact profile summary (issue 40, item 7): a few lines, every number said to be an
ESTIMATE, the bound pipe named with what it does, alike blocks as one line, and a next step."""
from __future__ import annotations

from ascendcraft_lab.perf.eager import EagerEstimate, EagerOp
from ascendcraft_lab.perf.model import BlockEstimate, Estimate
from ascendcraft_lab.perf.report import Profile


def _block(i: int, elapsed: float, busy: dict, cube: bool = False) -> BlockEstimate:
    return BlockEstimate(index=i, cube=cube, core=i, start=0.0, elapsed=elapsed, busy=busy, overhead=0.0,
                         gm_bytes=1 << 18, instructions=10, overlap=0.2, mte2_v_overlap=0.0)


def _estimate(blocks: list[BlockEstimate], launch_s: float = 5e-6) -> Estimate:
    finish = max(b.elapsed for b in blocks)
    roof = {"gm_bytes": 1 << 22, "gm_floor_s": 2.6e-6, "vector_floor_s": 3.5e-6, "cube_floor_s": 0.0,
            "bandwidth_fraction": 0.29, "bound": "vector", "chip_bound": "memory", "floor_s": 2.6e-6,
            "fraction": 2.6e-6 / finish}
    return Estimate("Ascend910B2", launch_s + finish, launch_s, blocks, len(blocks), 1 << 22, 0.0, 0.0, roof,
                    ["a guess"])


def test_alike_blocks_are_one_phrase_and_the_bound_pipe_is_named_with_a_next_step():
    blocks = [_block(i, 9.14e-6, {"MTE2": 6e-6, "V": 3e-6, "MTE3": 1e-6}) for i in range(16)]
    eager = EagerEstimate("Ascend910B2", [EagerOp("softmax", "aten.softmax", 1 << 22, 0.0, 6.31e-6, "memory")], 5e-6)
    lines = Profile(_estimate(blocks), eager, name="softmax").summary()
    text = "\n".join(lines)
    assert len(lines) <= 9, text
    assert lines[0].startswith("ESTIMATED profile of softmax on") and "not measured on an NPU" in lines[0]
    assert "16 block(s) of 9.14 us each" in text           # one phrase for 16 alike blocks, not 16 rows
    assert text.count("9.14 us") <= 3
    assert "MTE2 (copies in from GM)" in text and "busy 66%" in text
    assert "at 38% of it (the vector floor, 3.50 us" in text
    assert "28% of the whole chip's (memory, 2.60 us)" in text    # 32 idle vector cores: the chip's floor is lower
    assert "speedup 0.45x ESTIMATED (the kernel is estimated slower)" in text
    assert "try next   read fewer bytes from GM" in text
    assert "overlap only 20%" in text                      # blocks overlap 20% < 50%: the overlap tip too
    assert "NPU timing" not in text and "measured" not in text.replace("not measured", "")


def test_blocks_that_differ_show_their_spread_and_a_launch_bound_kernel_says_so():
    blocks = [_block(0, 1e-6, {"M": 0.9e-6}, cube=True), _block(1, 2e-6, {"V": 1.5e-6})]
    profile = Profile(_estimate(blocks, launch_s=5e-6))
    text = "\n".join(profile.summary())
    assert "2 block(s) (1 cube, 1 vector) of 1.00 us .. 2.00 us each" in text
    assert "vs eager" not in text                          # no eager estimate: no speedup line
    tips = profile.next_steps()
    assert tips[0].startswith("the launch (5.00 us) costs more than the work")
    assert any("vector instructions" in t for t in tips)   # V is busiest over the blocks
