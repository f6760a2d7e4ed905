"""`lower` never deletes a file it did not write, and never overwrites a hand edit without a word."""
from __future__ import annotations
import pytest

from session_helpers import KERNEL


def test_lower_refuses_a_folder_that_is_not_a_session_and_not_empty(inputs, tmp_path, cli):
    mine = tmp_path / "mykernels"
    (mine / "ascendc").mkdir(parents=True)
    (mine / "ascendc" / "precious.cpp").write_text("// mine\n")
    rc, out = cli("lower", inputs / "gelu.dsl.py", "--until", "host", "-o", mine)
    assert rc == 2 and "is not a session folder and is not empty (ascendc)" in out
    assert (mine / "ascendc" / "precious.cpp").read_text() == "// mine\n"
    assert sorted(p.name for p in mine.iterdir()) == ["ascendc"]


@pytest.mark.heavy
def test_lower_keeps_and_reports_files_it_did_not_write(session, inputs, cli):
    (session / "ascendc" / "kernel" / "notes.txt").write_text("mine\n")
    (session / "stages" / "02-init" / "mine.h").write_text("// mine\n")
    rc, out = cli("lower", inputs / "gelu.dsl.py", "-o", session)
    assert rc == 0
    assert "kept ascendc/kernel/notes.txt, stages/02-init/mine.h: not written by ascendcraft" in out, out
    assert (session / "ascendc" / "kernel" / "notes.txt").read_text() == "mine\n"
    assert (session / "stages" / "02-init" / "mine.h").read_text() == "// mine\n"


@pytest.mark.heavy
def test_lower_until_host_removes_only_the_project_files_it_wrote(session, inputs, cli):
    (session / "ascendc" / "mine.txt").write_text("mine\n")
    rc, out = cli("lower", inputs / "gelu.dsl.py", "--until", "host", "-o", session)
    assert rc == 0, out
    assert not (session / KERNEL).exists() and not (session / "stages" / "04-align").exists()
    assert (session / "ascendc" / "mine.txt").read_text() == "mine\n"


@pytest.mark.heavy
def test_lower_refuses_to_overwrite_a_hand_edit_of_a_stage_and_names_the_step(session, inputs, cli):
    stage = session / "stages" / "02-init" / "kernel" / "gelu_kernel.cpp"
    stage.write_text(stage.read_text().replace("TPipe pipe;", "TPipe pipe;  // mine"))
    rc, out = cli("lower", inputs / "gelu.dsl.py", "-o", session)
    assert rc == 2 and "stages/02-init/kernel/gelu_kernel.cpp was changed by hand" in out
    assert "pass 2 (init), kept in stages/02-init.edit/" in out
    assert "// mine" in stage.read_text()
    rc, out = cli("lower", inputs / "gelu.dsl.py", "-o", session, "--adopt-edits")
    assert rc == 0 and "// mine" in (session / KERNEL).read_text()     # merged on through compute and align
