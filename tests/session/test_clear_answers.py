"""Unclear answers, by class (issue 39): each says what happened, where (the argument, the path) and
what to do, in one line, before any work starts."""
from __future__ import annotations

import errno
import os
import signal
import warnings
from pathlib import Path

import numpy as np
import pytest

import ascendcraft_lab
from ascendcraft_lab import procs
from ascendcraft_lab.atomic import write_text
from ascendcraft_lab.backends.emulator.verify import check_emulator
from ascendcraft_lab.bench.metrics import check_output
from ascendcraft_lab.cli import main
from ascendcraft_lab.drafter.draft import DraftError, draft_from_trace, kernel_name
from ascendcraft_lab.dsl.ir import DType
from ascendcraft_lab.dsl.parser import parse, parse_file
from ascendcraft_lab.reference import ReferenceRun, check_interpreter
from ascendcraft_lab.reference.bind import compare
from ascendcraft_lab.session.draft import _draft_some_case

EXAMPLES_DIR = Path(ascendcraft_lab.__file__).parent / "examples"


def run(capsys, *argv) -> tuple[int, str]:
    capsys.readouterr()
    try:
        rc = main([str(a) for a in argv])
    except SystemExit as exc:          # argparse refuses with exit 2
        rc = exc.code
    captured = capsys.readouterr()
    return rc, captured.out + captured.err


# -------------------------------------------------------------- invalid numeric arguments
@pytest.mark.parametrize("argv, names", [
    (["check", "s", "--rtol", "-1"], "argument --rtol: must be a finite number of at least 0, not -1"),
    (["check", "s", "--atol", "nan"], "argument --atol: must be a finite number of at least 0, not nan"),
    (["check", "s", "--seed", "-1"], "argument --seed: must be a whole number from 0, not -1"),
    (["profile", "s", "--blocks", "-1"], "argument --blocks: must be a whole number from 0, not -1"),
    (["profile", "s", "--timeout", "0"], "argument --timeout: must be a positive number of seconds, not 0"),
    (["build", "s", "-j", "0"], "argument -j/--jobs: must be a whole number from 1, not 0"),
    (["check", "s", "--override", "=5"], "override '=5' names no constant: NAME=VALUE"),
], ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_an_invalid_number_is_refused_naming_its_argument(argv, names, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    rc, out = run(capsys, *argv)
    assert rc == 2 and names in out and "Traceback" not in out


# -------------------------------------------------------------- empty and zero sizes
def _empty_gelu_run(shape=(16, 0)):
    x = np.zeros(shape, np.float32)
    return ReferenceRun("gelu.py", [x], [], [x.copy()], input_dtypes=["float32"], output_dtypes=["float32"])


def test_a_zero_size_traced_input_is_the_users_input_not_a_drafter_error():
    traced = {"inputs": [{"kind": "tensor", "shape": [16, 0], "dtype": "float32"}], "nodes": []}
    with pytest.raises(DraftError) as e:
        draft_from_trace(traced, name="gelu", source="gelu.py")
    assert "input 1 has shape [16, 0]" in str(e.value) and "nothing to compute" in str(e.value)
    assert "drafter error" not in str(e.value) and "--override" in str(e.value)


def test_a_task_whose_cases_are_all_empty_says_there_is_no_shape_to_draft_from():
    with pytest.raises(DraftError) as e:
        _draft_some_case("relu.py", [_empty_gelu_run((0,)), _empty_gelu_run((4, 0))], None, 10)
    assert "every case has an empty tensor" in str(e.value) and "add a non-empty case" in str(e.value)


@pytest.mark.parametrize("shape", [(16, 0), (0, 16384)])
def test_an_empty_input_set_is_a_correct_no_op_on_the_emulator_and_the_interpreter(shape):
    program = parse_file(EXAMPLES_DIR / "activation" / "gelu.dsl.py")
    verdict, run = check_emulator(program, None, _empty_gelu_run(shape))
    assert verdict.correct and "nothing to compute, no launch" in verdict.message and run.status == "ok"
    verdict = check_interpreter(program, "gelu.py", reference=_empty_gelu_run(shape))
    assert verdict.correct and "nothing to compute, no launch" in verdict.message


# -------------------------------------------------------------- NaN and Inf in the reference's output
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf], ids=["nan", "inf", "-inf"])
def test_a_non_finite_reference_output_says_so_without_a_numpy_warning(bad):
    got, want = np.ones((512, 512), np.float32), np.full((512, 512), bad, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")           # numpy's RuntimeWarning would reach the user's terminal
        check = compare("y", got, want, DType.f32, None, None)
        bench = check_output("y", got, want)
    assert not check.correct and check.mismatches == check.nonfinite == 512 * 512
    assert check.max_rel_err == float("inf")            # not "max rel err 0" beside 262144 mismatches
    assert "not finite (NaN or Inf) at 262144" in check.worst
    assert not bench.correct and bench.max_rel_err == float("inf") and "not finite (NaN or Inf)" in bench.reason


# -------------------------------------------------------------- the wrong kind of path
def test_check_of_a_path_that_does_not_exist_says_so(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    rc, out = run(capsys, "check", "nosuchdir")
    assert rc == 2 and "nosuchdir does not exist" in out and "--ref" not in out


def test_a_folder_given_as_the_reference_is_called_a_directory(gelu_dsl, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "adir").mkdir()
    (tmp_path / "gelu.dsl.py").write_text(gelu_dsl)
    for argv in (["lower", "gelu.dsl.py", "--ref", "adir", "-o", "x"], ["draft", "adir"],
                 ["check", "gelu.dsl.py", "--ref", "adir"]):
        rc, out = run(capsys, *argv)
        assert rc in (1, 2) and "adir is a directory, not a file" in out, (argv, out)
        assert "does not exist" not in out


def test_doctor_help_prints_help_and_refuses_arguments_it_does_not_take(capsys):
    rc, out = run(capsys, "doctor", "--help")
    assert rc == 0 and "usage: ascendcraft doctor" in out and "offline pipeline" not in out
    rc, out = run(capsys, "doctor", "--json", "x")
    assert rc == 2 and "unrecognized arguments: --json x" in out


def test_bench_refuses_a_session_folder_as_its_output_folder(gelu_ref, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "suite" / "activation").mkdir(parents=True)
    (tmp_path / "suite" / "activation" / "gelu.py").write_text(gelu_ref)
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "ascendcraft.json").write_text("{}")
    rc, out = run(capsys, "bench", "suite", "-o", "s")
    assert rc == 2 and "-o s is a session folder" in out and not (tmp_path / "s" / "results.json").exists()


@pytest.mark.heavy
def test_export_does_not_overwrite_a_users_file_without_force(session, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.py").write_text("# my notes\n")
    rc, out = run(capsys, "export", session, "-o", "notes.py")
    assert rc == 2 and "notes.py exists and is not a submission ascendcraft exported" in out and "--force" in out
    assert (tmp_path / "notes.py").read_text() == "# my notes\n"
    assert run(capsys, "export", session, "-o", "sub.py")[0] == 0
    assert run(capsys, "export", session, "-o", "sub.py")[0] == 0           # our own export: replaced
    assert run(capsys, "export", session, "-o", "notes.py", "--force")[0] == 0
    assert "ModelNew" in (tmp_path / "notes.py").read_text()


# -------------------------------------------------------------- a full disk
def test_a_full_disk_names_the_file_that_could_not_be_written(tmp_path, monkeypatch, capsys):
    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    (tmp_path / "old.txt").write_text("kept")
    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError) as e:
        write_text(tmp_path / "old.txt", "new")
    assert e.value.errno == errno.ENOSPC and e.value.filename == str(tmp_path / "old.txt")
    assert (tmp_path / "old.txt").read_text() == "kept" and [p.name for p in tmp_path.iterdir()] == ["old.txt"]


def _disk_full_after(monkeypatch, writes: int) -> None:
    """Every fsync after the first `writes` fails as on a full disk (ENOSPC)."""
    left = [writes]
    real = os.fsync

    def fsync(fd):
        left[0] -= 1
        if left[0] < 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd)
    monkeypatch.setattr(os, "fsync", fsync)


