"""`ascendcraft demo` (`make demo`): a PyTorch reference in, verified AscendC out (issue 40, item 9).

The default drafts softmax from its reference with the offline drafter, lowers, verifies on the
emulator and profiles (ESTIMATED); `--dsl` starts from the example's hand-written draft.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ascendcraft_lab.examples import EXAMPLES

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.heavy     # drafts in a child process and compiles the AscendC with g++


def _demo(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ascendcraft_lab", "demo", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=600)


def test_demo_drafts_from_the_reference_verifies_and_profiles(tmp_path):
    folder = tmp_path / "softmax"
    out = _demo("-o", str(folder))
    assert out.returncode == 0, out.stdout + out.stderr
    text = out.stdout
    steps = ["== 1. the DSL draft, drafted from the PyTorch reference", "== 2. four lowering passes",
             "== 3. the AscendC on the CPU emulator", "== 4. profile"]
    assert [text.index(s) for s in steps] == sorted(text.index(s) for s in steps)
    assert "template `rows`" in text
    assert "not part of this demo" not in text
    # the session holds the drafter's draft, not the hand-written example
    hand_written = next(e for e in EXAMPLES if e.name == "activation/softmax").dsl.read_text()
    kept = (folder / "kernel.dsl.py").read_text()
    assert "Drafted from softmax.py" in kept and kept != hand_written
    for p in ("host", "init", "compute", "align"):
        assert f"pass {('host', 'init', 'compute', 'align').index(p) + 1} {p}" in text
    assert text.count("matches the reference on the emulator") == 2          # reference shape and tail shape
    assert "ESTIMATED profile of softmax on Ascend910B2" in text and "bound by" in text and "try next" in text
    assert "verified: activation/softmax" in text
    assert (folder / "ascendc").is_dir()


def test_demo_dsl_starts_from_the_hand_written_draft(tmp_path):
    folder = tmp_path / "gelu"
    out = _demo("activation/gelu", "--dsl", "-o", str(folder))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "== 1. the hand-written DSL draft gelu.dsl.py" in out.stdout
    assert "drafted from the PyTorch reference" not in out.stdout
    hand_written = next(e for e in EXAMPLES if e.name == "activation/gelu").dsl.read_text()
    assert (folder / "kernel.dsl.py").read_text() == hand_written
    assert "verified: activation/gelu" in out.stdout
