"""LabSession: review the four passes of a kernel, edit with three-way merge, undo, resume."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ascendcraft_lab.notebook import LabError, LabSession

KERNEL = "kernel/gelu_kernel.cpp"


def statuses(lab) -> dict:
    return {s.name: s.status for s in lab.steps}


def placeholder_edit(lab) -> str:
    """Init's kernel with the `TODO(pass 3 ...)` placeholder rewritten: pass 3 replaces those lines too."""
    lines = lab.text(KERNEL, "init").splitlines(keepends=True)
    i = next(k for k, l in enumerate(lines) if "TODO(pass 3" in l)
    lines[i] = "        // my own Process loop\n"
    return "".join(lines)


def resolve_keeping_regenerated(text: str) -> str:
    out, side = [], None
    for line in text.splitlines(keepends=True):
        if line.startswith("<<<<<<< "):
            side = "ours"
        elif line.startswith("=======") and side:
            side = "theirs"
        elif line.startswith(">>>>>>> "):
            side = None
        elif side != "ours":
            out.append(line)
    return "".join(out)


@pytest.mark.heavy
def test_open_runs_every_pass_and_leaves_them_pending(lab, folder):
    assert statuses(lab) == {"host": "pending", "init": "pending", "compute": "pending", "align": "pending"}
    assert (folder / "ascendcraft.json").is_file() and (folder / "reference.py").is_file()
    assert lab.final is not None and KERNEL in lab.final.files
    assert not lab.ready
    assert "UB used" in lab.tiling_text()


@pytest.mark.heavy
def test_accept_marks_the_step_and_is_saved_in_the_manifest(lab, folder):
    lab.accept("host")
    assert lab.step("host").status == "accepted"
    manifest = json.loads((folder / "ascendcraft.json").read_text())
    assert manifest["steps"]["host"]["status"] == "accepted"
    assert manifest["steps"]["init"]["status"] == "pending"


@pytest.mark.heavy
def test_accept_all_makes_the_session_ready(lab):
    lab.accept_all()
    assert set(statuses(lab).values()) == {"accepted"} and lab.ready


@pytest.mark.heavy
def test_edit_is_saved_and_merged_into_every_later_step(lab, folder):
    edited = lab.text(KERNEL, "init").replace("constexpr int32_t BUFFER_NUM = 2;",
                                                "constexpr int32_t BUFFER_NUM = 2;  // reviewed by me")
    lab.edit("init", edited)
    assert statuses(lab) == {"host": "pending", "init": "edited", "compute": "pending", "align": "pending"}
    assert (folder / "stages" / "02-init.edit" / KERNEL).read_text() == edited
    for later in ("compute", "align"):
        assert "// reviewed by me" in lab.text(KERNEL, later)
        assert "CopyIn" in lab.text(KERNEL, later)        # the regenerated lines are there too
    assert lab.conflicts == []


@pytest.mark.heavy
def test_an_edit_that_overlaps_regenerated_lines_is_a_conflict_not_a_loss(lab):
    lab.edit("init", placeholder_edit(lab))
    compute = lab.step("compute")
    assert compute.status == "failed"
    assert len(lab.conflicts) == 1
    c = lab.conflicts[0]
    assert c.path == KERNEL and "my own Process loop" in c.ours[0]
    text = lab.text(KERNEL, "compute")
    assert "<<<<<<< your edit" in text and "my own Process loop" in text and ">>>>>>> regenerated" in text
    with pytest.raises(LabError, match="failed and cannot be accepted"):
        lab.accept("compute")


@pytest.mark.heavy
def test_editing_the_conflicted_step_resolves_the_conflict(lab):
    lab.edit("init", placeholder_edit(lab))
    lab.edit("compute", resolve_keeping_regenerated(lab.text(KERNEL, "compute")))
    assert lab.step("compute").status == "edited"
    assert lab.conflicts == []
    assert "<<<<<<<" not in lab.text(KERNEL, "align")


@pytest.mark.heavy
def test_undo_drops_the_edit_and_rederives_later_steps(lab, folder):
    original = lab.text(KERNEL, "align")
    lab.edit("init", placeholder_edit(lab))
    lab.undo("init")
    assert statuses(lab) == {"host": "pending", "init": "pending", "compute": "pending", "align": "pending"}
    assert lab.text(KERNEL, "align") == original
    assert not (folder / "stages" / "02-init.edit").exists()


@pytest.mark.heavy
def test_undo_withdraws_an_acceptance_and_refuses_when_nothing_to_undo(lab):
    lab.accept("init")
    lab.undo("init")
    assert lab.step("init").status == "pending"
    with pytest.raises(LabError, match="nothing|no edit or acceptance"):
        lab.undo("init")


@pytest.mark.heavy
def test_edit_of_a_step_with_several_files_needs_the_path(lab):
    with pytest.raises(LabError, match="changed 6 files: name the one you edit"):
        lab.edit("host", "int x;\n")
    with pytest.raises(LabError, match="has no file"):
        lab.edit("host", {"host/nope.cpp": "int x;\n"})


@pytest.mark.heavy
def test_compile_needs_every_step_reviewed(lab):
    lab.accept("host")
    with pytest.raises(LabError, match=r"init is pending, compute is pending, align is pending"):
        lab.compile_and_verify()


