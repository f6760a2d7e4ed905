"""Build a session's AscendC project with CANN's CMake package (bisheng), and map its errors back.

Not yet run on hardware by the project: the commands follow CANN's documentation and samples
(see `backends/cann/__init__.py`), and the tests check them against a test-double toolchain.

The steps, all from the project folder `<session>/ascendc` into `<session>/build`:

1. preflight: the CMakeLists must list every kernel/host/torch source the bundle has and no
   file it lacks; warnings name patterns the CANN docs say do not work (see `lint_cmake`);
2. configure: `cmake -S ascendc -B build -DCMAKE_ASC_ARCHITECTURES=<arch of the SoC>` plus
   where the AscendC CMake package, PyTorch's CMake package, Python and torch_npu are;
3. build: `cmake --build build --parallel N`;
4. the shared library the CMakeLists declares (`add_library(<name> SHARED ...)` ->
   `lib<name>.so`), which registers `torch.ops.ascendcraft.<entry>` when loaded.

Compiler messages (bisheng is clang-based: `file:line:col: error: ...`) are parsed like the
emulator's g++ messages and given the bundle path and DSL line of the failing line.
"""
from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from ...passes.bundle import Bundle
from ...soc import get_soc
from .detect import Toolchain, detect, refuse_reason

SOURCE_EXTS = (".cpp", ".cc", ".cxx", ".c", ".asc")
SOURCE_COMMANDS = ("ascendc_library", "add_library", "add_executable", "target_sources")


@dataclass
class BuildResult:
    status: str                 # ok | refused | preflight-error | configure-error | build-error | no-library
    message: str
    commands: list[list[str]] = field(default_factory=list)
    library: str | None = None
    diagnostics: list[dict] = field(default_factory=list)   # {file, line, col, severity, message, dsl_line}
    versions: dict[str, str] = field(default_factory=dict)
    log: str = ""               # the tail of the failing step's output
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_json(self) -> dict:
        return dict(self.__dict__)


# ----------------------------------------------------------------------------- reading CMakeLists


@dataclass(frozen=True)
class CMakeCall:
    name: str
    args: tuple[str, ...]
    line: int


def cmake_calls(text: str) -> list[CMakeCall]:
    """The command invocations of a CMakeLists (`name(args...)`), comments dropped, with lines."""
    clean = re.sub(r"#[^\n]*", "", text)
    calls = []
    for m in re.finditer(r"(?m)^[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*\(", clean):
        depth, i = 1, m.end()
        while i < len(clean) and depth:
            depth += {"(": 1, ")": -1}.get(clean[i], 0)
            i += 1
        body = clean[m.end():i - 1]
        args = tuple(a.strip('"') for a in re.findall(r'"[^"]*"|[^\s]+', body))
        calls.append(CMakeCall(m.group(1).lower(), args, clean.count("\n", 0, m.start()) + 1))
    return calls


def cmake_sources(text: str) -> dict[str, int]:
    """Every source file a target of the CMakeLists compiles, with the line that lists it."""
    found: dict[str, int] = {}
    for call in cmake_calls(text):
        if call.name in SOURCE_COMMANDS:
            for a in call.args:
                if a.endswith(SOURCE_EXTS) and "$" not in a:
                    found.setdefault(a.removeprefix("./"), call.line)
    return found


def shared_libraries(text: str) -> list[str]:
    """File names of the shared libraries the CMakeLists builds (`lib<target>.so`)."""
    return [f"lib{c.args[0]}.so" for c in cmake_calls(text)
            if c.name in ("add_library", "ascendc_library") and len(c.args) > 1 and c.args[1] == "SHARED"]


def lint_cmake(text: str) -> list[dict]:
    """Patterns in a CMakeLists that CANN's documentation says will not work (warnings).

    - `find_package(ASC)` must come before `project()`, and `project()` must enable the ASC
      language (CANN 9.x "Compilation Using CMake"; the asc-devkit torch_library sample);
    - `ascendc_library()` is defined by the older `include(${ASCENDC_CMAKE_DIR}/ascendc.cmake)`
      flow (CANN runtime sample 4_custom_kernel_launch), not by `find_package(ASC)`;
    - with `find_package(ASC)`, a kernel `.cpp` in `add_library` is compiled by bisheng only
      when marked `LANGUAGE ASC` (`.asc` files are by default);
    - linking `torch_npu` needs torch_npu's `include/` and `lib/` folders, which no CMake
      package provides (the torch_library sample adds `${TORCH_NPU_PATH}/include` and `/lib`).
    """
    calls = cmake_calls(text)
    out = []

    def warn(line: int, msg: str) -> None:
        out.append({"file": "CMakeLists.txt", "line": line, "col": 0, "severity": "warning", "message": msg})

    find_asc = next((c for c in calls if c.name == "find_package" and c.args and c.args[0] == "ASC"), None)
    project = next((c for c in calls if c.name == "project"), None)
    links_npu = any(c.name == "target_link_libraries" and "torch_npu" in c.args for c in calls)
    if links_npu and "TORCH_NPU" not in text:
        line = next(c.line for c in calls if c.name == "target_link_libraries" and "torch_npu" in c.args)
        warn(line, "links torch_npu but never adds torch_npu's include/ and lib/ folders; the build passes "
                   "-DTORCH_NPU_PATH=<torch_npu package>: add ${TORCH_NPU_PATH}/include and ${TORCH_NPU_PATH}/lib")
    if find_asc is None:
        return out
    if project is not None:
        if project.line < find_asc.line:
            warn(find_asc.line, "find_package(ASC) comes after project(); CANN's CMake guide calls it first")
        if "ASC" not in project.args:
            warn(project.line, "project() does not enable the ASC language: use project(NAME LANGUAGES ASC CXX)")
    for c in calls:
        if c.name == "ascendc_library":
            warn(c.line, "ascendc_library() comes from CANN's ascendc.cmake (include(${ASCENDC_CMAKE_DIR}/ascendc.cmake)), "
                         "not from find_package(ASC); with find_package(ASC) use add_library on ASC-language sources")
    marked = {a for c in calls if c.name == "set_source_files_properties" and "ASC" in c.args for a in c.args}
    for c in calls:
        if c.name in ("add_library", "add_executable", "target_sources"):
            for a in c.args:
                if a.startswith("kernel/") and a.endswith(".cpp") and a not in marked:
                    warn(c.line, f"{a} is not marked LANGUAGE ASC (set_source_files_properties(... PROPERTIES "
                                 "LANGUAGE ASC)), so the host C++ compiler, not bisheng, would compile it")
    return out


