"""The build step against a test-double toolchain: the commands, the CMake project's sources,
and compiler errors mapped to the generated line and its DSL line."""
from __future__ import annotations

import json
import shutil

import pytest

from ascendcraft_lab.backends.cann.build import build_project, cmake_sources, lint_cmake, preflight, render_build
from ascendcraft_lab.backends.cann.detect import detect
from ascendcraft_lab.passes.bundle import read_bundle
from ascendcraft_lab.session import SessionFolder
from ascendcraft_lab.session.npu import build_session


@pytest.fixture
def session(gelu_session, tmp_path):
    """A private copy of the lowered gelu session (builds write build/ and runs/ into it)."""
    return shutil.copytree(gelu_session, tmp_path / "gelu")


def test_build_issues_the_documented_cmake_commands_for_the_socs_architecture(session, fake_toolchain):
    ft = fake_toolchain
    result = build_session(session, jobs=2, toolchain=detect(ft.env, dev_dir=ft.no_dev_dir), env=ft.env)
    assert result.ok, result.message
    configure, build = [c["argv"] for c in ft.calls("cmake") if c["argv"][:1] != ["--version"]]
    assert configure[:4] == ["-S", str(session / "ascendc"), "-B", str(session / "build")]
    assert "-DCMAKE_ASC_ARCHITECTURES=dav-2201" in configure             # Ascend910B2
    assert f"-DASC_DIR={ft.asc_dir}" in configure
    prefix = next(a for a in configure if a.startswith("-DCMAKE_PREFIX_PATH="))
    assert prefix.split("=", 1)[1].split(";")[0] == str(ft.asc_dir)
    assert any(p.endswith("share/cmake") for p in prefix.split("=", 1)[1].split(";"))   # PyTorch's package
    assert f"-DTORCH_NPU_PATH={ft.torch_npu}" in configure
    assert build == ["--build", str(session / "build"), "--parallel", "2"]
    assert all(c["ASCEND_HOME_PATH"] == str(ft.home) for c in ft.calls("cmake"))
    assert ft.calls("bisheng")[0]["argv"] == ["--version"]               # recorded for bug reports
    assert result.versions["bisheng"].startswith("BiSheng Compiler")
    assert result.library == str(session / "build" / "libgelu_ops.so")
    recorded = [json.loads(p.read_text()) for p in (session / "runs").glob("*.json")]
    assert [r["action"] for r in recorded] == ["build"] and recorded[0]["status"] == "ok"


@pytest.mark.parametrize("soc, arch", [("Ascend910B3", "dav-2201"), ("Ascend310P", "dav-2002")])
def test_the_architecture_comes_from_the_soc_table(session, fake_toolchain, soc, arch):
    ft = fake_toolchain
    result = build_project(session / "ascendc", session / "build", soc=soc, toolchain=detect(ft.env), env=ft.env)
    assert result.ok
    assert f"-DCMAKE_ASC_ARCHITECTURES={arch}" in result.commands[0]


def test_the_cmake_project_compiles_exactly_the_bundles_sources(session):
    bundle = read_bundle(session / "ascendc")
    listed = set(cmake_sources(bundle["CMakeLists.txt"]))
    sources = {p for p in bundle.files if p.endswith((".cpp", ".asc"))}
    assert sources == {"kernel/gelu_kernel.cpp", "host/gelu_tiling.cpp", "host/gelu_launch.cpp", "torch/gelu_torch.cpp"}
    assert listed == sources
    assert [d for d in preflight(bundle) if d["severity"] == "error"] == []


def test_a_cmakelists_out_of_step_with_its_sources_stops_the_build_before_cmake(session, fake_toolchain):
    ft = fake_toolchain
    bundle = read_bundle(session / "ascendc")
    broken = bundle.with_files({"CMakeLists.txt": bundle["CMakeLists.txt"].replace("host/gelu_launch.cpp", "host/launch.cpp")})
    result = build_project(session / "ascendc", session / "build", bundle=broken, toolchain=detect(ft.env), env=ft.env)
    assert result.status == "preflight-error"
    errors = [d["message"] for d in result.diagnostics if d["severity"] == "error"]
    assert "lists host/launch.cpp, which the project does not have" in errors
    assert "host/gelu_launch.cpp is in the project but no target compiles it" in errors
    assert ft.calls("cmake") == []


