"""A CANN toolkit for the real CMake: what a generated project's build reads is decided by CMake itself.

`fake_toolchain` (conftest.py) replaces cmake with a script that reads the CMakeLists with the project's
own parser; that cannot catch what that parser misreads. This double keeps the real `cmake` (and make)
and replaces only what needs an NPU toolkit:

- `ASCConfig.cmake` (what `find_package(ASC)` loads) registers an `ASC` language whose compiler is the
  toolkit's `bisheng`: compile `<DEFINES> <INCLUDES> <FLAGS> -o <OBJECT> -c <SOURCE>`, link with
  `-shared`. CMake itself evaluates the generator expressions, the source languages, the include folders
  per language, the compile options and the linker language, and writes the command lines;
- `bisheng` records each command line, and for a compile runs `g++ -M` (the preprocessor only) with the
  `-I` / `-D` / `-std` it was given plus the emulator's headers standing in for CANN's device headers
  (`kernel_operator.h`): an include the build's folders cannot resolve fails the build as bisheng would;
- the host C++ compiler is g++ itself, except that a source of the project is only preprocessed (`g++
  -M`), against PyTorch's real headers and the torch_npu / ACL stand-ins of `fixtures/npu_stubs`.

Objects and libraries are empty files: nothing here says the code compiles for the NPU, only that the
build CMake runs hands every source its architecture, its include folders and its compile options.
"""
from __future__ import annotations

import json
import os
import platform
import shutil
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

from ascendcraft_lab.backends.emulator.runner import INCLUDE_DIR

STUBS = Path(__file__).parent / "fixtures" / "npu_stubs"

ASC_CONFIG = """# Test double of CANN's AscendC CMake package: the ASC language, compiled by the toolkit's bisheng.
list(APPEND CMAKE_MODULE_PATH "${CMAKE_CURRENT_LIST_DIR}/modules")
set(ASC_FOUND TRUE)
"""
DETERMINE = """find_program(CMAKE_ASC_COMPILER NAMES bisheng REQUIRED)
configure_file(${CMAKE_CURRENT_LIST_DIR}/CMakeASCCompiler.cmake.in
               ${CMAKE_PLATFORM_INFO_DIR}/CMakeASCCompiler.cmake @ONLY)
set(CMAKE_ASC_COMPILER_ENV_VAR "ASC")
"""
COMPILER_IN = """set(CMAKE_ASC_COMPILER "@CMAKE_ASC_COMPILER@")
set(CMAKE_ASC_COMPILER_LOADED 1)
set(CMAKE_ASC_SOURCE_FILE_EXTENSIONS asc)
set(CMAKE_ASC_OUTPUT_EXTENSION .o)
set(CMAKE_ASC_COMPILER_ENV_VAR "ASC")
"""
INFORMATION = """set(CMAKE_INCLUDE_FLAG_ASC "-I")
set(CMAKE_ASC_COMPILE_OBJECT "<CMAKE_ASC_COMPILER> <DEFINES> <INCLUDES> <FLAGS> -o <OBJECT> -c <SOURCE>")
set(CMAKE_SHARED_LIBRARY_CREATE_ASC_FLAGS "-shared")
set(CMAKE_ASC_CREATE_SHARED_LIBRARY "<CMAKE_ASC_COMPILER> <CMAKE_SHARED_LIBRARY_CREATE_ASC_FLAGS> <LINK_FLAGS>")
string(APPEND CMAKE_ASC_CREATE_SHARED_LIBRARY " -o <TARGET> <OBJECTS> <LINK_LIBRARIES>")
set(CMAKE_ASC_INFORMATION_LOADED 1)
"""
TEST = """set(CMAKE_ASC_COMPILER_WORKS 1 CACHE INTERNAL "")
"""

_RECORD = '''
def record(tool, argv):
    log = os.environ.get("FAKE_TOOL_LOG")
    if log:
        with open(log, "a") as f:
            f.write(json.dumps({{"tool": tool, "argv": argv, "cwd": os.getcwd()}}) + "\\n")
'''

BISHENG = '''#!{python}
"""Test double of bisheng under the real CMake: records, preprocesses with g++, writes empty outputs."""
import json, os, subprocess, sys
from pathlib import Path
''' + _RECORD + '''
argv = sys.argv[1:]
record("bisheng", argv)
if argv[:1] == ["--version"]:
    print("BiSheng Compiler 1.0.0 (test double)")
    sys.exit(0)
if "-c" in argv:
    source = argv[argv.index("-c") + 1]
    keep, i = [], 0
    while i < len(argv):
        a = argv[i]
        if a in ("-I", "-isystem", "-D") and i + 1 < len(argv):
            keep += [a, argv[i + 1]]
            i += 2
            continue
        if a.startswith(("-I", "-D", "-isystem", "-std=")):
            keep.append(a)
        i += 1
    device = [f"-I{{d}}" for d in os.environ.get("FAKE_DEVICE_INCLUDE", "").split(os.pathsep) if d]
    cmd = ["g++", "-std=c++17", "-M", "-x", "c++"] + keep + device + [source]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.stderr.write(r.stderr)
        sys.exit(1)
Path(argv[argv.index("-o") + 1]).write_bytes(b"")
'''

