"""tools/npu_report.py, the once-per-NPU-host report, run against the test-double toolchain."""
from __future__ import annotations
import pytest

import json
import runpy
import tarfile
from pathlib import Path

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

REPORT = Path(__file__).parents[2] / "tools" / "npu_report.py"


def test_the_report_bundles_doctor_versions_runs_and_exports_and_records_each_refusal(fake_toolchain, monkeypatch,
                                                                                      tmp_path, capsys):
    for key in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "ASC_DIR"):
        monkeypatch.delenv(key, raising=False)
    for key, value in fake_toolchain.env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-never-recorded")
    main = runpy.run_path(str(REPORT))["main"]
    archive = tmp_path / "report.tar.gz"
    assert main(["--examples", "gelu", "--keep", str(tmp_path / "work"), "-o", str(archive)]) == 0
    with tarfile.open(archive) as tar:
        names = tar.getnames()
        text = {n: tar.extractfile(n).read().decode() for n in names}
    runs = [n for n in names if n.startswith("sessions/gelu/runs/")]
    assert {"log.txt", "versions.json", "exports/gelu_mkb.py", "exports/gelu_mkb-direct.json"} <= set(names)
    records = [json.loads(text[n]) for n in runs]
    # built by the fake cmake; profiled offline by the pipe model (the estimate beside any measurement)
    assert sorted((r["action"], r["backend"]) for r in records) == [("build", "cann"), ("profile", "model")]
    versions = json.loads(text["versions.json"])
    assert versions["cann"] == "8.5.0" and versions["environment"]["ASCEND_HOME_PATH"] == str(fake_toolchain.home)
    log = text["log.txt"]
    for step in ("$ ascendcraft doctor", "$ ascendcraft lower gelu.dsl.py", "$ ascendcraft build", "$ ascendcraft check",
                 "$ ascendcraft profile", "$ ascendcraft export"):
        assert step in log
    assert "CANN 8.5.0" in log                                                  # the doctor's CANN row
    if not any(Path("/dev").glob("davinci*")):
        assert "cannot run on the NPU here: no Ascend NPU visible" in log       # recorded, not skipped
    assert "sk-never-recorded" not in "".join(text.values())
