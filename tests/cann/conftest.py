"""Fixtures of the CANN backend tests: a lowered gelu session and a test-double NPU toolchain.

The fake toolchain is a tmp tree shaped like a CANN install (ASCEND_HOME_PATH with
compiler/ccec_compiler/bin/bisheng, <arch>-linux/lib64/cmake/ASC/ASCConfig.cmake, include/acl/acl.h
and lib64/libascendcl.so), a `cmake` script first on PATH and a `torch_npu` package on sys.path
(with the include/, include/third_party/acl/inc and lib/ folders the wheel ships). The scripts
compile nothing: they append their argv to a JSON-lines log, and `cmake --build` creates the
shared library the project's CMakeLists declares (or prints a compiler error when
FAKE_COMPILE_ERROR=path:line). Before that, `cmake --build` logs the build CMake would run for
each target ("cmake-plan"): every source's language, the include and link folders with the
configure's -D values substituted (per language where a $<COMPILE_LANGUAGE:...> says so), and
the linker language: LINKER_LANGUAGE when set, else CXX when the target has a C++ source (CXX
is the only one of its languages with a linker preference; CANN's package gives ASC none).

The toolkit's libascendcl.so is a small g++-built double exporting the two ACL calls the run
makes (aclGetDeviceCapability, aclrtGetSocName); it answers from FAKE_ACL_VECTOR_CORES,
FAKE_ACL_AI_CORES and FAKE_ACL_SOC_NAME, and fails (aclError 107001) when they are unset.
"""
from __future__ import annotations

import json
import os
import platform
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"

_FAKE_CMAKE = r'''#!{python}
"""Test double of cmake: records its arguments and the build it would run, compiles nothing."""
import json, os, re, sys
from pathlib import Path
from ascendcraft_lab.backends.cann.build import asc_sources, cmake_calls

KEYWORDS = {{"PRIVATE", "PUBLIC", "INTERFACE", "SYSTEM", "BEFORE", "AFTER", "SHARED", "STATIC", "MODULE"}}


def plan(src, cache):
    """What CMake would build: per target, each source's language, the include folders per language,
    the link folders and the linker language, with ${{VAR}} / $ENV{{VAR}} substituted."""
    calls = cmake_calls((src / "CMakeLists.txt").read_text())
    values = {{c.args[0]: c.args[1] for c in calls if c.name == "set" and len(c.args) > 1}}
    values.update(cache)

    def expand(arg):
        arg = re.sub(r"\$ENV\{{(\w+)\}}", lambda m: os.environ.get(m.group(1), ""), arg)
        return re.sub(r"\$\{{(\w+)\}}", lambda m: values.get(m.group(1), ""), arg)

    def folder(arg):
        return arg if arg.startswith("/") else str(src / arg)

    asc = asc_sources((src / "CMakeLists.txt").read_text())
    targets = {{}}
    for c in calls:
        if c.name == "add_library":
            sources = {{a: ("ASC" if a in asc else "CXX") for a in c.args[1:] if a not in KEYWORDS}}
            targets[c.args[0]] = {{"sources": sources, "include_directories": {{"ASC": [], "CXX": []}},
                                  "link_directories": [], "link_libraries": [],
                                  "linker_language": "CXX" if "CXX" in sources.values() else "ASC"}}
    for c in calls:
        t = targets.get(c.args[0]) if c.args else None
        if t is None:
            continue
        args = [a for a in c.args[1:] if a not in KEYWORDS]
        if c.name == "target_include_directories":
            for a in args:
                m = re.fullmatch(r"\$<\$<COMPILE_LANGUAGE:(\w+)>:(.*)>", a)
                for lang in ([m.group(1)] if m else ["ASC", "CXX"]):
                    t["include_directories"].setdefault(lang, []).append(folder(expand(m.group(2) if m else a)))
        elif c.name == "target_link_directories":
            t["link_directories"] += [folder(expand(a)) for a in args]
        elif c.name == "target_link_libraries":
            t["link_libraries"] += [expand(a) for a in args]
        elif c.name == "set_target_properties" and "LINKER_LANGUAGE" in args:
            t["linker_language"] = args[args.index("LINKER_LANGUAGE") + 1]
    return targets


argv = sys.argv[1:]
with open(os.environ["FAKE_TOOL_LOG"], "a") as log:
    log.write(json.dumps({{"tool": "cmake", "argv": argv, "cwd": os.getcwd(),
                           "ASCEND_HOME_PATH": os.environ.get("ASCEND_HOME_PATH")}}) + "\n")
if argv[:1] == ["--version"]:
    print("cmake version 3.28.0 (test double)")
    sys.exit(0)
if "-S" in argv:
    src, build = argv[argv.index("-S") + 1], argv[argv.index("-B") + 1]
    Path(build).mkdir(parents=True, exist_ok=True)
    (Path(build) / "fake_source_dir").write_text(src)
    defines = dict(a[2:].split("=", 1) for a in argv if a.startswith("-D") and "=" in a)
    (Path(build) / "fake_cache.json").write_text(json.dumps(defines))
    print("-- Configuring done (test double)")
    sys.exit(0)
if argv[:1] == ["--build"]:
    build = Path(argv[1])
    src = Path((build / "fake_source_dir").read_text())
    with open(os.environ["FAKE_TOOL_LOG"], "a") as log:
        cache = json.loads((build / "fake_cache.json").read_text())
        log.write(json.dumps({{"tool": "cmake-plan", "targets": plan(src, cache)}}) + "\n")
    error = os.environ.get("FAKE_COMPILE_ERROR")
    if error:
        rel, line = error.rsplit(":", 1)
        print(f"[ 50%] Building ASC object {{rel}}.o")
        print(f"{{src / rel}}:{{line}}:9: error: use of undeclared identifier 'bogus'", file=sys.stderr)
        print("1 error generated.", file=sys.stderr)
        sys.exit(2)
    for name in re.findall(r"add_library\(\s*(\w+)\s+SHARED", (src / "CMakeLists.txt").read_text()):
        (build / f"lib{{name}}.so").write_bytes(b"\x7fELF test double")
    print("[100%] Built target (test double)")
    sys.exit(0)
sys.exit(1)
'''

