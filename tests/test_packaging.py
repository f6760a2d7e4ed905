"""The package's set-up promises: dependencies agree, the CLI lists its commands."""
import pytest
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[ ;]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def test_every_runtime_dependency_is_in_environment_yml():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    runtime = {_name(r) for r in project["dependencies"]}
    listed = {_name(line.strip().lstrip("-").strip()) for line in (ROOT / "environment.yml").read_text().splitlines()
              if line.strip().startswith("- ")}
    assert runtime <= listed, f"missing from environment.yml: {sorted(runtime - listed)}"


def test_test_dependencies_are_in_environment_yml():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    test = {_name(r) for r in project["optional-dependencies"]["test"]}
    text = (ROOT / "environment.yml").read_text()
    assert all(name in text for name in test)


def test_torch_npu_is_optional_only():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert not any(_name(r) == "torch-npu" for r in project["dependencies"])
    assert any(_name(r) == "torch-npu" for r in project["optional-dependencies"]["npu"])


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "ascendcraft_lab", *args], capture_output=True, text=True, cwd=ROOT)


@pytest.mark.heavy
def test_help_lists_every_architecture_command():
    out = _cli("--help")
    assert out.returncode == 0
    for name in ["demo", "draft", "lower", "check", "emulate", "bench", "lab", "doctor"]:
        assert re.search(rf"^\s+{name}\s", out.stdout, re.M), name


def test_unbuilt_command_says_so_in_one_line_without_traceback():
    from ascendcraft_lab.cli import COMMANDS
    unbuilt = [c.name for c in COMMANDS if c.target is None]
    for name in unbuilt:
        out = _cli(name)
        assert out.returncode == 2
        assert "not built yet" in out.stderr and "Traceback" not in out.stderr
        assert len(out.stderr.strip().splitlines()) == 1


@pytest.mark.heavy
def test_doctor_reports_offline_pipeline_ready_and_hides_the_key(monkeypatch):
    env = {"OPENAI_API_KEY": "sk-secret-value-123", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "PATH": "/usr/bin:/bin"}
    import os
    out = subprocess.run([sys.executable, "-m", "ascendcraft_lab", "doctor"], capture_output=True, text=True,
                         cwd=ROOT, env={**os.environ, **env})
    assert "sk-secret-value-123" not in out.stdout + out.stderr
    for row in ["Python", "g++ (C++17)", "emulator headers", "CANN toolkit", "torch_npu", "NPU", "LLM endpoint"]:
        assert row in out.stdout
    assert "unreachable" in out.stdout  # nothing listens on port 9
    headers_present = (ROOT / "ascendcraft_lab/backends/emulator/include/kernel_operator.h").exists()
    assert out.returncode == (0 if headers_present else 1)
