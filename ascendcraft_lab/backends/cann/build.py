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
import posixpath
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Mapping

from ... import procs
from ...passes import cpp
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


def asc_sources(text: str) -> set[str]:
    """The sources bisheng compiles: `.asc` files and those marked `LANGUAGE ASC`."""
    calls = cmake_calls(text)
    marked = {a.removeprefix("./") for c in calls if c.name == "set_source_files_properties" and "ASC" in c.args
              for a in c.args if a.endswith(SOURCE_EXTS)}
    return marked | {s for s in cmake_sources(text) if s.endswith(".asc")}


def _include_dirs(text: str) -> list[str]:
    """The project-relative include folders of the CMakeLists' targets (not ${...} or generator expressions)."""
    keywords = ("PRIVATE", "PUBLIC", "INTERFACE", "SYSTEM", "BEFORE", "AFTER")
    return [a for c in cmake_calls(text) if c.name == "target_include_directories" for a in c.args[1:]
            if a not in keywords and not a.startswith(("$", "/"))]


def translation_units(bundle: Bundle, text: str | None = None) -> dict[str, list[str]]:
    """For every source the CMakeLists compiles, the bundle files its translation unit is made of:
    the source itself and, transitively, every project file it pulls in with `#include "..."`
    (looked up beside the including file, then in the targets' include folders)."""
    text = bundle.files.get("CMakeLists.txt", "") if text is None else text
    dirs = _include_dirs(text)

    def resolve(including: str, name: str) -> str | None:
        for base in [str(PurePosixPath(including).parent)] + dirs:
            candidate = posixpath.normpath(posixpath.join(base, name))
            if candidate in bundle.files:
                return candidate
        return None

    units = {}
    for source in cmake_sources(text):
        seen, todo = [], [source]
        while todo:
            path = todo.pop()
            if path in seen or path not in bundle.files:
                continue
            seen.append(path)
            for name in re.findall(r'(?m)^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', bundle.files[path]):
                found = resolve(path, name)
                if found is not None:
                    todo.append(found)
        units[source] = seen
    return units


GLOBAL_DECLARATION = re.compile(r"__global__[^;{}]*?\b(\w+)\s*\([^;{}]*\)\s*;")
GLOBAL_DEFINITION = re.compile(r"__global__[^;{}]*?\b(\w+)\s*\([^;{}]*\)\s*\{")


def lint_sources(bundle: Bundle) -> list[dict]:
    """What the sources do that working Ascend projects do not (warnings; each names its reference).

    - an ASC translation unit that declares a `__global__` kernel defined in another one: bisheng's
      default whole-program mode rejects unresolved device references unless every ASC source is
      compiled with `-dc` (asc-devkit 04_compile/01_separate_compile README);
    - `#include "acl/acl.h"` with no CANN or torch_npu ACL include folder on the include path;
    - `stream(false)`: torch_npu returns the raw stream without flushing its task queue, so work
      queued just before (a zeroed workspace, the tiling upload) may run after the kernel;
    - cross-core flags in an ASC unit that never calls SetSyncBaseAddr (nor uses CANN 9's
      `__mix__` kernel form): the flags' base address is not set by a <<<>>> launch (passes/kernel.py).
    """
    text = bundle.files.get("CMakeLists.txt", "")
    out = []

    def warn(path: str, line: int, msg: str) -> None:
        out.append({"file": path, "line": line, "col": 0, "severity": "warning", "message": msg})

    units = translation_units(bundle, text)
    code = {path: cpp.strip_comments(t) for path, t in bundle.files.items() if path != "CMakeLists.txt"}

    def defined(unit: list[str]) -> set[str]:
        return {name for path in unit for name in GLOBAL_DEFINITION.findall(code.get(path, ""))}

    asc = sorted(asc_sources(text))
    separate = re.search(r"(?<![\w-])-dc\b", re.sub(r"#[^\n]*", "", text)) is not None
    home = {name: source for source in asc for name in defined(units.get(source, []))}
    for source in [] if separate else asc:
        unit = units.get(source, [])
        own = defined(unit)
        for path in unit:
            for m in GLOBAL_DECLARATION.finditer(code.get(path, "")):
                name = m.group(1)
                if name not in own:
                    where = f" (defined in {home[name]})" if name in home else ""
                    warn(path, code[path].count("\n", 0, m.start()) + 1,
                         f"kernel {name} is declared here but defined in another translation unit{where}: bisheng's "
                         "whole-program mode rejects that; define and launch it in one ASC source, or compile every "
                         "ASC source with -dc")
    for source in asc:
        unit_code = "".join(code.get(path, "") for path in units.get(source, []))
        flags = re.search(r"\bCrossCore(Set|Wait)Flag\b", unit_code)
        if flags and "SetSyncBaseAddr" not in unit_code and "__mix__" not in unit_code:
            warn(source, 0, "the kernel waits on cross-core flags but never sets their base address: a <<<>>> launch "
                            "of a cube + vector kernel hangs at the first wait; pass the host's "
                            "aclrtGetHardwareSyncAddr value and call SetSyncBaseAddr before the first flag")
    cmake_code = re.sub(r"#[^\n]*", "", text)
    if "ASCEND_HOME_PATH}/include" not in cmake_code and "third_party/acl/inc" not in cmake_code:
        for path in sorted({path for unit in units.values() for path in unit}):
            if re.search(r'(?m)^[ \t]*#[ \t]*include[ \t]*"acl/acl\.h"', bundle.files[path]):
                warn(path, 0, 'includes "acl/acl.h" but the CMakeLists puts neither ${ASCEND_HOME_PATH}/include nor '
                              "torch_npu's include/third_party/acl/inc on the include path")
    for path, body in code.items():
        for i, line in enumerate(body.splitlines(), 1):
            if re.search(r"\.stream\(\s*false\s*\)", line):
                warn(path, i, "stream(false) returns the raw stream without flushing torch_npu's task queue: "
                              "work queued just before (zeroing, uploads) may reach the stream after the kernel; "
                              "call stream(true) last before the launch")
    return out


