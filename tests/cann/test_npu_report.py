"""tools/npu_report.py, the once-per-NPU-host report.

Every step is a child process with a timeout, and the archive is rewritten after each: one run with
the real steps against the test-double toolchain, and one whose steps are stand-ins, one of which hangs."""
from __future__ import annotations

import importlib.util
import json
import os
import sys
import tarfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.heavy        # every step is a child process

REPORT = Path(__file__).parents[2] / "tools" / "npu_report.py"
ROOT = Path(__file__).parents[2]


def _tool():
    spec = importlib.util.spec_from_file_location("npu_report", REPORT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _read(archive: Path) -> tuple[list[str], dict[str, str]]:
    with tarfile.open(archive) as tar:
        names = tar.getnames()
        return names, {n: tar.extractfile(n).read().decode() for n in names}


def test_the_report_bundles_doctor_versions_runs_and_exports_and_records_each_refusal(fake_toolchain, monkeypatch,
                                                                                      tmp_path):
    for key in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "ASC_DIR"):
        monkeypatch.delenv(key, raising=False)
    for key, value in fake_toolchain.env.items():
        monkeypatch.setenv(key, value)
    # the steps are children: they import this package and find the torch_npu double through PYTHONPATH
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(fake_toolchain.torch_npu.parent), str(ROOT),
                                                      os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-never-recorded")
    archive = tmp_path / "report.tar.gz"
    assert _tool().main(["--examples", "gelu", "--keep", str(tmp_path / "work"), "-o", str(archive)]) == 0
    names, text = _read(archive)
    runs = [n for n in names if n.startswith("sessions/gelu/runs/")]
    assert {"log.txt", "versions.json", "exports/gelu_mkb.py", "exports/gelu_mkb-direct.json"} <= set(names)
    records = [json.loads(text[n]) for n in runs]
    # built by the fake cmake; profiled offline by the pipe model (the estimate beside any measurement)
    assert sorted((r["action"], r["backend"]) for r in records) == [("build", "cann"), ("profile", "model")]
    versions = json.loads(text["versions.json"])
    assert versions["cann"] == "9.0.0" and versions["environment"]["ASCEND_HOME_PATH"] == str(fake_toolchain.home)
    log = text["log.txt"]
    for step in ("$ ascendcraft doctor", "$ ascendcraft lower gelu.dsl.py", "$ ascendcraft build",
                 "$ ascendcraft check", "--draws mkb", "$ ascendcraft profile", "$ ascendcraft export"):
        assert step in log
    assert "CANN 9.0.0" in log                                                  # the doctor's CANN row
    if not any(Path("/dev").glob("davinci*")):
        assert "cannot run on the NPU here: no Ascend NPU visible" in log       # recorded, not skipped
    assert "sk-never-recorded" not in "".join(text.values())


def test_a_hung_step_costs_one_line_and_the_archive_holds_every_step_done(tmp_path, monkeypatch):
    tool = _tool()
    monkeypatch.setattr(tool, "versions_command", lambda: [sys.executable, "-c", "print('{\"python\": \"3\"}')"])

    def stand_in(*args):         # each step prints its arguments; the cube example's build hangs
        if args[0] == "build" and "matmul" in args[1]:
            return [sys.executable, "-c", "import time; time.sleep(3600)"]
        return [sys.executable, "-c", f"print('ran', {' '.join(args[:1])!r})"]
    monkeypatch.setattr(tool, "ascendcraft", stand_in)
    snapshots = []
    real_bundle = tool.bundle

    def bundle(archive, root):   # what the archive holds each time it is written
        members = real_bundle(archive, root)
        snapshots.append(_read(archive)[1]["log.txt"])
        return members
    monkeypatch.setattr(tool, "bundle", bundle)
    archive = tmp_path / "report.tar.gz"
    assert tool.main(["--examples", "gelu,matmul,linear_relu", "-o", str(archive), "--step-timeout", "5"]) == 0
    log = _read(archive)[1]["log.txt"]
    titles = [line[2:] for line in log.splitlines() if line.startswith("$ ")]
    assert len(titles) == 1 + 3 * 6                    # doctor, then lower, build, check, profile and 2 exports each
    hung = titles.index(next(t for t in titles if t.startswith("ascendcraft build") and "matmul" in t))
    sections = log.split("\n$ ")[1:]
    assert sections[hung].splitlines()[1:] == ["timed out after 5 s: stopped (the step's processes were ended)",
                                               sections[hung].splitlines()[-1]]
    assert sections[hung].splitlines()[-1].startswith("[timed out, ")
    assert all(s.splitlines()[-1].startswith("[exit 0, ") for i, s in enumerate(sections) if i != hung)
    assert log.count("timed out after") == 1
    # written after the versions and after every step: a stop at any point keeps the steps done before it
    assert len(snapshots) == 1 + len(titles) + 1
    for k, title in enumerate(titles):
        assert f"$ {title}" in snapshots[k + 1]
        assert k + 1 == len(titles) or f"$ {titles[k + 1]}" not in snapshots[k + 1]
