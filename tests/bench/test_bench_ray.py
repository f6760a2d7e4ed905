"""`ascendcraft bench --executor ray` on a real Ray cluster on loopback (`ray_cluster.py`): a head and
worker nodes, each its own `ray start`. Where the machine allows a mount namespace, the worker nodes
cannot read the driver's package folder nor the suites and outputs of these tests (empty tmpfs
there), so what the tasks need can only have come through Ray; either way each op's result names
the package copy its worker imported, which must be the one Ray shipped.

The same ops give the same verdicts, drafts, projects and report as the local pool; a task whose
node is killed runs once more, lost again it is reported as lost, Ctrl-C stops the node's
workers, and `--resume` finishes the run. No Ray process outlives the module.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from ascendcraft_lab.bench.cli import main as bench_main
from ascendcraft_lab.bench.ray_executor import package_root
from ray_cluster import LocalCluster, _marked, can_hide

pytestmark = pytest.mark.heavy

ROOT = package_root()
SUITE = ROOT / "ascendcraft_lab" / "suite"
NPUKB = ROOT / "ascendcraft_lab" / "suite_npukb" / "npukernelbench_level1"
RUN_TIMEOUT_S = 1200            # a hang, not a slow machine, reaches it
# A forward that kills the bench worker above it (the reference runs in a supervised child of a child:
# the worker is the nearest ancestor running ascendcraft_lab.bench.worker).
KILL_WORKER = """pid = os.getppid()
        while b"ascendcraft_lab.bench.worker" not in open("/proc/%d/cmdline" % pid, "rb").read():
            pid = int(open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()[1])
        os.kill(pid, signal.SIGKILL)"""

SMALL = '''import os, signal, time
import torch
import torch.nn as nn

MARKS = {marks!r}


class Model(nn.Module):
    def forward(self, x):
        {body}
        return torch.relu(x)


batch_size = 4
dim = 1000


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
'''
# forward waits (as a long op would) the first time each mark is missing, after making it
SLOW = """for mark in MARKS:
            if not os.path.exists(mark):
                open(mark, "w").close()
                time.sleep(900)
                break"""


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return tmp_path_factory.mktemp("ray-bench")


@pytest.fixture(scope="module")
def cluster(base):
    with LocalCluster() as c:
        c.hidden = [ROOT / "ascendcraft_lab", base] if can_hide() else []
        yield c
    assert c.leftovers() == []


def worker(cluster):
    """A live worker node (2 CPUs) that cannot read the driver's files."""
    alive = [n for n in cluster.nodes if n is not cluster.head and n.alive()]
    return alive[0] if alive else cluster.add_worker(2, hidden=cluster.hidden)


def start(*argv, log: Path) -> subprocess.Popen:
    """`ascendcraft ...` as a user types it, importing this checkout's package."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with open(log, "w") as fh:
        return subprocess.Popen([sys.executable, "-m", "ascendcraft_lab", *map(str, argv)], stdin=subprocess.DEVNULL,
                                stdout=fh, stderr=subprocess.STDOUT, env=env, cwd=log.parent, start_new_session=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def finish(proc: subprocess.Popen, log: Path) -> tuple[int, str]:
    try:
        rc = proc.wait(timeout=RUN_TIMEOUT_S)
    finally:
        kill(proc)
    return rc, log.read_text()


def kill(proc: subprocess.Popen) -> None:
    """The driver's process group (itself too, when a failed test left it running)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def wait_for(condition, what: str, timeout: float = RUN_TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


def results(out: Path) -> dict:
    return json.loads((out / "results.json").read_text())


def verdicts(doc: dict) -> dict:
    return {f"{r['category']}/{r['op']}": {s: (v["compiled"], v["correct"], v["stage"]) for s, v in r["shapes"].items()}
            for r in doc["results"]}