_FAKE_BISHENG = r'''#!{python}
"""Test double of bisheng: records its arguments, compiles nothing."""
import json, os, sys
with open(os.environ["FAKE_TOOL_LOG"], "a") as log:
    log.write(json.dumps({{"tool": "bisheng", "argv": sys.argv[1:]}}) + "\n")
print("BiSheng Compiler 1.0.0 (test double)")
'''


def _script(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text.format(python=sys.executable))
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


@dataclass
class FakeToolchain:
    root: Path
    home: Path
    asc_dir: Path
    bisheng: Path
    torch_npu: Path
    log_path: Path
    env: dict
    dev_dir: Path          # holds davinci0: an NPU "visible"
    no_dev_dir: Path       # holds nothing

    def calls(self, tool: str | None = None) -> list[dict]:
        if not self.log_path.exists():
            return []
        rows = [json.loads(l) for l in self.log_path.read_text().splitlines() if l.strip()]
        return [r for r in rows if tool is None or r["tool"] == tool]


_FAKE_ACL = r'''// Test double of libascendcl.so: the two ACL calls a run makes, answered from the environment.
#include <cstdint>
#include <cstdlib>
extern "C" int aclGetDeviceCapability(uint32_t deviceId, int deviceInfo, int64_t *value) {
    const char *v = std::getenv(deviceInfo == 1 ? "FAKE_ACL_VECTOR_CORES" : "FAKE_ACL_AI_CORES");
    if (deviceId != 0 || v == nullptr) return 107001;
    *value = std::atoll(v);
    return 0;
}
extern "C" const char *aclrtGetSocName() { return std::getenv("FAKE_ACL_SOC_NAME"); }
'''