def _tree(folder: Path) -> dict[str, bytes | None]:
    return {p.relative_to(folder).as_posix(): (p.read_bytes() if p.is_file() else None)
            for p in sorted(folder.rglob("*")) if p.name != ".ascendcraft.lock"}


@pytest.mark.parametrize("writes", [0, 3, 20])
def test_a_new_session_on_a_full_disk_leaves_no_folder_and_says_the_disk_is_full(writes, gelu_dsl, tmp_path,
                                                                                  monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "gelu.dsl.py").write_text(gelu_dsl)
    _disk_full_after(monkeypatch, writes)
    rc, out = run(capsys, "lower", "gelu.dsl.py", "-o", "s")
    assert rc == 2 and "error: the disk is full: cannot write s/" in out and "df -h s" in out, out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gelu.dsl.py"]      # no empty stages/ skeleton


def test_a_relowering_on_a_full_disk_changes_nothing_in_the_session(gelu_dsl, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "gelu.dsl.py").write_text(gelu_dsl)
    (tmp_path / "g4.dsl.py").write_text(gelu_dsl.replace("live=3", "live=4"))
    assert run(capsys, "lower", "gelu.dsl.py", "-o", "s")[0] == 0
    before = _tree(tmp_path / "s")
    _disk_full_after(monkeypatch, 5)
    rc, out = run(capsys, "lower", "g4.dsl.py", "-o", "s")
    assert rc == 2 and "the disk is full" in out and "the session folder s is as it was" in out, out
    assert _tree(tmp_path / "s") == before


@pytest.mark.heavy
def test_a_check_on_a_full_disk_shows_its_verdict_and_says_it_is_not_recorded(session, monkeypatch, capsys):
    runs = sorted((session / "runs").iterdir())
    _disk_full_after(monkeypatch, 0)
    rc, out = run(capsys, "check", session)
    assert rc == 0 and "correct: `gelu` matches the reference" in out, out
    assert "this verdict is not recorded in" in out and "the disk is full" in out
    assert sorted((session / "runs").iterdir()) == runs


