"""Bad input gets one clear message, early: `-o` of every kind, non-UTF-8 files, deleted drafts,
huge outputs; and files are written with the user's umask, through symlinks."""
from __future__ import annotations

import os
import stat
import tracemalloc

import numpy as np
import pytest

from session_helpers import KERNEL
from ascendcraft_lab.atomic import write_text
from ascendcraft_lab.bench.metrics import check_output
from ascendcraft_lab.dsl.ir import DType
from ascendcraft_lab.reference import ReferenceError, load_reference
from ascendcraft_lab.reference.bind import compare


@pytest.mark.heavy
def test_export_into_an_existing_folder_writes_inside_it(session, tmp_path, cli):
    (tmp_path / "subs").mkdir()
    assert cli("export", session, "-o", tmp_path / "subs")[0] == 0
    assert (tmp_path / "subs" / "gelu.mkb.py").is_file()


@pytest.mark.heavy
def test_export_into_a_new_folder_named_with_a_slash_writes_inside_it(session, tmp_path, cli):
    assert cli("export", session, "-o", f"{tmp_path / 'new'}/")[0] == 0
    assert (tmp_path / "new" / "gelu.mkb.py").is_file()


@pytest.mark.heavy
def test_draft_into_an_existing_folder_writes_inside_it(inputs, tmp_path, cli):
    (tmp_path / "drafts").mkdir()
    rc, out = cli("draft", inputs / "gelu.py", "-o", tmp_path / "drafts")
    assert rc == 0 and (tmp_path / "drafts" / "gelu.dsl.py").read_text().startswith('"""')


def test_lower_into_a_file_is_refused_in_one_line(inputs, tmp_path, cli):
    (tmp_path / "afile").write_text("x")
    rc, out = cli("lower", inputs / "gelu.dsl.py", "-o", tmp_path / "afile")
    assert rc == 2 and out.startswith(f"error: {tmp_path / 'afile'} is a file")
    assert (tmp_path / "afile").read_text() == "x"


def test_emulate_refuses_an_out_dir_that_is_a_file_and_a_zero_timeout(tmp_path, cli):
    src = tmp_path / "k.cpp"
    src.write_text('#include "kernel_operator.h"\nextern "C" __global__ __aicore__ void k(GM_ADDR x) { (void)x; }\n')
    (tmp_path / "afile").write_text("x")
    rc, out = cli("emulate", src, "--entry", "k", "--block-dim", "1", "--arg", "ws:32", "--out-dir", tmp_path / "afile")
    assert rc == 2 and "is a file" in out
    rc, out = cli("emulate", src, "--entry", "k", "--block-dim", "1", "--out-dir", tmp_path / "o", "--timeout", "0")
    assert rc == 2 and "--timeout must be a positive number" in out


def latin1(text: str) -> bytes:
    return ("# caf\u00e9\n" + text).encode("latin-1")


def test_a_dsl_file_that_is_not_utf8_is_named_with_the_byte_offset(gelu_dsl, tmp_path, cli):
    (tmp_path / "k.dsl.py").write_bytes(latin1(gelu_dsl))
    rc, out = cli("lower", tmp_path / "k.dsl.py", "-o", tmp_path / "s")
    assert rc == 2 and f"DSL file {tmp_path / 'k.dsl.py'} is not UTF-8 text: byte 0xe9 at offset 5 (line 1)" in out
    assert not (tmp_path / "s").exists()


@pytest.mark.heavy
def test_a_reference_that_is_not_utf8_is_named_with_the_byte_offset(gelu_ref, tmp_path):
    (tmp_path / "ref.py").write_bytes(latin1(gelu_ref))
    with pytest.raises(ReferenceError, match=r"failed to read \(line 1\): it is not UTF-8 text: byte 0xe9 at offset 5"):
        load_reference(tmp_path / "ref.py")


@pytest.mark.heavy
def test_a_session_whose_draft_was_deleted_says_so(session, cli):
    (session / "kernel.dsl.py").unlink()
    rc, out = cli("check", session)
    assert rc == 2 and "holds no DSL draft yet (no kernel.dsl.py)" in out
    rc, out = cli("export", session)
    assert rc == 2 and "kernel.dsl.py" in out and "Traceback" not in out


def test_a_kernel_name_cpp_cannot_carry_is_refused_before_a_folder_exists(gelu_dsl, tmp_path, cli):
    (tmp_path / "k.dsl.py").write_text(gelu_dsl.replace("def gelu(", "def " + "g" * 300 + "("))
    rc, out = cli("lower", tmp_path / "k.dsl.py", "-o", tmp_path / "s")
    assert rc == 2 and "kernel name is 300 characters; the limit is 64" in out
    assert not (tmp_path / "s").exists()


@pytest.mark.heavy
def test_eight_million_outputs_are_compared_without_float64_copies_of_them():
    rng = np.random.default_rng(0)
    want = rng.standard_normal((512, 16384)).astype(np.float32)
    got = want.copy()
    got[3, 5] += 1
    tracemalloc.start()
    try:
        check = compare("y", got, want, DType.f32, None, None)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        bench = check_output("y", got, want)
        bench_peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert check.mismatches == 1 and check.worst.startswith("at (3, 5)")
    assert not bench.correct and bench.mismatches == 1
    assert peak < 128 << 20 and bench_peak < 128 << 20          # a float64 copy of one output is 64 MiB


def test_files_get_the_users_umask_keep_their_mode_and_write_through_symlinks(tmp_path):
    old = os.umask(0o022)
    try:
        write_text(tmp_path / "new.txt", "x")
        assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o644
        (tmp_path / "shared.txt").write_text("x")
        (tmp_path / "shared.txt").chmod(0o664)
        write_text(tmp_path / "shared.txt", "y")
        assert stat.S_IMODE((tmp_path / "shared.txt").stat().st_mode) == 0o664
        (tmp_path / "link.txt").symlink_to("shared.txt")
        write_text(tmp_path / "link.txt", "z")
        assert (tmp_path / "link.txt").is_symlink() and (tmp_path / "shared.txt").read_text() == "z"
    finally:
        os.umask(old)


def test_a_lowering_writes_session_files_with_the_users_umask(inputs, tmp_path, cli):
    old = os.umask(0o022)
    try:
        assert cli("lower", inputs / "gelu.dsl.py", "-o", tmp_path / "s")[0] == 0
    finally:
        os.umask(old)
    for rel in ("ascendcraft.json", "kernel.dsl.py", KERNEL):
        assert stat.S_IMODE((tmp_path / "s" / rel).stat().st_mode) == 0o644, rel


def test_doctor_reports_an_invalid_config_file_as_invalid(tmp_path, monkeypatch, capsys):
    from ascendcraft_lab.cli import doctor
    (tmp_path / "config.toml").write_text("base_url = 3\n")
    monkeypatch.setenv("ASCENDCRAFT_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    check = doctor._llm()
    assert not check.ok and check.detail.startswith("invalid configuration:")
    assert "'base_url' has the wrong type" in check.detail
