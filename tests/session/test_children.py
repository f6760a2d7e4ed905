"""Child processes stop with their work: on a timeout, on SIGINT/SIGTERM, and when their parent dies;
temporary folders go on every path; a reference cannot wait on stdin or hold its answer back."""
from __future__ import annotations
import pytest

import json
import signal
import time
from pathlib import Path

from session_helpers import KERNEL, Sandbox, dead_scratch, ref_with, reference_running, tagged
from ascendcraft_lab.backends.emulator import runner
from ascendcraft_lab.reference import ReferenceError, load_reference


def spinning(session):
    """The session's kernel, edited by hand to spin forever in Process()."""
    kernel = session / KERNEL
    kernel.write_text(kernel.read_text().replace(
        "    __aicore__ inline void Process() {",
        "    __aicore__ inline void Process() {\n        for (volatile int spin = 0; spin == 0;) {}", 1))


@pytest.mark.heavy
def test_sigterm_to_check_stops_the_spinning_kernel_and_removes_its_scratch(session, tmp_path):
    spinning(session)
    box = Sandbox(tmp_path)
    others = set(dead_scratch())          # /dev/shm is shared: scratch of other runs that died before this one
    kernel_runs = lambda: any("spec.txt" in cmd for _, cmd in tagged(box.tag))   # noqa: E731
    child = box.run("check", session, "--adopt-edits", signal_after=(120, signal.SIGTERM), when=kernel_runs)
    assert child.rc == 143 and "stopped (SIGTERM)" in child.out
    assert box.processes() == [] and box.temporaries() == [] and set(dead_scratch()) <= others


@pytest.mark.heavy
def test_sigterm_in_the_reference_phase_leaves_no_temporary_folder(session, gelu_ref, tmp_path):
    (tmp_path / "slow.py").write_text(ref_with(gelu_ref, "import time\ntime.sleep(600)"))
    box = Sandbox(tmp_path)
    reference_runs = lambda: reference_running(box.tag)   # noqa: E731
    child = box.run("check", session, "--ref", tmp_path / "slow.py", signal_after=(120, signal.SIGTERM),
                    when=reference_runs)
    assert child.rc == 143
    assert box.processes() == [] and box.temporaries() == []


@pytest.mark.heavy
def test_a_references_own_processes_are_stopped_with_its_timeout(gelu_ref, tmp_path):
    (tmp_path / "spawn.py").write_text(ref_with(gelu_ref, "import subprocess, time\n"
                                                          "subprocess.Popen(['sleep', '600'])\ntime.sleep(600)"))
    box = Sandbox(tmp_path)
    child = box.run("draft", tmp_path / "spawn.py", "--timeout", "3")
    assert child.rc == 1 and "did not finish within 3 s" in child.out    # rc None: still running after 120 s
    assert box.processes() == [] and box.temporaries() == []


@pytest.mark.heavy
def test_a_reference_reading_stdin_fails_at_once(gelu_ref, tmp_path):
    (tmp_path / "ask.py").write_text(ref_with(gelu_ref, "input('size? ')"))
    try:
        load_reference(tmp_path / "ask.py", timeout=60)
    except ReferenceError as exc:
        assert "EOFError" in str(exc)
    else:
        raise AssertionError("input() returned")     # a wait on stdin would be a timeout error


@pytest.mark.heavy
def test_a_reference_with_a_running_thread_answers_when_its_work_is_done(gelu_ref, tmp_path):
    (tmp_path / "thread.py").write_text(ref_with(gelu_ref, "import threading, time\n"
                                                           "threading.Thread(target=time.sleep, args=(600,)).start()"))
    run = load_reference(tmp_path / "thread.py", timeout=60)    # waiting for the thread: a timeout error
    assert run.outputs[0].shape == (16, 16384)


@pytest.mark.heavy
def test_draft_takes_a_timeout_for_a_reference_that_loops_on_import(gelu_ref, tmp_path, cli):
    (tmp_path / "loop.py").write_text(ref_with(gelu_ref, "while True:\n    pass"))
    rc, out = cli("draft", tmp_path / "loop.py", "--timeout", "2")
    assert rc == 1 and "did not finish within 2 s" in out


SOURCE = """#include "kernel_operator.h"
extern "C" __global__ __aicore__ void twice(GM_ADDR x) { (void)x; }
"""


