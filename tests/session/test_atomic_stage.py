"""`atomic.stage`: the one write-beside-and-fsync, for callers that do the rename themselves (the folder's commit)."""
from __future__ import annotations

import os
import stat

from ascendcraft_lab.atomic import stage
from ascendcraft_lab.session.folder import TEMP_SUFFIX, SessionFolder


def test_a_staged_write_leaves_the_target_alone_until_the_rename(tmp_path):
    target = tmp_path / "kernel.cpp"
    target.write_text("old")
    target.chmod(0o640)
    tmp, to = stage(target, b"new", TEMP_SUFFIX)
    assert to == target and target.read_text() == "old"
    assert tmp.name == f".kernel.cpp{TEMP_SUFFIX}" and tmp.read_bytes() == b"new"
    assert stat.S_IMODE(tmp.stat().st_mode) == 0o640          # the rename keeps the target's mode
    os.replace(tmp, to)
    assert target.read_text() == "new"


def test_a_staged_write_through_a_symlink_lands_beside_its_target(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "a.txt").write_text("old")
    (tmp_path / "link.txt").symlink_to(tmp_path / "real" / "a.txt")
    tmp, to = stage(tmp_path / "link.txt", b"new")
    assert to == tmp_path / "real" / "a.txt" and tmp.parent == tmp_path / "real"
    assert not tmp.name.endswith(TEMP_SUFFIX)                  # without a suffix: a unique name
    tmp.unlink()


def test_a_temporary_of_a_commit_that_never_began_is_removed_by_the_next_lock(tmp_path):
    folder = SessionFolder(tmp_path / "s")
    (folder.path / "stages" / "01-host").mkdir(parents=True)
    tmp, _ = stage(folder.path / "stages" / "01-host" / "x.cpp", b"half", TEMP_SUFFIX)
    with folder.lock():
        pass
    assert not tmp.exists()