@pytest.mark.heavy
def test_compile_and_verify_gives_the_emulator_verdict_and_records_it(lab, folder):
    lab.accept_all()
    result = lab.compile_and_verify()
    assert result.correct, result.summary
    assert result.message.startswith("correct: `gelu` matches the reference on the emulator")
    assert result.max_abs_err is not None and result.max_abs_err < 1e-4
    record = json.loads(next((folder / "runs").glob("*.json")).read_text())
    assert record["correct"] is True and record["bundle_hash"]


@pytest.mark.heavy
def test_a_dsl_error_points_at_the_line_and_keeps_the_folder(lab, folder, gelu_dsl, gelu_ref):
    before = (folder / "kernel.dsl.py").read_text()
    manifest = (folder / "ascendcraft.json").read_text()
    with pytest.raises(LabError) as err:
        LabSession.open(folder, gelu_dsl.replace("tanh(inner)", "tanhh(inner)"), reference=gelu_ref)
    assert "`tanhh` is not a DSL operation" in str(err.value)
    assert "kernel.dsl.py:19:" in str(err.value) and "^^^^^" in str(err.value)
    assert (folder / "kernel.dsl.py").read_text() == before
    assert (folder / "ascendcraft.json").read_text() == manifest


@pytest.mark.heavy
def test_a_tile_too_big_for_ub_is_reported_at_the_dsl_line(folder, gelu_dsl, gelu_ref):
    with pytest.raises(LabError, match=r"tile `xu` of 20000 f32 .* UB") as err:
        LabSession.open(folder, gelu_dsl.replace("tile=min(tile, N)", "tile=20000"), reference=gelu_ref)
    assert "kernel.dsl.py:16:" in str(err.value)


def test_a_missing_reference_is_one_clear_error(folder, gelu_dsl):
    with pytest.raises(LabError, match="the reference .*nope.py does not exist"):
        LabSession.open(folder, gelu_dsl, reference="nope.py")


@pytest.mark.heavy
def test_an_edit_made_for_an_earlier_draft_is_flagged(lab, folder, gelu_dsl):
    lab.edit("init", lab.text(KERNEL, "init") + "// mine\n")
    again = LabSession.open(folder, gelu_dsl.replace("0.5 * xu", "xu * 0.5"))
    assert any("earlier DSL draft" in n for n in again.step("init").notes)


RESUME = """
import json, sys
from ascendcraft_lab.notebook import LabSession
lab = LabSession.resume(sys.argv[1])
print(json.dumps({"status": {s.name: s.status for s in lab.steps},
                  "mine": "// kept across restarts" in lab.text("kernel/gelu_kernel.cpp", "align"),
                  "verdict": lab.result.correct if lab.result else None,
                  "current": lab.result.current if lab.result else None}))
"""


@pytest.mark.heavy
def test_a_fresh_python_process_resumes_the_same_state(lab, folder):
    lab.accept("host")
    lab.edit("init", lab.text(KERNEL, "init").replace("using namespace AscendC;",
                                                      "using namespace AscendC;  // kept across restarts"))
    lab.accept("compute")
    out = subprocess.run([sys.executable, "-c", RESUME, str(folder)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    state = json.loads(out.stdout)
    assert state["status"] == {"host": "accepted", "init": "edited", "compute": "accepted", "align": "pending"}
    assert state["mine"] is True
    assert state["verdict"] is None


@pytest.mark.heavy
def test_emulator_findings_point_at_the_cpp_and_dsl_lines(lab):
    text = lab.text(KERNEL, "align")
    store = "DataCopyPad(yGm[(r - rBegin) * tiling.N + cStart]"
    assert store in text
    lab.edit("align", text.replace(store, "DataCopyPad(yGm[(r - rBegin) * tiling.N + cStart + 64]"))
    lab.accept_all()
    result = lab.compile_and_verify()
    assert not result.correct
    assert result.findings and result.findings[0]["file"] == KERNEL
    store_line = next(i for i, l in enumerate(lab.dsl.splitlines(), 1) if "store(y[r, c], yu)" in l)
    assert result.findings[0]["dsl_line"] == store_line
    assert "[emulator/" in result.detail and f"kernel.dsl.py:{store_line}:" in result.detail


def test_two_drafts_differing_only_in_layout_keep_their_own_dsl_lines(tmp_path, gelu_dsl):
    """A notebook lowers many drafts in one process: each must map to its own lines (plan cache)."""
    shifted = "# a comment line\n\n\n" + gelu_dsl            # same kernel, every line 3 lower
    first = LabSession.open(tmp_path / "a", shifted)
    second = LabSession.open(tmp_path / "b", gelu_dsl)
    line = next(i for i, l in enumerate(gelu_dsl.splitlines(), 1) if "core_rows(" in l)
    assert f"// DSL {line + 3}: for r in core_rows" in first.text(KERNEL)
    assert f"// DSL {line}: for r in core_rows" in second.text(KERNEL)


@pytest.mark.heavy
def test_estimate_shows_the_pipe_timeline_of_the_first_blocks_offline(lab):
    lab.accept_all()
    profile = lab.estimate()
    page = profile._repr_html_()
    assert page.startswith('<div class="acl-profile"><pre style="white-space:pre-wrap">ESTIMATED profile of gelu')
    shown = [b for b in profile.kernel.blocks if b.spans][:3]
    assert len(shown) == 3
    assert page.count("<rect ") == sum(1 for b in shown for s in b.spans if s.end > s.start)
    for pipe in ("MTE2", "V", "MTE3"):
        assert f">block 0 {pipe}</text>" in page
