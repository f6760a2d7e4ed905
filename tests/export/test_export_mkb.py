"""`ascendcraft export --format mkb`: MultiKernelBench's six-string AscendC submission."""
from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from export_helpers import import_model
from ascendcraft_lab.export.common import kernel_class_text, load_session, tiling_function_only, tiling_struct_text
from ascendcraft_lab.cli.export import main
from ascendcraft_lab.export.mkb import FIELDS, export_mkb, read_submission, validate_fields


@pytest.fixture(scope="module")
def exported(gelu_session, tmp_path_factory):
    out = tmp_path_factory.mktemp("mkb") / "gelu.py"
    assert main([str(gelu_session), "--format", "mkb", "-o", str(out)]) == 0
    return load_session(gelu_session), read_submission(out.read_text())


@pytest.mark.heavy
def test_the_submission_assigns_the_six_strings_and_validates(exported):
    _, fields = exported
    assert list(fields) == list(FIELDS)
    assert validate_fields(fields) == []


@pytest.mark.heavy
def test_project_json_describes_the_op_for_msopgen(exported):
    _, fields = exported
    [op] = json.loads(fields["project_json_src"])
    assert op["op"] == "GeluCustom" and op["language"] == "cpp"
    assert op["input_desc"] == [{"name": "x", "param_type": "required", "format": ["ND"], "type": ["float"]}]
    assert op["output_desc"] == [{"name": "y", "param_type": "required", "format": ["ND"], "type": ["float"]}]
    assert "attr" not in op                                    # gelu has no scalars


@pytest.mark.heavy
def test_the_tiling_header_declares_the_sessions_tiling_fields(exported):
    src, fields = exported
    declared = re.findall(r"TILING_DATA_FIELD_DEF\((\w+), (\w+)\)", fields["host_tiling_src"])
    assert declared == [(f.ctype, f.name) for f in src.plan.tiling_fields] == [
        ("int64_t", "B"), ("int64_t", "N"), ("int64_t", "rows"), ("int64_t", "tile")]
    assert "BEGIN_TILING_DATA_DEF(GeluCustomTilingData)" in fields["host_tiling_src"]
    assert "REGISTER_TILING_DATA_CLASS(GeluCustom, GeluCustomTilingData)" in fields["host_tiling_src"]


@pytest.mark.heavy
def test_the_host_operator_runs_the_sessions_tiling_function_on_the_input_shapes(exported):
    src, fields = exported
    host = fields["host_operator_src"]
    assert tiling_function_only(src) in host                   # verbatim, emulator-verified
    assert tiling_struct_text(src) in host
    assert "const int64_t B = context->GetInputShape(0)->GetOriginShape().GetDim(0);" in host
    assert "const int64_t N = context->GetInputShape(0)->GetOriginShape().GetDim(1);" in host
    assert "ascendcraft::GeluTilingFunc(B, N, plain);" in host
    assert re.findall(r"tiling\.set_(\w+)\(plain\.(\w+)\)", host) == [(f, f) for f in ("B", "N", "rows", "tile")]
    assert "context->SetBlockDim(blockDim);" in host
    assert 'this->AICore().AddConfig("ascend910b");' in host and "OP_ADD(GeluCustom);" in host


@pytest.mark.heavy
def test_the_translated_tiling_compiles_as_plain_cpp(exported, tmp_path):
    if shutil.which("g++") is None:
        pytest.skip("no g++")
    _, fields = exported
    host = fields["host_operator_src"]
    end = "}  // namespace ascendcraft"
    part = host[host.index("namespace ascendcraft {"):host.index(end) + len(end)]
    probe = tmp_path / "probe.cpp"
    probe.write_text("#include <algorithm>\n#include <cmath>\n#include <cstdint>\n" + part +
                     "\nint main() { ascendcraft::GeluTiling t{}; "
                     "return ascendcraft::GeluTilingFunc(16, 16384, t) == 16 && t.rows == 1 ? 0 : 1; }\n")
    built = subprocess.run(["g++", "-std=c++17", str(probe), "-o", str(tmp_path / "probe")],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    assert subprocess.run([str(tmp_path / "probe")]).returncode == 0


@pytest.mark.heavy
def test_the_kernel_keeps_the_sessions_class_and_reads_the_tiling_data(exported):
    src, fields = exported
    kernel = fields["kernel_src"]
    assert kernel_class_text(src) in kernel                    # the compute is the session's
    assert '#include "gelu_tiling.h"' not in kernel and tiling_struct_text(src) in kernel
    assert ('extern "C" __global__ __aicore__ void gelu_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, '
            'GM_ADDR tiling) {') in kernel
    assert "GET_TILING_DATA(tilingData, tiling);" in kernel and "REGISTER_TILING_DEFAULT" not in kernel
    assert re.findall(r"t\.(\w+) = tilingData\.(\w+);", kernel) == [(f, f) for f in ("B", "N", "rows", "tile")]
    assert "op.Init(x, y, t);" in kernel


@pytest.mark.heavy
def test_the_binding_calls_aclnn_with_the_dsl_output_shape(exported):
    _, fields = exported
    bind = fields["python_bind_src"]
    assert "at::Tensor y = at::empty({B, N}, x.options().dtype(at::kFloat));" in bind
    assert "EXEC_NPU_CMD(aclnnGeluCustom, x, y);" in bind
    assert 'm.def("gelu_custom", &gelu_custom_impl_npu' in bind


@pytest.mark.heavy
def test_model_new_imports_and_calls_the_custom_op(exported, monkeypatch):
    torch = pytest.importorskip("torch")
    _, fields = exported
    namespace, stub = import_model(fields["model_src"], "custom_ops_lib", monkeypatch, "<model_src>")
    model = namespace["ModelNew"]()
    assert isinstance(model, torch.nn.Module)
    x = torch.randn(2, 8)
    assert model(x) == ("result of", "gelu_custom")
    assert stub.calls == [("gelu_custom", (x,))]


@pytest.mark.heavy
def test_validation_names_what_a_broken_submission_lacks(exported):
    _, fields = exported
    assert validate_fields({k: v for k, v in fields.items() if k != "kernel_src"}) == ["missing kernel_src"]
    broken = dict(fields, kernel_src=fields["kernel_src"].replace("gelu_custom(", "gelu("),
                  model_src=fields["model_src"].replace("return custom_ops_lib.gelu_custom(x)",
                                                        "return custom_ops_lib.gelu_custom(x) * 1.0"))
    problems = validate_fields(broken)
    assert "kernel_src has no entry `gelu_custom`" in problems
    assert any(p.startswith("model_src does arithmetic in forward") for p in problems)


@pytest.mark.heavy
def test_the_problem_name_sets_the_op_names(gelu_session):
    fields = export_mkb(load_session(gelu_session, op="min_gpt_new_gelu"))
    assert json.loads(fields["project_json_src"])[0]["op"] == "MinGptNewGeluCustom"
    assert 'void min_gpt_new_gelu_custom(' in fields["kernel_src"]
    assert validate_fields(fields) == []


def test_export_without_a_session_fails_in_one_line(tmp_path, capsys):
    assert main([str(tmp_path), "--format", "mkb"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"ascendcraft export: {tmp_path} is not a session folder (no ascendcraft.json)"
