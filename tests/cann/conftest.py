"""Fixtures of the CANN backend tests: a lowered gelu session and a test-double NPU toolchain.

The fake toolchain is a tmp tree shaped like a CANN install (ASCEND_HOME_PATH with
compiler/ccec_compiler/bin/bisheng and <arch>-linux/lib64/cmake/ASC/ASCConfig.cmake), a `cmake`
script first on PATH and a `torch_npu` package on sys.path. The scripts compile nothing: they
append their argv to a JSON-lines log, and `cmake --build` creates the shared library the
project's CMakeLists declares (or prints a compiler error when FAKE_COMPILE_ERROR=path:line).
"""
from __future__ import annotations

import json
import os
import platform
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"

_FAKE_CMAKE = r'''#!{python}
"""Test double of cmake: records its arguments, compiles nothing."""
import json, os, re, sys
from pathlib import Path
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
    print("-- Configuring done (test double)")
    sys.exit(0)
if argv[:1] == ["--build"]:
    build = Path(argv[1])
    src = Path((build / "fake_source_dir").read_text())
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


@pytest.fixture
def fake_toolchain(tmp_path, monkeypatch) -> FakeToolchain:
    root = tmp_path / "toolchain"
    home = root / "Ascend" / "cann"
    bisheng = home / "compiler" / "ccec_compiler" / "bin" / "bisheng"
    _script(bisheng, _FAKE_BISHENG)
    asc_dir = home / f"{platform.machine()}-linux" / "lib64" / "cmake" / "ASC"
    asc_dir.mkdir(parents=True)
    (asc_dir / "ASCConfig.cmake").write_text("# test double of CANN's AscendC CMake package\n")
    (home / "set_env.sh").write_text("export ASCEND_HOME_PATH=" + str(home) + "\n")
    _script(root / "bin" / "cmake", _FAKE_CMAKE)
    site = root / "site"
    (site / "torch_npu").mkdir(parents=True)
    (site / "torch_npu" / "__init__.py").write_text('"""Test double: only found, never imported."""\n')
    monkeypatch.syspath_prepend(str(site))
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
