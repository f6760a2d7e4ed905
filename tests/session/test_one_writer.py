"""A session folder has one writer at a time, switches all at once, and says clearly when its
manifest is damaged or the folder is read-only."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from session_helpers import Sandbox, ref_with, reference_running
from ascendcraft_lab.session import Session, SessionFolder
from ascendcraft_lab.session.folder import JOURNAL, TEMP_SUFFIX

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy


def snapshot(folder):
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and p.name != ".ascendcraft.lock"}


def test_two_lowers_of_different_kernels_into_one_folder_leave_one_whole_session(inputs, tmp_path):
    box = Sandbox(tmp_path)
    folder = tmp_path / "c"
    gelu, softmax = (box.start("lower", inputs / f"{k}.dsl.py", "-o", folder) for k in ("gelu", "softmax"))
    outs = [p.communicate(timeout=120)[0].decode() for p in (gelu, softmax)]
    assert sorted((gelu.returncode, softmax.returncode)) == [0, 2], outs
    loser = outs[1] if softmax.returncode else outs[0]
    assert "is the session of kernel" in loser
    manifest = json.loads((folder / "ascendcraft.json").read_text())
    winner = "gelu" if gelu.returncode == 0 else "softmax"
    assert manifest["kernel"] == winner and f"def {winner}(" in (folder / "kernel.dsl.py").read_text()
    assert all(p.startswith(("kernel.dsl.py", "stages/", "ascendc/")) for p in manifest["written"])
    assert all(f"{winner}_" in p for p in manifest["written"] if p.endswith(".cpp"))
    Session.resume(folder)                    # opens: draft, stages, project and manifest agree


def test_a_lowering_waits_for_the_lock_and_names_its_holder(session, inputs, tmp_path, cli, monkeypatch):
    holder = subprocess.Popen([sys.executable, "-c", (
        "import fcntl, os, sys, time\n"
        f"fd = os.open({str(session / '.ascendcraft.lock')!r}, os.O_RDWR)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\n"
        "os.ftruncate(fd, 0); os.write(fd, b'pid %d: ascendcraft lower x' % os.getpid())\n"
        "print('locked', flush=True); time.sleep(60)\n")], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        monkeypatch.setenv("ASCENDCRAFT_LOCK_TIMEOUT", "0.5")
        rc, out = cli("lower", inputs / "gelu.dsl.py", "-o", session)
        assert rc == 2 and f"is in use by pid {holder.pid} (ascendcraft lower x)" in out
        assert f"waiting for pid {holder.pid}" in out
    finally:
        holder.kill()
        holder.wait()


def test_ctrl_c_while_lowering_leaves_the_session_as_it_was(session, inputs, gelu_ref, tmp_path):
    (tmp_path / "slow.py").write_text(ref_with(gelu_ref, "import time\ntime.sleep(600)"))
    before = snapshot(session)
    box = Sandbox(tmp_path)
    reference_runs = lambda: reference_running(box.tag)   # noqa: E731
    child = box.run("lower", inputs / "gelu.dsl.py", "--ref", tmp_path / "slow.py", "-o", session,
                    signal_after=(120, signal.SIGINT), when=reference_runs)
    assert child.rc == 130 and "interrupted" in child.out
    assert snapshot(session) == before
    assert box.processes() == [] and box.temporaries() == []


def test_a_switch_cut_short_by_a_kill_is_finished_by_the_next_open(session):
    manifest = session / "ascendcraft.json"
    data = json.loads(manifest.read_text())
    data["lowered_at"] = "the new state"
    staged = session / f".ascendcraft.json{TEMP_SUFFIX}"
    staged.write_text(json.dumps(data))
    (session / JOURNAL).write_text(json.dumps({"renames": [[str(staged), str(manifest)]], "deletes": []}))
    with SessionFolder(session).lock():
        pass
    assert json.loads(manifest.read_text())["lowered_at"] == "the new state"
    assert not (session / JOURNAL).exists() and not staged.exists()


def test_relowering_without_ref_explains_the_tiling_the_code_uses(session, gelu_dsl, tmp_path, cli):
    (tmp_path / "g4.dsl.py").write_text(gelu_dsl.replace("live=3", "live=4"))
    rc, out = cli("lower", tmp_path / "g4.dsl.py", "-o", session)
    assert rc == 0 and "tile=5824" in out
    assert json.loads((session / "ascendcraft.json").read_text())["tiling"]["launch"]["tile"] == 5824


@pytest.mark.parametrize("text, says", [
    ("{not json", "manifest is not valid JSON"),
    ("[]", "`the manifest` should be a JSON object"),
    ('{"steps": 3}', "`steps` should be an object"),
    ('{"steps": {"host": {"status": "zzz"}}}', "`steps.host.status` should be one of"),
    ('{"schema": 99}', "written by a newer ascendcraft"),
    (b"\xff\xfe", "manifest is not UTF-8 text"),
])
def test_a_damaged_manifest_is_one_clear_message(session, cli, text, says):
    (session / "ascendcraft.json").write_bytes(text if isinstance(text, bytes) else text.encode())
    rc, out = cli("check", session)
    assert rc == 2 and says in out and "Traceback" not in out
    assert len([l for l in out.splitlines() if l.startswith("error:")]) == 1


def test_an_unknown_soc_in_the_manifest_is_named_as_the_manifests(session, cli):
    manifest = session / "ascendcraft.json"
    manifest.write_text(manifest.read_text().replace('"Ascend910B2"', '"Ascend999"'))
    rc, out = cli("check", session)
    assert rc == 2 and f"the session's manifest {manifest} names SoC 'Ascend999'" in out


def test_a_read_only_session_is_refused_before_any_work(checked):
    # The session must be reachable by the unprivileged user the check runs as.
    root = Path(tempfile.mkdtemp(prefix="ascendcraft-ro-"))
    root.chmod(0o755)
    session = root / "s"
    shutil.copytree(checked, session)
    try:
        _check_read_only(session)
    finally:
        for p in [session] + sorted(session.rglob("*")):
            p.chmod(p.stat().st_mode | 0o200)
        shutil.rmtree(root)


def _check_read_only(session):
    for p in sorted(session.rglob("*"), reverse=True) + [session]:
        p.chmod(p.stat().st_mode & ~0o222)
    before = snapshot(session)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:                       # as a user that cannot write there (root can write anywhere)
        os.close(read)
        os.dup2(write, 1)
        os.dup2(write, 2)
        sys.stdout = sys.stderr = os.fdopen(1, "w", closefd=False)
        code = 3
        try:
            if os.geteuid() == 0:
                os.setgid(65534)
                os.setuid(65534)
            from ascendcraft_lab.cli import main
            code = main(["check", str(session)])
        except BaseException:      # noqa: BLE001 - shown through the pipe
            import traceback
            traceback.print_exc()
        finally:
            sys.stdout.flush()
            os._exit(code)
    os.close(write)
    with os.fdopen(read) as fh:
        out = fh.read()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 2, out
    assert f"error: the session folder {session} is read-only" in out and "correct" not in out
    assert snapshot(session) == before