def lint_kernel(path: str, text: str) -> list[dict]:
    """GET_TILING_DATA / REGISTER_TILING_DEFAULT: their API pages say "the kernel launch project
    is not supported", and this project launches the kernel directly (ACLRT_LAUNCH_KERNEL)."""
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        m = re.search(r"\b(GET_TILING_DATA|REGISTER_TILING_DEFAULT)\b", line)
        if m:
            out.append({"file": path, "line": i, "col": m.start() + 1, "severity": "warning",
                        "message": f"{m.group(1)} is documented as unsupported in kernel launch projects; pass the "
                                   "tiling fields as kernel arguments (or copy the struct from the GM pointer)"})
    return out


def preflight(bundle: Bundle) -> list[dict]:
    """Errors when the CMakeLists and the bundle disagree about sources; doc-based warnings."""
    text = bundle.files.get("CMakeLists.txt")
    if text is None:
        return [{"file": "CMakeLists.txt", "line": 0, "col": 0, "severity": "error", "message": "the project has no CMakeLists.txt"}]
    listed = cmake_sources(text)
    out = []
    for src, line in listed.items():
        if src not in bundle.files:
            out.append({"file": "CMakeLists.txt", "line": line, "col": 0, "severity": "error",
                        "message": f"lists {src}, which the project does not have"})
    for path in bundle.files:
        if path.endswith(SOURCE_EXTS) and path not in listed:
            out.append({"file": "CMakeLists.txt", "line": 0, "col": 0, "severity": "error",
                        "message": f"{path} is in the project but no target compiles it"})
    if not shared_libraries(text):
        out.append({"file": "CMakeLists.txt", "line": 0, "col": 0, "severity": "error",
                    "message": "no add_library(NAME SHARED ...): nothing for torch.ops.load_library to load"})
    for path, t in bundle.files.items():
        if path.startswith("kernel/"):
            out += lint_kernel(path, t)
    return out + lint_cmake(text)


# ----------------------------------------------------------------------------- commands


def torch_cmake_prefix() -> str | None:
    """PyTorch's CMake package folder (what torch.utils.cmake_prefix_path returns), without importing torch."""
    spec = importlib.util.find_spec("torch")
    return str(Path(spec.origin).parent / "share" / "cmake") if spec and spec.origin else None


def configure_command(tc: Toolchain, project: Path, build: Path, arch: str) -> list[str]:
    prefixes = [str(tc.asc_cmake_dir)] + [p for p in [torch_cmake_prefix()] if p]
    cmd = [str(tc.cmake), "-S", str(project), "-B", str(build),
           f"-DCMAKE_ASC_ARCHITECTURES={arch}",
           "-DCMAKE_BUILD_TYPE=Release",
           f"-DASC_DIR={tc.asc_cmake_dir}",
           f"-DCMAKE_PREFIX_PATH={';'.join(prefixes)}",
           f"-DPython3_EXECUTABLE={sys.executable}"]
    if tc.torch_npu is not None:
        cmd.append(f"-DTORCH_NPU_PATH={tc.torch_npu}")
    return cmd


def build_command(tc: Toolchain, build: Path, jobs: int | None = None) -> list[str]:
    return [str(tc.cmake), "--build", str(build), "--parallel", str(jobs or os.cpu_count() or 2)]


def tool_versions(tc: Toolchain, env: Mapping[str, str]) -> dict[str, str]:
    """First line of `bisheng --version` and `cmake --version`: what a bug report needs."""
    out = {}
    for name, exe in (("bisheng", tc.bisheng), ("cmake", tc.cmake)):
        try:
            r = subprocess.run([str(exe), "--version"], capture_output=True, text=True, timeout=30, env=dict(env))
            out[name] = (r.stdout or r.stderr).strip().splitlines()[0] if (r.stdout or r.stderr).strip() else "unknown"
        except (OSError, subprocess.TimeoutExpired) as exc:
            out[name] = f"unavailable ({type(exc).__name__})"
    return out