def test_ray_gives_the_local_pools_verdicts_drafts_projects_and_report(cluster, base):
    node = worker(cluster)
    suite = base / "same" / "suite"
    for op in ("activation/relu.py", "reduce/sum_dim.py"):
        (suite / op).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(SUITE / op, suite / op)
    # its reference kills the bench worker above it: a crashed op on both, not a lost one on Ray
    (suite / "activation" / "crash.py").write_text(SMALL.format(marks=[], body=KILL_WORKER))
    # an NPUKernelBench op reads its cases from the JSON-lines file beside it: that travels too
    (suite / "npukb").mkdir()
    shutil.copy(NPUKB / "11_Exp.py", suite / "npukb" / "exp.py")
    (suite / "npukb" / "exp.json").write_text("".join(
        json.dumps({"inputs": [{"name": "x", "type": "tensor", "dtype": "float32", "shape": shape}]}) + "\n"
        for shape in ([16, 1024], [13, 1003])))
    args = ["--seeds", "1", "--no-timing"]
    local, ray = base / "same" / "local", base / "same" / "ray"
    assert bench_main([str(suite), "-o", str(local), *args]) == 0
    rc, text = finish(start("bench", suite, "-o", ray, *args, "--executor", "ray", "--address", cluster.address,
                            log=base / "same" / "ray.log"), base / "same" / "ray.log")
    assert rc == 0, text

    here, there = results(local), results(ray)
    assert verdicts(there) == verdicts(here)
    assert verdicts(here)["activation/relu"] == {"reference": (True, True, "ok"), "tail": (True, True, "ok")}
    assert verdicts(here)["activation/crash"]["reference"][2] == "crash"
    assert verdicts(here)["npukb/exp"] == {"reference": (True, True, "ok")}
    cases = lambda doc: next(r for r in doc["results"] if r["op"] == "exp")["shapes"]["reference"]["cases"]["total"]
    assert cases(there) == cases(here) == 2
    assert there["state"] == "complete" and there["meta"]["executor"]["kind"] == "ray"
    # below the command line; the emulator's wall times (an NPUKernelBench op keeps them) are of the moment
    per_op = lambda p: re.sub(r"(?<=\| )[\d.]+(e-?\d+)? m?s(?= \|)", "TIME",
                              p.read_text().split("## Per category", 1)[1])
    assert "| TIME |" in per_op(local / "report.md")        # (the comparison sees the NPUKernelBench op's row)
    assert per_op(ray / "report.md") == per_op(local / "report.md")
    for name in ("activation/relu", "reduce/sum_dim", "npukb/exp"):
        mine, theirs = local / "ops" / name, ray / "ops" / name
        files = sorted(p.relative_to(mine) for p in mine.rglob("*") if p.is_file() and p.suffix != ".json"
                       and p.name != "log.txt")
        assert files and Path("kernel.dsl.py") in files
        for f in files:       # the draft and every file of the AscendC projects, byte for byte
            assert (theirs / f).read_bytes() == (mine / f).read_bytes(), f
    for r in there["results"]:
        if r["op"] != "crash":        # whose worker died before it could say
            shipped = Path(r["worker"]["package"])
            assert cluster.root in shipped.parents and ROOT not in shipped.parents, shipped
        assert r["worker"]["ray"]["node"] == node.ip and r["worker"]["ray"]["attempt"] == 1
    log = (ray / "ops" / "activation" / "relu" / "log.txt").read_text()
    assert log.startswith(f"bench: ran on ray node {node.ip}") and "acbench-ray-" not in log   # node paths put back


def test_a_lost_task_runs_once_more_then_is_reported_lost_and_resume_finishes_the_run(cluster, base):
    first = worker(cluster)
    marks = cluster.root / f"marks-{uuid.uuid4().hex[:8]}"       # a folder the nodes see too
    marks.mkdir()
    suite = base / "lost" / "suite" / "activation"
    suite.mkdir(parents=True)
    (suite / "a_slow.py").write_text(SMALL.format(marks=[str(marks / f"{i}") for i in (1, 2, 3)], body=SLOW))
    (suite / "b_relu.py").write_text(SMALL.format(marks=[], body="pass"))
    out, log = base / "lost" / "out", base / "lost" / "run.log"
    args = ["--seeds", "1", "--no-timing", "--shapes", "reference", "--executor", "ray", "--address", cluster.address]

    run = start("bench", suite.parent, "-o", out, *args, log=log)
    try:
        wait_for((marks / "1").exists, "a_slow to run on the first node")
        cluster.kill(first)                               # the host dies under the task
        second = cluster.add_worker(2, hidden=cluster.hidden)
        wait_for((marks / "2").exists, "a_slow to run again on the second node")
        cluster.kill(second)
        rc, text = finish(run, log)
    finally:
        kill(run)
    assert rc == 1 and "a_slow was lost with its Ray node" in text and "running it once more" in text, text
    doc = results(out)
    assert doc["state"] == "incomplete" and "activation/a_slow" in doc["lost"]
    slow = next(r for r in doc["results"] if r["op"] == "a_slow")
    assert slow["shapes"]["reference"]["stage"] == "lost" and len(slow["lost"]) == 2
    assert "--resume" in slow["shapes"]["reference"]["error"]

    third = cluster.add_worker(2, hidden=cluster.hidden)
    run = start("bench", suite.parent, "-o", out, *args, "--resume", log=log)
    try:                                     # Ctrl-C while a_slow waits again: its worker is stopped on the node
        wait_for((marks / "3").exists, "a_slow to run on the third node")
        run.send_signal(signal.SIGINT)
        rc, text = finish(run, log)
    finally:
        kill(run)
    assert rc == 130 and "continue with --resume" in text, text
    doc = results(out)
    assert doc["state"] == "interrupted" and "activation/a_slow" in doc["pending"]
    ours = lambda: [cmd for _, cmd in _marked(f"ACR_TEST_RAY_NODE={third.mark}".encode())
                    if "ascendcraft_lab" in cmd or "zygote.py" in cmd or "child.py" in cmd]
    wait_for(lambda: not ours(), "the cancelled op's processes to end", timeout=60)

    rc, text = finish(start("bench", suite.parent, "-o", out, *args, "--resume", log=log), log)
    assert rc == 0, text
    doc = results(out)
    assert doc["state"] == "complete" and doc["lost"] == [] and doc["pending"] == []
    assert all(v == (True, True, "ok") for op in verdicts(doc).values() for v in op.values()), verdicts(doc)
    slow = next(r for r in doc["results"] if r["op"] == "a_slow")
    assert slow["worker"]["ray"]["node"] == third.ip and "lost" not in slow


def test_nothing_but_the_ray_executor_imports_ray(tmp_path):
    probe = ("import sys\n"
             "import ascendcraft_lab.cli, ascendcraft_lab.bench.cli, ascendcraft_lab.bench.ray_executor\n"
             "from ascendcraft_lab.cli import doctor\n"
             "checks = {c.name: c for c in doctor.run_checks()}\n"
             "assert checks['Ray'].ok, checks['Ray']\n"
             "print('ray' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "False", out.stdout + out.stderr