def lint_cmake(text: str) -> list[dict]:
    """Patterns in a CMakeLists that CANN's documentation says will not work (warnings).

    - `find_package(ASC)` must come before `project()`, and `project()` must enable the ASC
      language (CANN 9.x "Compilation Using CMake"; the asc-devkit torch_library sample);
    - `ascendc_library()` is defined by the older `include(${ASCENDC_CMAKE_DIR}/ascendc.cmake)`
      flow (CANN runtime sample 4_custom_kernel_launch), not by `find_package(ASC)`;
    - with `find_package(ASC)`, a kernel `.cpp` in `add_library` is compiled by bisheng only
      when marked `LANGUAGE ASC` (`.asc` files are by default);
    - linking `torch_npu` needs torch_npu's `include/` and `lib/` folders, which no CMake
      package provides (the torch_library sample adds `${TORCH_NPU_PATH}/include` and `/lib`);
    - a target mixing ASC and C++ sources needs `LINKER_LANGUAGE ASC`: CANN's package gives ASC
      no linker preference, so the C++ linker would link it (CANN's "Compilation Using CMake"
      guide, asc-devkit 04_compile samples);
    - linking `ascendcl` needs the toolkit's `lib64` as a link folder (MultiKernelBench's
      direct-launch build links it from there);
    - ASC sources need `--npu-arch` among the target's compile options (CANN's CMake guide, every ASC
      sample; the ASC CMake modules up to 9.0.0-beta.2 do not add it).
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
            warn(c.line, "ascendc_library() comes from CANN's ascendc.cmake "
                         "(include(${ASCENDC_CMAKE_DIR}/ascendc.cmake)), not from find_package(ASC); "
                         "with find_package(ASC) use add_library on ASC-language sources")
    marked = asc_sources(text)
    for c in calls:
        if c.name in ("add_library", "add_executable", "target_sources"):
            for a in c.args:
                if a.startswith("kernel/") and a.endswith(".cpp") and a not in marked:
                    warn(c.line, f"{a} is not marked LANGUAGE ASC (set_source_files_properties(... PROPERTIES "
                                 "LANGUAGE ASC)), so the host C++ compiler, not bisheng, would compile it")
    asc_linked = {c.args[0] for c in calls if c.name == "set_target_properties" and c.args
                  and "LINKER_LANGUAGE" in c.args and c.args[c.args.index("LINKER_LANGUAGE") + 1:][:1] == ("ASC",)}
    for c in calls:
        if c.name in ("add_library", "add_executable") and c.args:
            srcs = [a.removeprefix("./") for a in c.args[1:] if a.endswith(SOURCE_EXTS)]
            if any(a in marked for a in srcs) and any(a not in marked for a in srcs) and c.args[0] not in asc_linked:
                warn(c.line, f"{c.args[0]} mixes ASC and C++ sources but does not set LINKER_LANGUAGE ASC: "
                             "CANN's package gives ASC no linker preference, so the C++ linker would link it without "
                             f"the AscendC runtime (set_target_properties({c.args[0]} PROPERTIES LINKER_LANGUAGE ASC))")
    if marked and not re.search(r"--npu-arch=", " ".join(a for c in calls if c.name == "target_compile_options"
                                                       for a in c.args)):
        line = next((c.line for c in calls if c.name in ("add_library", "add_executable")), 0)
        warn(line, "no target_compile_options passes --npu-arch to the ASC sources: bisheng requires it and the ASC "
                   "package does not add it (add $<$<COMPILE_LANGUAGE:ASC>:--npu-arch=${CMAKE_ASC_ARCHITECTURES}>)")
    for c in calls:
        if c.name == "target_link_libraries" and "ascendcl" in c.args:
            dirs = [a for d in calls if d.name == "target_link_directories" and d.args[:1] == c.args[:1]
                    for a in d.args]
            if not any(a.rstrip("/").endswith("lib64") for a in dirs):
                warn(c.line, f"{c.args[0]} links ascendcl but has no link folder for the toolkit's lib64 "
                             "(target_link_directories(... ${ASCEND_HOME_PATH}/lib64)): -lascendcl would not be found")
    return out


def lint_kernel(path: str, text: str) -> list[dict]:
    """GET_TILING_DATA / REGISTER_TILING_DEFAULT in code (not comments): their API pages say "the
    kernel launch project is not supported", and this project launches the kernel with <<<>>>."""
    out = []
    for i, line in enumerate(cpp.strip_comments(text).splitlines(), 1):
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
        return [{"file": "CMakeLists.txt", "line": 0, "col": 0, "severity": "error",
                 "message": "the project has no CMakeLists.txt"}]
    listed = cmake_sources(text)
    units = translation_units(bundle, text)
    included = {path: unit[0] for unit in units.values() for path in unit[1:]}
    out = []
    for src, line in listed.items():
        if src not in bundle.files:
            out.append({"file": "CMakeLists.txt", "line": line, "col": 0, "severity": "error",
                        "message": f"lists {src}, which the project does not have"})
        elif src in included:
            out.append({"file": "CMakeLists.txt", "line": line, "col": 0, "severity": "error",
                        "message": f"compiles {src} on its own although {included[src]} includes it: its definitions "
                                   "would be linked twice"})
    for path in bundle.files:
        if path.endswith(SOURCE_EXTS) and path not in listed and path not in included:
            out.append({"file": "CMakeLists.txt", "line": 0, "col": 0, "severity": "error",
                        "message": f"{path} is in the project but no target compiles it"})
    if not shared_libraries(text):
        out.append({"file": "CMakeLists.txt", "line": 0, "col": 0, "severity": "error",
                    "message": "no add_library(NAME SHARED ...): nothing for torch.ops.load_library to load"})
    for path, t in bundle.files.items():
        if path.startswith("kernel/"):
            out += lint_kernel(path, t)
    return out + lint_cmake(text) + lint_sources(bundle)


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
           f"-DASCEND_HOME_PATH={tc.home}",
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
            r = procs.run([str(exe), "--version"], timeout=30, env=dict(env))
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
            r = procs.run(cmd, env=env, timeout=timeout, cwd=project.parent)   # own process group: stopped with us
        except subprocess.TimeoutExpired:
            return BuildResult(f"{step}-error", f"cmake {step} timed out after {timeout:g} s", commands, None, problems,
                               versions, "", time.perf_counter() - t0)
        if r.returncode:
            output = (r.stdout or "") + "\n" + (r.stderr or "")
            diags = map_diagnostics(parse_diagnostics(output), project, bundle)
            first = next((d for d in diags if d["severity"] == "error"), None)
            where = ""
            if first:
                where = f" at {first['file']}:{first['line']}"
                where += f" (DSL line {first['dsl_line']})" if first.get("dsl_line") else ""
            msg = f"cmake {step} failed (exit {r.returncode})" + (f": {first['message']}{where}" if first else "")
            return BuildResult(f"{step}-error", msg, commands, None, problems + diags, versions, _tail(output),
                               time.perf_counter() - t0)
    names = shared_libraries(bundle.files["CMakeLists.txt"])
    libs = [p for n in names for p in sorted(build.rglob(n))]
    if not libs:
        return BuildResult("no-library", f"the build succeeded but produced no {' or '.join(names)} under {build}",
                           commands, None, problems, versions, "", time.perf_counter() - t0)
    return BuildResult("ok", f"built {libs[0]}", commands, str(libs[0]), problems, versions, "",
                       time.perf_counter() - t0)


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
