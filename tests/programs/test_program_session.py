"""A program's session: `ascendcraft lower` writes one stage list per kernel and the program's
project; `check` verifies the files of ascendc/ as they are; `profile` sums the launches' ESTIMATES."""
from __future__ import annotations

import json
import re

import pytest

from ascendcraft_lab.cli import main
from ascendcraft_lab.examples import PROGRAM_EXAMPLES
from ascendcraft_lab.passes.pipeline import PIPELINE

pytestmark = pytest.mark.heavy

MLP = next(e for e in PROGRAM_EXAMPLES if e.op == "mlp")


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    out = tmp_path_factory.mktemp("s") / "mlp"
    assert main(["lower", str(MLP.dsl), "--ref", str(MLP.reference), "-o", str(out)]) == 0
    return out


def test_lower_keeps_one_stage_list_per_kernel_and_the_program_project(session):
    manifest = json.loads((session / "ascendcraft.json").read_text())
    assert manifest["format"] == "program" and manifest["program"] == "mlp"
    assert list(manifest["kernels"]) == ["matmul_bt", "bias_gelu", "bias_add"]
    for kernel in manifest["kernels"]:
        stages = sorted(p.name for p in (session / "kernels" / kernel / "stages").iterdir())
        assert stages == [s.dirname for s in PIPELINE]
        assert (session / "ascendc" / kernel / "kernel" / f"{kernel}_kernel.cpp").is_file()
    host = (session / "ascendc" / "program" / "mlp_program.cpp").read_text()
    calls = re.findall(r"^\s+(Launch\w+)\(blockDim\d+, stream, ", host, re.M)
    assert calls == ["LaunchMatmulBt", "LaunchBiasGelu", "LaunchMatmulBt", "LaunchBiasAdd"]


def test_check_verifies_the_project_and_names_a_kernel_edited_wrong(session, capsys):
    assert main(["check", str(session)]) == 0
    assert "correct: program `mlp` (4 launches of 3 kernels)" in capsys.readouterr().out
    kernel = session / "ascendc" / "bias_add" / "kernel" / "bias_add_kernel.cpp"
    text = kernel.read_text()
    assert "Add(yu, hu, bu," in text
    kernel.write_text(text.replace("Add(yu, hu, bu,", "Sub(yu, hu, bu,"))
    try:
        assert main(["check", str(session)]) == 1
        out = capsys.readouterr().out
        assert "the launch of `bias_add` (line" in out and "writes `y`" in out
    finally:
        kernel.write_text(text)


def test_profile_sums_every_launch_and_compares_with_eager(session, capsys):
    assert main(["profile", str(session), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["estimate"] is True and len(data["launches"]) == 4
    from ascendcraft_lab.perf.costs import costs_for
    launch = costs_for("Ascend910B2").launch_s.value
    assert data["seconds"] == pytest.approx(sum(t["kernel_s"] for t in data["launches"]))
    assert data["launch_seconds"] == pytest.approx(4 * launch) and data["seconds"] > 4 * launch
    assert data["eager_s"] is not None