def test_a_compiler_error_points_at_the_generated_line_and_its_dsl_line(session, fake_toolchain):
    ft = fake_toolchain
    bundle = read_bundle(session / "ascendc")
    lines = bundle["kernel/gelu_kernel.cpp"].splitlines()
    line = next(i for i, text in enumerate(lines, 1) if "Exp(" in text)     # tanh's exp: DSL line 18
    assert bundle.dsl_line("kernel/gelu_kernel.cpp", line) == 18
    env = {**ft.env, "FAKE_COMPILE_ERROR": f"kernel/gelu_kernel.cpp:{line}"}
    result = build_session(session, toolchain=detect(env), env=env)
    assert result.status == "build-error"
    err = next(d for d in result.diagnostics if d["severity"] == "error")
    assert (err["file"], err["line"], err["dsl_line"]) == ("kernel/gelu_kernel.cpp", line, 18)
    assert err["message"] == "use of undeclared identifier 'bogus'"
    assert f"at kernel/gelu_kernel.cpp:{line} (DSL line 18)" in result.message
    from ascendcraft_lab.session import load_dsl
    s = SessionFolder(session)
    program = load_dsl(s.dsl_path().read_text(), "gelu.dsl.py", "Ascend910B2")
    shown = render_build(result, program)
    assert "--> gelu.dsl.py:18" in shown and "yu = 0.5 * xu * (1.0 + tanh(inner))" in shown


def test_lint_names_cmake_patterns_the_cann_docs_reject():
    mixed = """cmake_minimum_required(VERSION 3.16)
project(demo LANGUAGES CXX)
find_package(ASC REQUIRED)
ascendc_library(k STATIC kernel/k.cpp)
add_library(ops SHARED kernel/k2.cpp torch/t.cpp)
target_link_libraries(ops PRIVATE k torch_npu)
"""
    messages = " | ".join(d["message"] for d in lint_cmake(mixed))
    assert "find_package(ASC) comes after project()" in messages
    assert "project() does not enable the ASC language" in messages
    assert "ascendc_library() comes from CANN's ascendc.cmake" in messages
    assert "kernel/k2.cpp is not marked LANGUAGE ASC" in messages
    assert "torch_npu's include/ and lib/" in messages


def test_lint_accepts_the_documented_find_package_asc_layout():
    documented = """cmake_minimum_required(VERSION 3.16)
set(CMAKE_ASC_ARCHITECTURES "dav-2201" CACHE STRING "NPU architecture")
find_package(ASC REQUIRED)
project(demo LANGUAGES ASC CXX)
set_source_files_properties(kernel/k.cpp PROPERTIES LANGUAGE ASC)
add_library(ops SHARED kernel/k.cpp torch/t.cpp)
target_include_directories(ops PRIVATE ${TORCH_NPU_PATH}/include)
target_link_directories(ops PRIVATE ${TORCH_NPU_PATH}/lib)
target_link_libraries(ops PRIVATE torch_npu)
"""
    assert lint_cmake(documented) == []


def test_a_toolkit_found_through_ascend_toolkit_home_is_exported_as_ascend_home_path(session, fake_toolchain):
    ft = fake_toolchain
    env = {k: v for k, v in ft.env.items() if k != "ASCEND_HOME_PATH"}
    env["ASCEND_TOOLKIT_HOME"] = str(ft.home)
    result = build_session(session, toolchain=detect(env), env=env)
    assert result.ok
    assert {c["ASCEND_HOME_PATH"] for c in ft.calls("cmake")} == {str(ft.home)}   # CANN's CMake modules read it
