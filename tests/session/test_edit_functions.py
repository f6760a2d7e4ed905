"""The session's function modules on a folder of stage texts: lower, accept, edit, undo, merge, adopt.

No reference and the rule engine: nothing here compiles C++ or starts a process (the fast tier;
`no_children` makes a test that tried fail). Each test works on a copy of one GELU session
lowered once for the module.
"""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from ascendcraft_lab.session import edit_store, edits
from ascendcraft_lab.session.check import RECORD_FIELDS, record_check
from ascendcraft_lab.session.errors import SessionError
from ascendcraft_lab.session.folder import SessionFolder
from ascendcraft_lab.session.lower import lower, settle
from ascendcraft_lab.session.session import Session
from ascendcraft_lab.session.state import SessionState

EXAMPLES = Path(__file__).resolve().parents[2] / "ascendcraft_lab" / "examples" / "activation"
KERNEL = "kernel/gelu_kernel.cpp"
MARK = "using namespace AscendC;"


@pytest.fixture(autouse=True)
def no_children(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError(f"this test must not start a process: {args[:1]}")
    monkeypatch.setattr(subprocess.Popen, "__init__", refuse)


@pytest.fixture(scope="module")
def dsl() -> str:
    return (EXAMPLES / "gelu.dsl.py").read_text()


def opened(folder: Path, dsl: str | None = None) -> SessionState:
    """A session state as `Session.open` makes it, through the functions alone."""
    state = SessionState(SessionFolder(folder))
    settle(state, dsl, soc=None, engine=None, until=None, overrides=None, dsl_name=None)
    lower(state)
    return state


@pytest.fixture(scope="module")
def lowered(tmp_path_factory, dsl) -> Path:
    folder = tmp_path_factory.mktemp("lowered") / "gelu"
    opened(folder, dsl)
    return folder


@pytest.fixture
def state(lowered, tmp_path) -> SessionState:
    folder = tmp_path / "gelu"
    shutil.copytree(lowered, folder)
    return opened(folder)          # resumed: the draft and settings from the folder


def statuses(state: SessionState) -> dict[str, str]:
    return {s.name: s.status for s in state.steps}


def manifest(state: SessionState) -> dict:
    return json.loads((state.folder.path / "ascendcraft.json").read_text())


def kernel(state: SessionState, step: str) -> str:
    return state.step(step).bundle.files[KERNEL]


def marked(state: SessionState, step: str, comment: str) -> str:
    return kernel(state, step).replace(MARK, f"{MARK}  // {comment}")


def overlapping_edit(state: SessionState) -> str:
    """Init's kernel with the line pass 3 replaces rewritten: the merge into compute must conflict."""
    lines = kernel(state, "init").splitlines(keepends=True)
    i = next(k for k, line in enumerate(lines) if "TODO(pass 3" in line)
    lines[i] = "        // my own Process loop\n"
    return "".join(lines)


def keeping_regenerated(text: str) -> str:
    """A conflict resolved for the regenerated side: the user's side and the markers dropped."""
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


def test_a_resumed_session_has_every_pass_pending_and_its_stages_on_disk(state):
    assert statuses(state) == dict.fromkeys(("host", "init", "compute", "align"), "pending")
    assert (state.folder.path / "stages" / "04-align" / KERNEL).read_text() == kernel(state, "align")
    assert (state.folder.path / "ascendc" / KERNEL).read_text() == kernel(state, "align")


def test_an_acceptance_is_saved_and_kept_by_the_next_lowering(state):
    edits.accept(state, "host")
    assert manifest(state)["steps"]["host"]["status"] == "accepted"
    again = opened(state.folder.path)
    assert statuses(again)["host"] == "accepted"


def test_an_acceptance_lapses_when_a_new_draft_changes_the_steps_output(state, dsl):
    edits.accept_all(state)
    shifted = opened(state.folder.path, "# one line more\n" + dsl)    # every `// DSL n:` comment moves
    assert statuses(shifted) == dict.fromkeys(("host", "init", "compute", "align"), "pending")


def test_an_edit_replaces_its_step_and_is_merged_into_every_later_step(state):
    edits.edit(state, "init", marked(state, "init", "mine"))
    assert statuses(state) == {"host": "pending", "init": "edited", "compute": "pending", "align": "pending"}
    assert (state.folder.path / "stages" / "02-init.edit" / KERNEL).read_text() == kernel(state, "init")
    for later in ("compute", "align"):
        assert f"{MARK}  // mine" in kernel(state, later)
    assert "init" in manifest(state)["notebook"]["edits"]
    assert state.conflicts == []


def test_an_overlapping_edit_is_a_conflict_on_the_next_step_and_is_resolved_by_editing_it(state):
    edits.edit(state, "init", overlapping_edit(state))
    assert statuses(state)["compute"] == "failed" and len(state.conflicts) == 1
    text = kernel(state, "compute")
    assert "<<<<<<< your edit" in text and "my own Process loop" in text
    with pytest.raises(SessionError, match="failed and cannot be accepted"):
        edits.accept(state, "compute")
    edits.edit(state, "compute", keeping_regenerated(text))
    assert statuses(state)["compute"] == "edited" and state.conflicts == []
    assert "<<<<<<<" not in kernel(state, "align")


def test_undo_of_an_edit_rederives_the_later_steps_and_forgets_the_edit(state):
    before = kernel(state, "align")
    edits.edit(state, "init", marked(state, "init", "mine"))
    edits.undo(state, "init")
    assert kernel(state, "align") == before
    assert not (state.folder.path / "stages" / "02-init.edit").exists()
    assert "init" not in manifest(state)["notebook"]["edits"]


def test_undo_withdraws_an_acceptance_then_has_nothing_left_to_undo(state):
    edits.accept(state, "init")
    edits.undo(state, "init")
    assert statuses(state)["init"] == "pending"
    assert manifest(state)["steps"]["init"]["status"] == "pending"
    with pytest.raises(SessionError, match="no edit or acceptance to undo"):
        edits.undo(state, "init")


def test_an_edit_that_changes_nothing_is_no_error_and_writes_nothing(state):
    before = (state.folder.path / "ascendcraft.json").read_text()
    assert edits.edit(state, "init", kernel(state, "init")) is False
    assert (state.folder.path / "ascendcraft.json").read_text() == before
    assert not (state.folder.path / "stages" / "02-init.edit").exists()


def test_repeating_an_edit_keeps_it_and_says_the_step_already_holds_it(state):
    """A notebook run again repeats its edits: the second is a no-op, and the session says so."""
    lab = Session(state.folder.path)
    settle(lab, None, soc=None, engine=None, until=None, overrides=None, dsl_name=None)
    lower(lab)
    text = marked(lab, "init", "one buffer")
    lab.edit("init", text)
    assert lab.notice is None and lab.step("init").status == "edited"
    lab.edit("init", text)
    assert lab.notice.startswith("note: pass 2 (init) already holds this text") and "your edit is kept" in lab.notice
    assert lab.step("init").status == "edited" and kernel(lab, "init") == text


def test_a_fresh_open_sets_the_review_aside_and_restoring_brings_it_back(state, dsl):
    edits.accept(state, "host")
    edits.edit(state, "init", marked(state, "init", "mine"))
    lab = Session.open(state.folder.path, dsl, fresh=True)
    assert statuses(lab) == {"host": "pending", "init": "pending", "compute": "pending", "align": "pending"}
    assert MARK + "  // mine" not in kernel(lab, "align")
    assert "your edit of pass 2 (init) and the acceptance of pass 1 (host) set aside in" in lab.notice
    aside = state.folder.path / "set-aside"
    assert [p.name for p in (next(aside.iterdir())).iterdir()] == sorted(["02-init.edit", "review.json"])
    lab.restore_set_aside()
    assert statuses(lab)["host"] == "accepted" and lab.step("init").status == "edited"
    assert MARK + "  // mine" in kernel(lab, "align")
    assert not list(aside.iterdir()) and lab.notice.startswith("restored your edit of pass 2 (init)")


def test_a_fresh_open_with_a_draft_that_does_not_lower_keeps_the_review(state, dsl):
    """Issue 40, item 6: a cell run again with a DSL error must not take the review away."""
    edits.accept(state, "host")
    edits.edit(state, "init", marked(state, "init", "mine"))
    broken = dsl.replace("load(x[r, c])", "lod(x[r, c])")
    with pytest.raises(SessionError, match=r"kernel.dsl.py:\d+"):
        Session.open(state.folder.path, broken, fresh=True)
    lab = Session.open(state.folder.path)                      # the folder as it was
    assert statuses(lab)["host"] == "accepted" and lab.step("init").status == "edited"
    assert MARK + "  // mine" in kernel(lab, "align")
    assert not any((state.folder.path / "set-aside").glob("*/review.json"))


def test_reopening_a_reviewed_session_says_what_it_kept(state, dsl):
    edits.accept(state, "host")
    edits.edit(state, "init", marked(state, "init", "mine"))
    lab = Session.open(state.folder.path, dsl)
    assert lab.notice.startswith(f"resumed `gelu` from {state.folder.path}: kept your edit of pass 2 (init) "
                                 "and the acceptance of pass 1 (host)")
    assert Session.open(state.folder.path.parent / "new", dsl).notice is None


def test_restoring_with_nothing_set_aside_names_the_folder(state):
    with pytest.raises(SessionError, match="no set-aside review"):
        Session.resume(state.folder.path).restore_set_aside()


def test_an_edit_of_a_step_with_several_files_names_the_file(state):
    with pytest.raises(SessionError, match="changed 6 files: name the one you edit"):
        edits.edit(state, "host", "int x;\n")
    with pytest.raises(SessionError, match="has no file host/nope.cpp"):
        edits.edit(state, "host", {"host/nope.cpp": "int x;\n"})


def test_an_edit_made_for_an_earlier_draft_says_so(state, dsl):
    edits.edit(state, "init", marked(state, "init", "mine"))
    redrafted = opened(state.folder.path, dsl.replace("0.5 * xu", "xu * 0.5"))
    assert redrafted.step("init").status == "edited"
    assert any("earlier DSL draft" in n for n in redrafted.step("init").notes)


HOST = "host/gelu_tiling.cpp"


def ub_bytes(state: SessionState, step: str) -> str:
    line = next(ln for ln in state.step(step).bundle.files[HOST].splitlines() if "constexpr int64_t UB_BYTES" in ln)
    return line.split("=")[1].split(";")[0].strip()


def test_a_later_edit_of_an_earlier_step_reaches_an_edited_later_step(state):
    """Issue 40, item 1: edit compute, then change UB_BYTES in the host step. Compute's edit
    replaced its whole step, so the host change was silently undone from compute on (and Compile &
    verify said correct without it); now the edit is merged with what the step holds now."""
    generated = ub_bytes(state, "host")
    edits.edit(state, "compute", marked(state, "compute", "mine in compute"))
    host = state.step("host").bundle.files[HOST].replace(f"UB_BYTES = {generated};", "UB_BYTES = 65536;")
    edits.edit(state, "host", {HOST: host})
    for step in ("host", "init", "compute", "align"):
        assert ub_bytes(state, step) == "65536", step                 # the later edit is kept at every step
    assert "mine in compute" in kernel(state, "align")                # ... and so is the earlier one
    assert statuses(state)["compute"] == "edited" and not state.conflicts
    assert not any("is not in this edited step" in n for n in state.step("compute").notes)
    assert "UB_BYTES = 65536;" in (state.folder.path / "ascendc" / HOST).read_text()   # what ships has it


def test_a_later_edit_that_overlaps_an_edited_later_step_is_a_conflict_there(state):
    generated = ub_bytes(state, "host")
    compute_host = state.step("compute").bundle.files[HOST].replace(f"UB_BYTES = {generated};", "UB_BYTES = 100000;")
    edits.edit(state, "compute", {HOST: compute_host})
    host = state.step("host").bundle.files[HOST].replace(f"UB_BYTES = {generated};", "UB_BYTES = 65536;")
    edits.edit(state, "host", {HOST: host})
    assert statuses(state)["compute"] == "failed"
    (c,) = state.step("compute").conflicts
    assert any("100000" in line for line in c.ours) and any("65536" in line for line in c.theirs)
    assert not state.ready                                             # no verdict without resolving it
    with pytest.raises(SessionError, match="resolve the conflict"):
        edits.accept(state, "compute")


def test_an_edit_kept_without_its_base_replaces_its_step_and_says_a_later_edit_does_not_reach_it(state):
    """An edit kept by an older folder (no .base.json): it replaces its step, and the note says
    that a later edit of an earlier step is not in it (the edit is kept, not dropped)."""
    edits.edit(state, "compute", marked(state, "compute", "mine in compute"))
    (state.folder.edit_dir("compute") / ".base.json").unlink()
    edits.edit(state, "init", marked(state, "init", "mine in init"))
    notes = state.step("compute").notes
    assert any("your later edit of init is not in this edited step" in n for n in notes)
    assert "mine in compute" in kernel(state, "align")
    assert set(manifest(state)["notebook"]["edits"]) == {"init", "compute"}


def test_regenerate_drops_the_edit_and_says_the_rule_engine_gives_the_same_output(state):
    generated = kernel(state, "init")
    edits.edit(state, "init", marked(state, "init", "mine"))
    edits.regenerate(state, "init")
    assert statuses(state)["init"] == "pending" and kernel(state, "init") == generated
    assert any("deterministic" in n for n in state.notes)


def test_a_hand_edit_of_the_project_is_refused_then_adopted_as_an_edit_of_the_last_pass(state):
    shipped = state.folder.path / "ascendc" / KERNEL
    shipped.write_text(shipped.read_text() + "// by hand\n")
    with pytest.raises(SessionError, match="changed by hand since ascendcraft wrote it"):
        lower(state)
    assert shipped.read_text().endswith("// by hand\n")          # refused, and kept
    edits.adopt(state)
    assert statuses(state)["align"] == "edited"
    assert (state.folder.path / "stages" / "04-align.edit" / KERNEL).read_text().endswith("// by hand\n")
    assert any("adopted the hand edit of kernel/gelu_kernel.cpp" in n for n in state.notes)


def test_edit_notes_are_empty_for_a_step_that_is_not_edited(state):
    assert edit_store.edit_notes(state.step("init").step, {"init": {"dsl_hash": "other"}}, state.dsl) == []


def test_a_check_is_recorded_once_with_its_fields_in_the_records_order(state):
    files = state.folder.project_files()
    fields = {"timings": {"verify_s": 1.0}, "summary": "s", "correct": True, "message": "m", "backend": "emulator",
              "run": {"status": "ok"}, "seed": 0, "soc": state.soc, "detail": "", "max_abs_err": 0.0,
              "max_rel_err": float("nan")}
    result = record_check(state, fields, {"dim": 3}, files)
    records = list((state.folder.path / "runs").glob("*.json"))
    assert len(records) == 1 and str(records[0]) == result.path
    record = json.loads(records[0].read_text())
    assert list(record) == [k for k in RECORD_FIELDS if k in record] and "cases" not in record
    assert record["overrides"] == {"dim": 3} and record["project_hash"] == state.folder.project_hash(files)
    assert result.correct and result.max_rel_err is None and state.result is result
    assert state.timings["verify_s"] == 1.0
