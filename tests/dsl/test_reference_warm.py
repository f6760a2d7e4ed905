"""The warm reference parent (reference/zygote.py, warm.py): a reference child is a fork of a Python
that imported torch already, with what a cold child has (own process group, stdin closed, output
in files), and anything that goes wrong with the zygote falls back to a cold child."""
from __future__ import annotations

import os

import pytest

from ascendcraft_lab.reference import ReferenceError, load_reference
from ascendcraft_lab.reference import warm

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

REF = f'''
import os
CALLER_GROUP = {os.getpgrp()}
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x * 2.0 + float(os.getpgid(0) != CALLER_GROUP)   # 1.0: not in the caller's process group


def get_inputs():
    return [torch.ones(3)]


def get_init_inputs():
    return []
'''

CRASH = REF.replace("return x * 2.0", "os.kill(os.getpid(), 9)\n        return x")


def test_a_reference_runs_in_a_warm_fork_in_its_own_process_group(tmp_path):
    path = tmp_path / "ref.py"
    path.write_text(REF)
    load_reference(path)                           # starts the zygote (once per process)
    zygote = warm._ZYGOTE.proc
    assert zygote is not None and zygote.poll() is None
    ref = load_reference(path)
    assert ref.outputs[0].tolist() == [3.0, 3.0, 3.0]
    assert warm._ZYGOTE.proc is zygote           # the same zygote: no second torch import


def test_a_child_killed_by_a_signal_is_one_line_and_the_zygote_serves_the_next(tmp_path):
    (tmp_path / "crash.py").write_text(CRASH)
    (tmp_path / "ref.py").write_text(REF)
    with pytest.raises(ReferenceError) as e:
        load_reference(tmp_path / "crash.py")
    assert "\n" not in str(e.value) and "killed (SIGKILL), probably by the out-of-memory killer" in str(e.value)
    assert load_reference(tmp_path / "ref.py").outputs[0].tolist() == [3.0, 3.0, 3.0]


def test_a_dead_zygote_is_started_again_and_can_be_switched_off(tmp_path, monkeypatch):
    (tmp_path / "ref.py").write_text(REF)
    load_reference(tmp_path / "ref.py")
    old = warm._ZYGOTE.proc
    os.killpg(old.pid, 9)
    old.wait(10)
    assert load_reference(tmp_path / "ref.py").outputs[0].tolist() == [3.0, 3.0, 3.0]
    assert warm._ZYGOTE.proc is not old and warm._ZYGOTE.proc.poll() is None
    monkeypatch.setenv("ASCENDCRAFT_WARM_REFERENCE", "0")
    assert warm.run_child(tmp_path / "jobs.json", tmp_path, 10) is None          # the caller starts a cold child
    assert load_reference(tmp_path / "ref.py").outputs[0].tolist() == [3.0, 3.0, 3.0]