@pytest.fixture(scope="session")
def fake_acl_library(tmp_path_factory) -> Path:
    """The libascendcl.so double, built once with g++."""
    folder = tmp_path_factory.mktemp("fake-acl")
    (folder / "acl.cpp").write_text(_FAKE_ACL)
    lib = folder / "libascendcl.so"
    subprocess.run(["g++", "-std=c++17", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", str(folder / "acl.cpp"),
                    "-o", str(lib)], check=True, capture_output=True, text=True)
    return lib


@pytest.fixture
def fake_toolchain(tmp_path, monkeypatch, fake_acl_library) -> FakeToolchain:
    ft = build_fake_toolchain(tmp_path, fake_acl_library)
    monkeypatch.syspath_prepend(str(ft.torch_npu.parent))
    return ft


@pytest.fixture(scope="session")
def make_fake_toolchain(fake_acl_library):
    """For module-scoped fixtures: `make_fake_toolchain(tmp)` builds one (torch_npu's folder is not put on
    sys.path: a child process gets it through PYTHONPATH)."""
    return lambda tmp: build_fake_toolchain(tmp, fake_acl_library)


def build_fake_toolchain(tmp_path: Path, fake_acl_library: Path) -> FakeToolchain:
    root = tmp_path / "toolchain"
    home = root / "Ascend" / "cann"
    bisheng = home / "compiler" / "ccec_compiler" / "bin" / "bisheng"
    _script(bisheng, _FAKE_BISHENG)
    asc_dir = home / f"{platform.machine()}-linux" / "lib64" / "cmake" / "ASC"
    asc_dir.mkdir(parents=True)
    (asc_dir / "ASCConfig.cmake").write_text("# test double of CANN's AscendC CMake package\n")
    (home / "set_env.sh").write_text("export ASCEND_HOME_PATH=" + str(home) + "\n")
    install_info = home / f"{platform.machine()}-linux" / "ascend_toolkit_install.info"
    install_info.write_text("package_name=Ascend-cann-toolkit\nversion=9.0.0\n")
    (home / "include" / "acl").mkdir(parents=True)
    (home / "include" / "acl" / "acl.h").write_text("// test double of CANN's acl/acl.h\n")
    (home / "lib64").mkdir()
    shutil.copy(fake_acl_library, home / "lib64" / "libascendcl.so")
    _script(root / "bin" / "cmake", _FAKE_CMAKE)
    site = root / "site"
    (site / "torch_npu").mkdir(parents=True)
    (site / "torch_npu" / "__init__.py").write_text('"""Test double: only found, never imported."""\n')
    acl_inc = site / "torch_npu" / "include" / "third_party" / "acl" / "inc" / "acl"
    acl_inc.mkdir(parents=True)
    (acl_inc / "acl.h").write_text("// torch_npu's copy\n")
    (site / "torch_npu" / "lib").mkdir()
    (site / "torch_npu" / "lib" / "libtorch_npu.so").write_bytes(b"\x7fELF test double")
    dev, no_dev = root / "dev", root / "nodev"
    dev.mkdir()
    no_dev.mkdir()
    (dev / "davinci0").write_text("")
    log = root / "calls.jsonl"
    env = {"PATH": f"{root / 'bin'}{os.pathsep}/usr/bin{os.pathsep}/bin", "ASCEND_HOME_PATH": str(home),
           "FAKE_TOOL_LOG": str(log), "HOME": str(tmp_path)}
    return FakeToolchain(root, home, asc_dir, bisheng, site / "torch_npu", log, env, dev, no_dev)


@pytest.fixture(scope="session")
def gelu_session(tmp_path_factory) -> Path:
    """The gelu example lowered through all four passes into a session folder."""
    from ascendcraft_lab.session import Session
    folder = tmp_path_factory.mktemp("cann-session") / "gelu"
    Session.open(folder, (FIXTURES / "gelu.dsl.py").read_text(), reference=FIXTURES / "gelu.py",
                 accept_all=True, dsl_name="gelu.dsl.py")
    return folder