CXX = '''#!{python}
"""Test double of the host C++ compiler: g++, except that a source of the project is only preprocessed."""
import json, os, subprocess, sys
from pathlib import Path
''' + _RECORD + '''
argv = sys.argv[1:]
project = os.environ.get("FAKE_PROJECT", "")
source = argv[argv.index("-c") + 1] if "-c" in argv[:-1] else ""
if not (project and source and str(Path(source).resolve()).startswith(project)):
    os.execvp("g++", ["g++"] + argv)
record("c++", argv)
keep, skip = [], 0
for a in argv:
    if skip:
        skip -= 1
    elif a in ("-o", "-MT", "-MF"):
        skip = 1
    elif a not in ("-c", "-MD"):
        keep.append(a)
r = subprocess.run(["g++", "-M"] + keep, capture_output=True, text=True)
if r.returncode:
    sys.stderr.write(r.stderr)
    sys.exit(1)
Path(argv[argv.index("-o") + 1]).write_bytes(b"")
'''


def _script(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text.format(python=sys.executable))
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


@dataclass
class CMakeToolkit:
    home: Path
    asc_dir: Path
    torch_npu: Path
    log_path: Path
    bin: Path

    def env(self, project: Path) -> dict:
        """The environment of a build of `project` (its sources are the ones only preprocessed)."""
        return {"PATH": f"{self.bin}{os.pathsep}{self.home / 'compiler' / 'ccec_compiler' / 'bin'}{os.pathsep}"
                        f"/usr/local/bin{os.pathsep}/usr/bin{os.pathsep}/bin",
                "ASCEND_HOME_PATH": str(self.home), "FAKE_TOOL_LOG": str(self.log_path),
                "FAKE_PROJECT": str(project.resolve()), "FAKE_DEVICE_INCLUDE": str(INCLUDE_DIR),
                "CXX": str(self.bin / "c++"), "HOME": os.environ.get("HOME", "/tmp")}

    def calls(self, tool: str) -> list[dict]:
        if not self.log_path.exists():
            return []
        rows = [json.loads(line) for line in self.log_path.read_text().splitlines() if line.strip()]
        return [r for r in rows if r["tool"] == tool]

    def compiles(self, tool: str) -> dict[str, list[str]]:
        """source path -> the command line CMake gave `tool` to compile it."""
        return {c["argv"][c["argv"].index("-c") + 1]: c["argv"] for c in self.calls(tool) if "-c" in c["argv"]}


def make_toolkit(root: Path, version: str = "9.0.0") -> CMakeToolkit:
    """A CANN-shaped tree under `root` for the real cmake (see the module docstring)."""
    home = root / "Ascend" / "cann"
    _script(home / "compiler" / "ccec_compiler" / "bin" / "bisheng", BISHENG)
    arch = f"{platform.machine()}-linux"
    asc_dir = home / arch / "lib64" / "cmake" / "ASC"
    (asc_dir / "modules").mkdir(parents=True)
    (asc_dir / "ASCConfig.cmake").write_text(ASC_CONFIG)
    for name, text in (("CMakeDetermineASCCompiler.cmake", DETERMINE), ("CMakeASCCompiler.cmake.in", COMPILER_IN),
                       ("CMakeASCInformation.cmake", INFORMATION), ("CMakeTestASCCompiler.cmake", TEST)):
        (asc_dir / "modules" / name).write_text(text)
    (home / arch / "ascend_toolkit_install.info").write_text(f"package_name=Ascend-cann-toolkit\nversion={version}\n")
    (home / "include" / "acl").mkdir(parents=True)
    shutil.copy(INCLUDE_DIR / "acl" / "acl.h", home / "include" / "acl" / "acl.h")   # the emulator's ACL header
    (home / "lib64").mkdir()
    torch_npu = root / "site" / "torch_npu"
    shutil.copytree(STUBS / "torch_npu", torch_npu / "include" / "torch_npu")
    acl_inc = torch_npu / "include" / "third_party" / "acl" / "inc" / "acl"
    acl_inc.mkdir(parents=True)
    shutil.copy(STUBS / "acl" / "acl.h", acl_inc / "acl.h")
    (torch_npu / "lib").mkdir()
    (torch_npu / "__init__.py").write_text('"""Test double: only found, never imported."""\n')
    _script(root / "bin" / "c++", CXX)
    return CMakeToolkit(home, asc_dir, torch_npu, root / "calls.jsonl", root / "bin")
