"""The build step against a test-double toolchain: the commands, the CMake project's sources,
and compiler errors mapped to the generated line and its DSL line."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from ascendcraft_lab.backends.cann.build import (GLOBAL_DECLARATION, GLOBAL_DEFINITION, asc_sources, build_project,
                                                 cmake_sources, lint_cmake, lint_sources, preflight, render_build,
                                                 translation_units)
from ascendcraft_lab.backends.cann.detect import detect
from ascendcraft_lab.passes.bundle import read_bundle
from ascendcraft_lab.passes.cpp import strip_comments
from ascendcraft_lab.session import SessionFolder
from ascendcraft_lab.session.npu import build_session


@pytest.fixture
def session(gelu_session, tmp_path):
    """A private copy of the lowered gelu session (builds write build/ and runs/ into it)."""
    return shutil.copytree(gelu_session, tmp_path / "gelu")


@pytest.mark.heavy
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
    assert f"-DASCEND_HOME_PATH={ft.home}" in configure                   # the CMakeLists' include/ and lib64/
    assert build == ["--build", str(session / "build"), "--parallel", "2"]
    assert all(c["ASCEND_HOME_PATH"] == str(ft.home) for c in ft.calls("cmake"))
    assert ft.calls("bisheng")[0]["argv"] == ["--version"]               # recorded for bug reports
    assert result.versions["bisheng"].startswith("BiSheng Compiler")
    assert result.library == str(session / "build" / "libgelu_ops.so")
    recorded = [json.loads(p.read_text()) for p in (session / "runs").glob("*.json")]
    assert [r["action"] for r in recorded] == ["build"] and recorded[0]["status"] == "ok"


@pytest.mark.heavy
@pytest.mark.parametrize("soc, arch", [("Ascend910B3", "dav-2201"), ("Ascend310P", "dav-2002")])
def test_the_architecture_comes_from_the_soc_table(session, fake_toolchain, soc, arch):
    ft = fake_toolchain
    result = build_project(session / "ascendc", session / "build", soc=soc, toolchain=detect(ft.env), env=ft.env)
    assert result.ok
    assert f"-DCMAKE_ASC_ARCHITECTURES={arch}" in result.commands[0]


@pytest.mark.heavy
def test_the_cmake_project_compiles_exactly_the_bundles_sources(session):
    bundle = read_bundle(session / "ascendc")
    sources = {p for p in bundle.files if p.endswith((".cpp", ".asc"))}
    assert sources == {"kernel/gelu_kernel.cpp", "host/gelu_tiling.cpp", "host/gelu_launch.cpp", "torch/gelu_torch.cpp"}
    units = translation_units(bundle)
    assert set(units) == set(cmake_sources(bundle["CMakeLists.txt"])) == sources - {"kernel/gelu_kernel.cpp"}
    assert {p for unit in units.values() for p in unit if p.endswith(".cpp")} == sources   # the kernel via the launch
    assert preflight(bundle) == []                     # no error and none of the documented-pattern warnings


@pytest.mark.heavy
def test_one_asc_translation_unit_defines_the_kernel_and_launches_it(session):
    bundle = read_bundle(session / "ascendc")
    assert asc_sources(bundle["CMakeLists.txt"]) == {"host/gelu_launch.cpp"}
    unit = translation_units(bundle)["host/gelu_launch.cpp"]
    assert unit[:2] == ["host/gelu_launch.cpp", "kernel/gelu_kernel.cpp"] and "host/gelu_tiling.h" in unit
    code = "".join(strip_comments(bundle[p]) for p in unit)
    assert GLOBAL_DEFINITION.findall(code) == ["gelu"] and GLOBAL_DECLARATION.findall(code) == []
    assert "gelu<<<blockDim, nullptr, stream>>>(" in code
    # the kernel file itself holds no launch: the CPU emulator compiles it alone with g++
    assert "<<<" not in bundle["kernel/gelu_kernel.cpp"]
    others = [p for source, u in translation_units(bundle).items() if source != "host/gelu_launch.cpp" for p in u]
    assert "__global__" not in "".join(strip_comments(bundle[p]) for p in others)


@pytest.mark.heavy
def test_the_library_links_with_the_asc_linker_against_the_toolkits_lib64(session, fake_toolchain):
    ft = fake_toolchain
    assert build_session(session, toolchain=detect(ft.env), env=ft.env).ok
    [plan] = ft.calls("cmake-plan")
    target = plan["targets"]["gelu_ops"]
    assert target["sources"] == {"host/gelu_launch.cpp": "ASC", "host/gelu_tiling.cpp": "CXX",
                                 "torch/gelu_torch.cpp": "CXX"}
    assert target["linker_language"] == "ASC"          # bisheng links, with the AscendC runtime
    assert "ascendcl" in target["link_libraries"]
    folders = [Path(d) for d in target["link_directories"]]
    assert ft.home / "lib64" in folders and (ft.home / "lib64" / "libascendcl.so").is_file()
    assert ft.torch_npu / "lib" in folders


@pytest.mark.heavy
def test_acl_h_is_found_by_the_asc_launch_and_by_the_cxx_binding(session, fake_toolchain):
    ft = fake_toolchain
    assert build_session(session, toolchain=detect(ft.env), env=ft.env).ok
    [plan] = ft.calls("cmake-plan")
    includes = plan["targets"]["gelu_ops"]["include_directories"]
    found = {lang: [d for d in dirs if (Path(d) / "acl" / "acl.h").is_file()] for lang, dirs in includes.items()}
    assert found["ASC"] == [str(ft.home / "include")]                              # CANN's own
    assert found["CXX"] == [str(ft.torch_npu / "include" / "third_party" / "acl" / "inc")]   # the copy torch_npu uses
    assert str(ft.torch_npu / "include") in includes["CXX"]                      # torch_npu/csrc/core/npu/NPUStream.h
    bundle = read_bundle(session / "ascendc")
    assert '#include "acl/acl.h"' in bundle["host/gelu_launch.cpp"]
    assert '#include "acl/acl.h"' in bundle["torch/gelu_torch.cpp"]


@pytest.mark.heavy
def test_lint_names_a_kernel_declared_in_one_asc_source_and_defined_in_another(session):
    bundle = read_bundle(session / "ascendc")
    cmake = bundle["CMakeLists.txt"].replace("    host/gelu_launch.cpp\n",
                                             "    kernel/gelu_kernel.cpp\n    host/gelu_launch.cpp\n")
    cmake = cmake.replace("set_source_files_properties(host/gelu_launch.cpp",
                          "set_source_files_properties(kernel/gelu_kernel.cpp host/gelu_launch.cpp")
    launch = bundle["host/gelu_launch.cpp"].replace(
        '#include "../kernel/gelu_kernel.cpp"',
        '#include "kernel_operator.h"\n'
        'extern "C" __global__ __aicore__ void gelu(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling);')
    split = bundle.with_files({"CMakeLists.txt": cmake, "host/gelu_launch.cpp": launch})  # the layout before the fix
    [warning] = [d for d in lint_sources(split) if "whole-program" in d["message"]]
    assert warning["file"] == "host/gelu_launch.cpp" and "defined in kernel/gelu_kernel.cpp" in warning["message"]
    assert "-dc" in warning["message"]
    dc = "target_compile_options(gelu_ops PRIVATE $<$<COMPILE_LANGUAGE:ASC>:-dc>)\n"
    separate = split.with_files({"CMakeLists.txt": cmake + dc})
    assert not [d for d in lint_sources(separate) if "whole-program" in d["message"]]


@pytest.mark.heavy
def test_preflight_refuses_a_kernel_compiled_twice(session):
    bundle = read_bundle(session / "ascendc")
    twice = bundle.with_files({"CMakeLists.txt": bundle["CMakeLists.txt"].replace(
        "    host/gelu_launch.cpp\n", "    kernel/gelu_kernel.cpp\n    host/gelu_launch.cpp\n")})
    errors = [d["message"] for d in preflight(twice) if d["severity"] == "error"]
    assert errors == ["compiles kernel/gelu_kernel.cpp on its own although host/gelu_launch.cpp includes it: "
                      "its definitions would be linked twice"]


@pytest.mark.heavy
def test_lint_names_stream_false_and_acl_h_without_its_include_folder(session):
    bundle = read_bundle(session / "ascendc")
    raw = bundle["torch/gelu_torch.cpp"].replace(".stream(true)", ".stream(false)")
    cmake = re.sub(r"target_include_directories\([^)]*\)", "target_include_directories(gelu_ops PRIVATE host)",
                   bundle["CMakeLists.txt"])
    messages = [(d["file"], d["message"]) for d in lint_sources(bundle.with_files({"torch/gelu_torch.cpp": raw,
                                                                                    "CMakeLists.txt": cmake}))]
    assert any(f == "torch/gelu_torch.cpp" and m.startswith("stream(false) returns the raw stream")
               for f, m in messages)
    assert {f for f, m in messages if 'includes "acl/acl.h"' in m} == {"host/gelu_launch.cpp", "torch/gelu_torch.cpp"}


@pytest.mark.heavy
def test_a_cmakelists_out_of_step_with_its_sources_stops_the_build_before_cmake(session, fake_toolchain):
    ft = fake_toolchain
    bundle = read_bundle(session / "ascendc")
    cmake = bundle["CMakeLists.txt"].replace("host/gelu_launch.cpp", "host/launch.cpp")
    broken = bundle.with_files({"CMakeLists.txt": cmake})
    result = build_project(session / "ascendc", session / "build", bundle=broken, toolchain=detect(ft.env), env=ft.env)
    assert result.status == "preflight-error"
    errors = [d["message"] for d in result.diagnostics if d["severity"] == "error"]
    assert "lists host/launch.cpp, which the project does not have" in errors
    assert "host/gelu_launch.cpp is in the project but no target compiles it" in errors
    assert ft.calls("cmake") == []


@pytest.mark.heavy
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


def test_lint_names_a_mixed_target_without_the_asc_linker_or_the_toolkits_lib64():
    unlinked = """find_package(ASC REQUIRED)
