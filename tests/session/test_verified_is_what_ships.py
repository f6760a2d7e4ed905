"""What `check` verifies is what `export` ships and CANN builds: the files of `ascendc/` themselves.

A hand edit of `ascendc/` is not silently verified from the steps nor silently overwritten: it
is refused with where edits belong, or adopted as an edit of pass 4 and then verified as such.
"""
from __future__ import annotations

import json

import pytest

from session_helpers import KERNEL
from ascendcraft_lab.session import Session, SessionError, SessionFolder
from ascendcraft_lab.session.folder import files_hash

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy


def hand_edit(session):
    kernel = session / KERNEL
    kernel.write_text(kernel.read_text().replace("0.5f", "0.6f", 1))
    return kernel


def runs(session):
    return [json.loads(p.read_text()) for p in sorted((session / "runs").glob("*.json"))]


def test_check_refuses_a_hand_edited_project_and_says_where_edits_belong(session, cli):
    kernel = hand_edit(session)
    rc, out = cli("check", session)
    assert rc == 2
    assert f"{KERNEL} was changed by hand" in out
    assert "--adopt-edits" in out and "stages/04-align.edit/" in out
    assert "0.6f" in kernel.read_text()            # the edit is neither verified nor overwritten


def test_export_refuses_a_project_no_check_has_passed(session, cli, tmp_path):
    hand_edit(session)
    rc, out = cli("export", session, "-o", tmp_path / "sub.py")
    assert rc == 2 and "no check has passed" in out and f"ascendcraft check {session}" in out
    assert not (tmp_path / "sub.py").exists()


def test_an_adopted_hand_edit_is_what_check_verifies_and_records(session, cli):
    hand_edit(session)
    rc, out = cli("check", session, "--adopt-edits")
    assert rc == 1 and "incorrect" in out           # 0.6 * x * (1 + tanh(...)) is not GELU
    assert "adopted the hand edit of kernel/gelu_kernel.cpp as an edit of pass 4 (align)" in out
    assert "0.6f" in (session / "stages" / "04-align.edit" / "kernel" / "gelu_kernel.cpp").read_text()
    record = runs(session)[-1]
    assert record["project_hash"] == SessionFolder(session).project_hash()
    rc, out = cli("export", session)
    assert rc == 2 and "found it incorrect" in out


def test_a_checked_project_ships_with_the_hash_its_check_recorded(session, cli, tmp_path):
    project = SessionFolder(session).project_files()
    assert runs(session)[-1]["project_hash"] == files_hash(project) and runs(session)[-1]["correct"]
    rc, out = cli("export", session, "-o", tmp_path / "sub.py")
    assert rc == 0, out
    assert "class KernelGelu" in (tmp_path / "sub.py").read_text()


def test_a_deleted_project_file_is_restored_and_checked(session, cli):
    (session / KERNEL).unlink()
    rc, out = cli("check", session)
    assert rc == 0 and "correct" in out
    assert f"restored {KERNEL}" in out and (session / KERNEL).is_file()


def test_in_a_notebook_compile_and_verify_refuses_a_hand_edit_made_after_opening(session):
    lab = Session.resume(session)
    hand_edit(session)
    with pytest.raises(SessionError, match="changed by hand") as info:
        lab.compile_and_verify()
    assert "lab.adopt_edits()" in str(info.value)
    lab.adopt_edits()
    assert lab.step("align").status == "edited" and "0.6f" in lab.final["kernel/gelu_kernel.cpp"]
