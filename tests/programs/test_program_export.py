"""A program's direct-launch export: every kernel's files and one binding that launches them in order."""
from __future__ import annotations

import json

import pytest

from ascendcraft_lab.dsl.program import parse_any
from ascendcraft_lab.dsl.program_check import verify_multi
from ascendcraft_lab.engines.rule import RuleEngine
from ascendcraft_lab.export.common import ExportError
from ascendcraft_lab.export.direct import validate_direct
from ascendcraft_lab.export.program import export_program_direct
from ascendcraft_lab.passes.program import lower_multi

from .conftest import CHAIN, SCAN


def _export(text: str, op: str) -> dict:
    mp = verify_multi(parse_any(text, f"{op}.dsl.py"))
    return export_program_direct(mp, lower_multi(mp, RuleEngine()).bundle, "Ascend910B2", op, None)


def test_the_export_holds_every_kernel_and_launches_them_in_program_order():
    spec = _export(CHAIN, "chain")
    assert validate_direct(spec) == []
    files = {s["path"]: s["content"] for s in spec["sources"]}
    assert spec["build"]["kernel_sources"] == ["kernel/twice_kernel.cpp", "kernel/add_kernel.cpp"]
    binding = files["kernel/pybind11.cpp"]
    assert binding.index("launch_twice(blockDim0") < binding.index("launch_add(blockDim1")
    assert "at::Tensor h = at::zeros({B, N}" in binding
    assert binding.index("stream(true)") > binding.rindex("TilingFunc(")


def test_a_host_loop_becomes_a_loop_over_views_in_the_binding():
    binding = {s["path"]: s["content"] for s in _export(SCAN, "scan")["sources"]}["kernel/pybind11.cpp"]
    assert "for (int64_t s = 0; s < S; s += 1) {" in binding
    assert "At(st.data_ptr(), ((s + 1) % 2) * (B) * (N), sizeof(float))" in binding


@pytest.mark.heavy
def test_the_exported_program_passes_multikernelbench_on_the_emulator(tmp_path, capsys):
    from ascendcraft_lab.cli import main
    ref = tmp_path / "chain.py"
    ref.write_text("import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n"
                   "    def forward(self, x):\n        return 2 * x + x\n\n\n"
                   "def get_inputs():\n    return [torch.randn(9, 100)]\n\n\ndef get_init_inputs():\n    return []\n")
    sub = tmp_path / "chain.mkb-direct.json"
    sub.write_text(json.dumps(_export(CHAIN, "chain")))
    assert main(["check", str(sub), "--ref", str(ref)]) == 0, capsys.readouterr()
    assert "correct" in capsys.readouterr().out


def test_a_kernel_with_a_workspace_inside_a_host_loop_is_refused_with_its_line():
    text = SCAN.replace("def twice(x: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):",
                        "def twice(x: GM[f32, (B, N)], y: Out[f32, (B, N)], ws: Workspace[f32, (B, N)], t: Tiling):")
    with pytest.raises(ExportError) as info:
        _export(text, "scan")
    assert "`twice` (line" in str(info.value) and "host loop" in str(info.value)