@pytest.mark.heavy
def test_the_compile_cache_is_keyed_by_content_not_by_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("ASCENDCRAFT_CACHE_DIR", str(tmp_path / "cache"))
    first, second = tmp_path / "a" / "k.cpp", tmp_path / "b" / "c" / "k.cpp"
    for src in (first, second):
        src.parent.mkdir(parents=True)
        src.write_text(SOURCE.replace("(void)x;", "(void)x; int unused;"))
    one = runner.compile_sources([first], entry="twice", n_args=1)
    two = runner.compile_sources([second], entry="twice", n_args=1)
    assert one.ok and two.ok and not one.cached and two.cached and one.key == two.key
    assert [d["file"] for d in two.diagnostics if d["severity"] == "warning"] == [str(second)]   # its own path
    assert len([d for d in (tmp_path / "cache").iterdir() if runner._is_kernel_entry(d)]) == 1   # one linked binary


def test_the_compile_cache_evicts_the_least_recently_used_entries(tmp_path):
    for age, name in enumerate(["old", "mid", "new"]):
        d = tmp_path / name
        d.mkdir()
        (d / "kernel").write_bytes(b"\0" * 1000)
        stamp = time.time() - 3600 * (3 - age)
        import os
        os.utime(d, (stamp, stamp))
    freed = runner.evict(tmp_path, 2500)
    assert freed == 1000 and sorted(p.name for p in tmp_path.iterdir()) == ["mid", "new"]


@pytest.mark.heavy
def test_rechecking_a_session_hits_the_compile_cache(session, cli):
    assert cli("check", session)[0] == 0
    last = sorted((session / "runs").glob("*.json"))[-1]
    assert json.loads(last.read_text())["run"]["timings"]["cached"] is True


def _importing_numpy(pid: int) -> bool:
    try:
        return "_multiarray_umath" in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


@pytest.mark.heavy
@pytest.mark.parametrize("sig, rc, says", [(signal.SIGINT, 130, "interrupted"),
                                           (signal.SIGTERM, 143, "stopped (SIGTERM)")], ids=["SIGINT", "SIGTERM"])
def test_a_signal_while_the_command_still_imports_is_one_line_and_its_exit_code(sig, rc, says, gelu_ref, tmp_path):
    (tmp_path / "gelu.py").write_text(gelu_ref)
    box = Sandbox(tmp_path)
    proc = box.start("draft", "gelu.py")
    for _ in range(600):                    # numpy is loading: the command's module is being imported
        if proc.poll() is not None or _importing_numpy(proc.pid):
            break
        time.sleep(0.01)
    proc.send_signal(sig)
    out = proc.communicate(timeout=120)[0].decode(errors="replace")
    assert proc.returncode == rc and "Traceback" not in out, out
    assert out.strip().splitlines() == [says]
    assert box.processes() == [] and box.temporaries() == []


ESCAPE = ("import subprocess\n"
          "subprocess.Popen(['sleep', '600'], start_new_session=True)      # leaves the process group\n")


@pytest.mark.heavy
@pytest.mark.parametrize("then", ["returns", "hangs"])
def test_what_a_reference_starts_in_a_new_session_dies_with_the_reference(then, gelu_ref, tmp_path):
    prelude = ESCAPE + ("import time\ntime.sleep(600)\n" if then == "hangs" else "")
    (tmp_path / "escape.py").write_text(ref_with(gelu_ref, prelude))
    box = Sandbox(tmp_path)
    child = box.run("draft", tmp_path / "escape.py", *(["--timeout", "8"] if then == "hangs" else []))
    assert child.rc == (0 if then == "returns" else 1), child.out
    assert box.processes() == [] and box.temporaries() == []     # no sleep, no torchinductor_<user>


@pytest.mark.heavy
def test_a_reference_that_kills_its_parent_is_one_line_and_leaves_no_scratch(gelu_ref, tmp_path):
    prelude = "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)"
    (tmp_path / "parricide.py").write_text(ref_with(gelu_ref, prelude))
    box = Sandbox(tmp_path)
    child = box.run("draft", tmp_path / "parricide.py")
    assert child.rc == 1 and "was killed (SIGKILL)" in child.out and "Traceback" not in child.out, child.out
    assert box.processes() == [] and box.temporaries() == []