project(demo LANGUAGES ASC CXX)
set_source_files_properties(kernel/k.cpp PROPERTIES LANGUAGE ASC)
add_library(ops SHARED kernel/k.cpp torch/t.cpp)
target_link_directories(ops PRIVATE ${TORCH_NPU_PATH}/lib)
target_link_libraries(ops PRIVATE ascendcl torch_npu ${TORCH_NPU_PATH})
"""
    messages = [d["message"] for d in lint_cmake(unlinked)]
    assert any(m.startswith("ops mixes ASC and C++ sources but does not set LINKER_LANGUAGE ASC") for m in messages)
    assert any(m.startswith("ops links ascendcl but has no link folder for the toolkit's lib64") for m in messages)


def test_lint_accepts_the_documented_find_package_asc_layout():
    documented = """cmake_minimum_required(VERSION 3.16)
set(CMAKE_ASC_ARCHITECTURES "dav-2201" CACHE STRING "NPU architecture")
find_package(ASC REQUIRED)
project(demo LANGUAGES ASC CXX)
set_source_files_properties(kernel/k.cpp PROPERTIES LANGUAGE ASC)
add_library(ops SHARED kernel/k.cpp torch/t.cpp)
set_target_properties(ops PROPERTIES LINKER_LANGUAGE ASC)
target_include_directories(ops PRIVATE ${TORCH_NPU_PATH}/include)
target_link_directories(ops PRIVATE ${TORCH_NPU_PATH}/lib ${ASCEND_HOME_PATH}/lib64)
target_link_libraries(ops PRIVATE ascendcl torch_npu)
target_compile_options(ops PRIVATE $<$<COMPILE_LANGUAGE:ASC>:--npu-arch=${CMAKE_ASC_ARCHITECTURES}>)
"""
    assert lint_cmake(documented) == []
    # CANN's CMake guide and every ASC sample pass --npu-arch; the ASC package does not add it
    without = documented.replace("target_compile_options(ops PRIVATE $<$<COMPILE_LANGUAGE:ASC>:--npu-arch="
                                 "${CMAKE_ASC_ARCHITECTURES}>)\n", "")
    assert [d["message"].split(":")[0] for d in lint_cmake(without)] == [
        "no target_compile_options passes --npu-arch to the ASC sources"]


@pytest.mark.heavy
def test_a_toolkit_found_through_ascend_toolkit_home_is_exported_as_ascend_home_path(session, fake_toolchain):
    ft = fake_toolchain
    env = {k: v for k, v in ft.env.items() if k != "ASCEND_HOME_PATH"}
    env["ASCEND_TOOLKIT_HOME"] = str(ft.home)
    result = build_session(session, toolchain=detect(env), env=env)
    assert result.ok
    assert {c["ASCEND_HOME_PATH"] for c in ft.calls("cmake")} == {str(ft.home)}   # CANN's CMake modules read it
