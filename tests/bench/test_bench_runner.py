"""`ascendcraft bench` end to end on a tiny suite: one op that works, one whose process dies.

The dying op's reference kills the worker process that runs it (as a segfaulting kernel or
an out-of-memory kill would): the run goes on, the other op passes on both shapes, and the
dead op is one failed result with its log kept.
"""
from __future__ import annotations
import pytest

import json

from ascendcraft_lab.bench.cli import main as bench_main

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

# A forward that kills the bench worker above it (the reference runs in a supervised child of a child:
# the worker is the nearest ancestor running ascendcraft_lab.bench.worker).
KILL_WORKER = """pid = os.getppid()
        while b"ascendcraft_lab.bench.worker" not in open("/proc/%d/cmdline" % pid, "rb").read():
            pid = int(open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()[1])
        os.kill(pid, signal.SIGKILL)"""

REF = '''import os, signal
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        {body}


batch_size = 3
dim = 1000
TAIL = {{"dim": 1003}}


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
'''


def test_bench_survives_a_crashing_op_and_reports_both(tmp_path, capsys):
    suite = tmp_path / "suite" / "activation"
    suite.mkdir(parents=True)
    (suite / "relu.py").write_text(REF.format(body="return torch.relu(x)"))
    # forward kills the bench worker above it outright
    (suite / "crash.py").write_text(REF.format(body=KILL_WORKER + "\n        return x"))
    out = tmp_path / "out"
    rc = bench_main([str(tmp_path / "suite"), "-o", str(out), "--seeds", "2", "--jobs", "2", "--no-timing"])
    assert rc == 0
    doc = json.loads((out / "results.json").read_text())
    by_op = {r["op"]: r for r in doc["results"]}
    assert by_op["relu"]["shapes"]["reference"]["correct"] and by_op["relu"]["shapes"]["tail"]["correct"]
    crash = by_op["crash"]["shapes"]["reference"]
    assert not crash["correct"] and crash["stage"] == "crash"
    assert (out / by_op["crash"]["log"]).is_file()
    assert doc["summary"]["overall"]["reference"]["pass@1"] == 0.5
    html = (out / "report.html").read_text()
    assert "<svg" in html and "NOT an NPU speed" in html
    md = (out / "report.md").read_text()
    assert "| activation | relu |" in md and "correct" in md
    assert "activation/crash (reference): crash:" in md
    assert "activation" in capsys.readouterr().out


def test_bench_reports_the_estimated_time_bound_pipe_and_speedup_per_op_under_its_assumptions(tmp_path):
    suite = tmp_path / "suite" / "activation"
    suite.mkdir(parents=True)
    (suite / "relu.py").write_text(REF.format(body="return torch.relu(x)"))
    out = tmp_path / "out"
    assert bench_main([str(tmp_path / "suite"), "-o", str(out), "--seeds", "1", "--no-timing"]) == 0
    doc = json.loads((out / "results.json").read_text())
    (relu,) = doc["results"]
    for shape in ("reference", "tail"):
        est = relu["shapes"][shape]["estimate"]
        assert est["estimate"] and est["bound_pipe"] in ("MTE2", "V", "MTE3", "S")
        assert est["speedup"] == est["eager_s"] / est["kernel_s"]
    md = (out / "report.md").read_text()
    head, per_op = md.split("## Per op")
    assert "ESTIMATES" in head and "GM bandwidth" in head and "guesses" in head
    row = next(line for line in per_op.splitlines() if line.startswith("| activation | relu |"))
    assert f"| {relu['shapes']['tail']['estimate']['bound_pipe']} |" in row and " us |" in row
    assert (out / "report.html").read_text().count("ESTIMATED on the NPU") == 2   # one per shape


def test_bench_gives_each_kernel_its_roofline_fraction_and_says_how_fast_1_moves_with_each_guess(tmp_path, capsys):
    suite = tmp_path / "suite" / "activation"
    suite.mkdir(parents=True)
    (suite / "relu.py").write_text(REF.format(body="return torch.relu(x)"))
    out = tmp_path / "out"
    assert bench_main([str(tmp_path / "suite"), "-o", str(out), "--seeds", "1", "--no-timing"]) == 0
    doc = json.loads((out / "results.json").read_text())
    est = doc["results"][0]["shapes"]["reference"]["estimate"]
    assert 0 < est["roofline_fraction"] <= 1 and est["roofline_bound"] in ("memory", "vector", "cube")
    launch = est["sensitivity"]["launch_s"]           # the launch is fitted to few points: doubling it adds one
    assert launch["2"][0] > est["kernel_s"] and launch["0.5"][0] < est["kernel_s"]
    assert doc["summary"]["overall"]["reference"]["roofline_median"] == est["roofline_fraction"]
    md = (out / "report.md").read_text()
    assert "**Sensitivity (reference shape; ESTIMATES):**" in md
    assert "- `launch_s` (1.5e-06 s, fitted): x0.5: Fast_1 " in md and "- `issue_cycles` (10 cycles, guess): " in md
    row = next(line for line in md.split("## Per op")[1].splitlines() if line.startswith("| activation | relu |"))
    assert f"{100 * est['roofline_fraction']:.1f}% ({est['roofline_bound']})" in row
    assert "ESTIMATED on the NPU (pipe model, see report.md): reference Fast_1 " in capsys.readouterr().out
    assert doc["meta"]["costs"]["launch_s"] == {"value": 1.5e-6, "unit": "s", "kind": "fitted"}   # as the run saw it
    assert "<h2>Sensitivity of the estimate</h2>" in (out / "report.html").read_text()