# -------------------------------------------------------------- a reference the OOM killer stopped
def test_a_sigkilled_reference_is_said_to_have_probably_run_out_of_memory_and_how_much_there_was():
    said = procs.killed_by(-signal.SIGKILL)
    assert "killed (SIGKILL), probably by the out-of-memory killer" in said
    assert procs.memory_limit() is None or " GiB, " in said          # how much it had, where Linux says
    assert procs.killed_by(-signal.SIGSEGV) == "was killed by SIGSEGV"


# -------------------------------------------------------------- names
def test_export_of_a_kernel_named_as_the_drafter_names_numbered_tasks_suggests_an_op_name(gelu_dsl, tmp_path,
                                                                                          monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.dsl.py").write_text(gelu_dsl.replace("def gelu(", "def k_1_Relu("))
    rc, out = run(capsys, "export", "k.dsl.py", "-o", "k.mkb.py")
    assert rc == 2 and "must be lower_snake_case" in out and "pass --op" in out and "--op k1_relu" in out


@pytest.mark.heavy
def test_profile_of_a_session_no_check_has_passed_says_the_estimate_is_of_an_unverified_kernel(
        session, inputs, tmp_path, capsys):
    assert run(capsys, "lower", inputs / "gelu.dsl.py", "--ref", inputs / "gelu.py", "-o", tmp_path / "new")[0] == 0
    rc, out = run(capsys, "profile", tmp_path / "new")
    assert rc == 0 and "estimate of an unverified kernel" in out
    rc, out = run(capsys, "profile", session)                       # checked: no such note
    assert rc == 0 and "unverified" not in out


@pytest.mark.heavy
def test_profile_of_a_read_only_session_estimates_a_copy_and_writes_nothing(session, monkeypatch, capsys):
    real = os.access
    # root writes anywhere: the folder is made read-only by what os.access says of it (as for another user)
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if (mode & os.W_OK and Path(p).resolve()
                                                                       .is_relative_to(session.resolve()))
                        else real(p, mode, **kw))
    before = _tree(session)
    rc, out = run(capsys, "profile", session)
    assert rc == 0 and "ESTIMATED profile of gelu" in out and "is read-only: estimated in a temporary copy" in out
    assert "unverified" not in out                       # the folder's own passing check still counts
    assert _tree(session) == before
    rc, out = run(capsys, "check", session)             # a check records its verdict: refused, in one message
    assert rc == 2 and "is read-only" in out and "Traceback" not in out


@pytest.mark.parametrize("file, name", [("géluß.py", "gelu"), ("Café-au-lait v2.py", "Cafe_au_lait_v2"),
                                        ("日本.py", "kernel"), ("1_Relu.py", "k_1_Relu"), ("a__b.py", "a_b"),
                                        ("x" * 300 + ".py", "x" * 48)])
def test_a_kernel_name_from_a_file_name_is_one_cpp_can_carry(file, name, gelu_dsl):
    assert kernel_name(file) == name
    assert parse(gelu_dsl.replace("def gelu(", f"def {name}(")).kernel.name == name   # the parser's rule takes it


@pytest.mark.heavy
def test_draft_of_a_reference_with_non_ascii_letters_in_its_name_drafts_and_takes_another_name(
        gelu_ref, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "géluß.py").write_text(gelu_ref)
    rc, out = run(capsys, "draft", "géluß.py", "-o", "./")
    assert rc == 0 and "def gelu(" in (tmp_path / "gelu.dsl.py").read_text(), out
    rc, out = run(capsys, "draft", "géluß.py", "--name", "gelu_v2", "-o", "./")
    assert rc == 0 and "def gelu_v2(" in (tmp_path / "gelu_v2.dsl.py").read_text(), out
    rc, out = run(capsys, "draft", "géluß.py", "--name", "géluß")
    assert rc == 2 and "--name 'géluß' is not a C++ name" in out
    rc, out = run(capsys, "draft", "géluß.py", "--name", "main")
    assert rc == 2 and "kernel name" in out and "Traceback" not in out


@pytest.mark.parametrize("text, limit", [("4G", 4 << 30), ("512M", 512 << 20), ("3000000000", 3_000_000_000)])
def test_the_memory_an_emulated_kernel_may_map_can_be_set(text, limit, monkeypatch):
    monkeypatch.setenv(procs.MEMORY_ENV, text)
    assert procs.child_memory() == (limit, f"{procs.MEMORY_ENV}={text}")


def test_without_a_setting_an_emulated_kernel_may_map_what_the_cgroup_or_the_machine_has(monkeypatch):
    monkeypatch.delenv(procs.MEMORY_ENV, raising=False)
    assert procs.child_memory() == procs.memory_limit()
    monkeypatch.setenv(procs.MEMORY_ENV, "lots")                  # not a size: the default, not a crash
    assert procs.child_memory() == procs.memory_limit()
