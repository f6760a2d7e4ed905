"""`ascendcraft export --format mkb-direct`: MultiKernelBench's direct-launch JSON submission."""
from __future__ import annotations

import json
import re

import pytest

from export_helpers import import_model
from ascendcraft_lab.export.common import kernel_class_text, load_session
from ascendcraft_lab.export.direct import TOP_LEVEL, export_direct, validate_direct
from ascendcraft_lab.cli.export import main

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy


@pytest.fixture(scope="module")
def exported(gelu_session, tmp_path_factory):
    out = tmp_path_factory.mktemp("direct") / "gelu.json"
    assert main([str(gelu_session), "--format", "mkb-direct", "-o", str(out)]) == 0
    spec = json.loads(out.read_text())
    return load_session(gelu_session), spec, {s["path"]: s["content"] for s in spec["sources"]}


def test_the_json_has_the_formats_fields_and_validates(exported):
    _, spec, _ = exported
    assert list(spec) == list(TOP_LEVEL)
    assert spec["problem"] == "gelu" and spec["format_version"] == "0.1"
    assert spec["entry"] == {"model": "ModelNew.py::ModelNew"}
    assert spec["build"] == {"type": "ascendc_direct_launch", "module_name": "benchmark_ops",
                             "kernel_sources": ["kernel/gelu_kernel.cpp"],
                             "binding_sources": ["kernel/pybind11.cpp", "kernel/gelu_tiling.cpp"],
                             "include_dirs": ["kernel"]}
    assert validate_direct(spec) == []


def test_the_sources_carry_the_sessions_tiling_and_kernel_class(exported):
    src, _, files = exported
    assert sorted(files) == ["ModelNew.py", "kernel/gelu_kernel.cpp", "kernel/gelu_launch.h", "kernel/gelu_tiling.cpp",
                             "kernel/gelu_tiling.h", "kernel/pybind11.cpp"]
    assert files["kernel/gelu_tiling.h"] == src.bundle["host/gelu_tiling.h"]
    assert files["kernel/gelu_tiling.cpp"] == src.bundle["host/gelu_tiling.cpp"]
    kernel = files["kernel/gelu_kernel.cpp"]
    assert kernel_class_text(src) in kernel
    assert "GET_TILING_DATA(" not in kernel and "REGISTER_TILING_DEFAULT(" not in kernel
    assert ("__global__ __aicore__ void gelu(GM_ADDR x, GM_ADDR y, int64_t B, int64_t N, int64_t rows, "
            "int64_t tile)") in kernel
    assert "gelu<<<blockDim, nullptr, stream>>>(x, y, tiling->B, tiling->N, tiling->rows, tiling->tile);" in kernel


def test_the_binding_computes_the_tiling_and_launches_on_the_current_stream(exported):
    _, _, files = exported
    bind = files["kernel/pybind11.cpp"]
    assert "const uint32_t blockDim = GeluTilingFunc(B, N, tiling);" in bind
    assert "c10_npu::getCurrentNPUStream().stream(true)" in bind         # flushes the task queue first
    assert re.search(r"launch_gelu\(blockDim, stream, .*x\.data_ptr\(\).*y\.data_ptr\(\).*&tiling\);", bind)
    assert "PYBIND11_MODULE(benchmark_ops, m)" in bind
    assert ('extern "C" void launch_gelu(uint32_t blockDim, void *stream, GM_ADDR x, GM_ADDR y, '
            'const GeluTiling *tiling);') in files["kernel/gelu_launch.h"]


def test_model_new_imports_and_calls_benchmark_ops(exported, monkeypatch, tmp_path):
    torch = pytest.importorskip("torch")
    _, _, files = exported
    namespace, stub = import_model(files["ModelNew.py"], "benchmark_ops", monkeypatch, str(tmp_path / "ModelNew.py"))
    x = torch.randn(2, 8)
    assert namespace["ModelNew"]()(x) == ("result of", "gelu")
    assert stub.calls == [("gelu", (x,))]


@pytest.mark.parametrize("change, problem", [
    (lambda s: s["sources"].append({"path": "../evil.cpp", "content": ""}), "unsafe source path '../evil.cpp'"),
    (lambda s: s["sources"].append(dict(s["sources"][0])), "duplicate source path 'ModelNew.py'"),
    (lambda s: s["build"].update(type="ascendc"), "build.type must be 'ascendc_direct_launch'"),
    (lambda s: s["build"]["binding_sources"].append("kernel/extra.cpp"),
     "build lists kernel/extra.cpp, which is not among the sources"),
    (lambda s: s.update(entry={"model": "Model.py::ModelNew"}), "the entry file Model.py is not among the sources"),
    (lambda s: s.pop("sources"), "missing `sources`"),
])
def test_validation_rejects_what_the_upstream_backend_would(gelu_session, change, problem):
    spec = export_direct(load_session(gelu_session))
    change(spec)
    assert problem in validate_direct(spec)
