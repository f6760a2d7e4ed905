"""`python -m ascendcraft_lab.backends.emulator.cli` end to end."""
from __future__ import annotations
import pytest

import json
import subprocess
import sys

import numpy as np

from emulator_helpers import KERNELS

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

CLI = [sys.executable, "-m", "ascendcraft_lab.backends.emulator.cli"]


def test_cli_runs_a_kernel_and_writes_outputs_and_report(tmp_path):
    x = np.arange(1000, dtype=np.float32)
    y = np.ones(1000, dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    out = tmp_path / "out"
    r = subprocess.run(CLI + [str(KERNELS / "add_pad.cpp"), "--entry", "add_pad", "--block-dim", "4",
                              "--arg", f"in:{tmp_path / 'x.npy'}", "--arg", f"in:{tmp_path / 'y.npy'}",
                              "--arg", "out:float32:1000", "--arg", "tiling:uint32=250", "--out-dir", str(out)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "status: ok" in r.stdout
    np.testing.assert_array_equal(np.load(out / "arg2.npy"), x + y)
    report = json.loads((out / "report.json").read_text())
    assert report["status"] == "ok" and report["findings"] == []


def test_cli_exits_1_on_findings_and_prints_file_line(tmp_path):
    np.save(tmp_path / "x.npy", np.zeros(64, np.float32))
    r = subprocess.run(CLI + [str(KERNELS / "bug_uninit.cpp"), "--entry", "bug_uninit", "--block-dim", "1",
                              "--arg", f"in:{tmp_path / 'x.npy'}", "--arg", "out:float32:64",
                              "--out-dir", str(tmp_path / "o")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 1
    assert "bug_uninit.cpp:" in r.stdout and "uninitialised-ub-read" in r.stdout


def test_cli_usage_error_is_one_line_exit_2(tmp_path):
    r = subprocess.run(CLI + [str(KERNELS / "add_pad.cpp"), "--entry", "add_pad", "--block-dim", "4",
                              "--arg", "bogus:1", "--out-dir", str(tmp_path)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0 and "unknown kind 'bogus'" in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("key, expect", [(None, np.zeros_like), ("1", lambda x: x + 1), ("2", lambda x: x * 2)])
def test_cli_tiling_key_selects_the_tiling_key_is_branch(tmp_path, key, expect):
    x = np.arange(128, dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    out = tmp_path / "out"
    cmd = CLI + [str(KERNELS / "prod" / "keyed_branches.cpp"), "--entry", "keyed_affine", "--block-dim", "2",
                 "--arg", f"in:{tmp_path / 'x.npy'}", "--arg", "out:float32:128", "--arg", "ws:0",
                 "--arg", "tiling:uint32=64", "--out-dir", str(out)]
    r = subprocess.run(cmd + (["--tiling-key", key] if key else []), capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    np.testing.assert_array_equal(np.load(out / "arg1.npy"), expect(x))


def test_cli_tiling_key_out_of_range_is_a_usage_error(tmp_path):
    cmd = CLI + [str(KERNELS / "add_pad.cpp"), "--entry", "add_pad", "--block-dim", "1", "--tiling-key", "-1",
                 "--out-dir", str(tmp_path)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--tiling-key" in r.stderr