# ----------------------------------------------------------------------------- diagnostics


def map_diagnostics(diags: list[dict], project: Path, bundle: Bundle | None) -> list[dict]:
    """Give each compiler message the bundle path of its file and the DSL line behind it."""
    by_name: dict[str, list[str]] = {}
    for p in (bundle.files if bundle else []):
        by_name.setdefault(Path(p).name, []).append(p)
    out = []
    for d in diags:
        d = dict(d)
        f = d.get("file") or ""
        rel = None
        if f:
            try:
                rel = Path(f).resolve().relative_to(project.resolve()).as_posix()
            except ValueError:
                rel = None
            if (rel is None or (bundle and rel not in bundle.files)) and len(by_name.get(Path(f).name, [])) == 1:
                rel = by_name[Path(f).name][0]   # a copy of the file (CMake may stage kernel sources)
        if rel is not None:
            d["file"] = rel
        d["dsl_line"] = bundle.dsl_line(rel, int(d.get("line") or 0)) if bundle and rel in bundle.files else 0
        out.append(d)
    return out


def _tail(text: str, lines: int = 40) -> str:
    return "\n".join(text.splitlines()[-lines:])


# ----------------------------------------------------------------------------- the build


def build_project(project: str | Path, build: str | Path | None = None, *, soc: str | None = None,
                  bundle: Bundle | None = None, jobs: int | None = None, toolchain: Toolchain | None = None,
                  env: Mapping[str, str] | None = None, timeout: float = 3600) -> BuildResult:
    """Configure and build `project` (an AscendC project folder) into `build` (default: beside it)."""
    from ..emulator.runner import parse_diagnostics
    t0 = time.perf_counter()
    project = Path(project)
    build = Path(build) if build is not None else project.parent / "build"
    env = dict(os.environ if env is None else env)
    tc = toolchain if toolchain is not None else detect(env)
    reason = refuse_reason("build", tc)
    if reason:
        return BuildResult("refused", reason)
    if bundle is None:
        from ...passes.bundle import read_bundle
        bundle = read_bundle(project)
    problems = preflight(bundle)
    errors = [p for p in problems if p["severity"] == "error"]
    if errors:
        return BuildResult("preflight-error", f"the CMake project does not match its sources: {errors[0]['message']}",
                           diagnostics=problems, seconds=time.perf_counter() - t0)
    if tc.home_var != "ASCEND_HOME_PATH":      # CANN's CMake modules read $ENV{ASCEND_HOME_PATH}
        env["ASCEND_HOME_PATH"] = str(tc.home)
    arch = get_soc(soc).arch
    versions = tool_versions(tc, env)
    commands = [configure_command(tc, project, build, arch), build_command(tc, build, jobs)]
    build.mkdir(parents=True, exist_ok=True)
    for step, cmd in zip(("configure", "build"), commands):
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout, cwd=project.parent)
        except subprocess.TimeoutExpired:
            return BuildResult(f"{step}-error", f"cmake {step} timed out after {timeout:g} s", commands, None, problems,
                               versions, "", time.perf_counter() - t0)
        if r.returncode:
            output = (r.stdout or "") + "\n" + (r.stderr or "")
            diags = map_diagnostics(parse_diagnostics(output), project, bundle)
            first = next((d for d in diags if d["severity"] == "error"), None)
            where = f" at {first['file']}:{first['line']}" + (f" (DSL line {first['dsl_line']})" if first.get("dsl_line") else "") if first else ""
            msg = f"cmake {step} failed (exit {r.returncode})" + (f": {first['message']}{where}" if first else "")
            return BuildResult(f"{step}-error", msg, commands, None, problems + diags, versions, _tail(output),
                               time.perf_counter() - t0)
    names = shared_libraries(bundle.files["CMakeLists.txt"])
    libs = [p for n in names for p in sorted(build.rglob(n))]
    if not libs:
        return BuildResult("no-library", f"the build succeeded but produced no {' or '.join(names)} under {build}",
                           commands, None, problems, versions, "", time.perf_counter() - t0)
    return BuildResult("ok", f"built {libs[0]}", commands, str(libs[0]), problems, versions, "", time.perf_counter() - t0)


def render_build(result: BuildResult, program=None, limit: int = 10) -> str:
    """The result's message, then its errors and warnings in the shared diagnostic format."""
    from ...dsl.errors import Span, format_diagnostic
    lines = [result.message]
    shown = [d for d in result.diagnostics if d.get("severity") in ("error", "warning")][:limit]
    for d in shown:
        text = f"[bisheng] {d['message']} at {d.get('file')}:{d.get('line')}"
        if program is not None and d.get("dsl_line"):
            lines.append(format_diagnostic(program.path, program.source, Span.point(d["dsl_line"]), text,
                                           severity=d["severity"]))
        else:
            lines.append(f"{d['severity']}: {text}")
    return "\n".join(lines)
