"""Compile AscendC kernels with g++ against the emulator headers and run them on the CPU.

The runner owns the emulator's host side: it compiles kernel sources (cached by content hash),
generates the harness that calls the kernel entry, passes the kernel arguments to a child
process through files (raw bytes, memory-mapped by the child), and turns what comes back into a
:class:`Report`. The kernel always runs in a child process, so a crash or an endless loop is a
``status``, never an exception in the caller.

Python API
----------
``run_kernel(sources, entry, block_dim, args, *, soc=DEFAULT_SOC, timeout=60, extra_flags=(),
include_dirs=(), trace=None) -> Report``
    Compile (or reuse the cached binary), run blocks ``0..block_dim-1`` and collect outputs and
    sanitizer findings. ``args`` are in the kernel's parameter order. ``trace=PATH`` writes the
    run's pipe trace there (``acemu/trace.h``; ``ascendcraft_lab.perf`` reads it).

``compile_sources(sources, *, entry=None, n_args=None, extra_flags=(), include_dirs=(), host=False) -> CompileResult``
    Compile without running. With ``entry`` and ``n_args`` it links the runnable binary (and
    fills the cache that ``run_kernel`` uses); without them it is a syntax-and-types check of
    the sources (``g++ -fsyntax-only``), for compile-only checks in the lowering pipeline. With
    ``host=True`` the sources are a host program with its own ``main`` (host tiling such as
    ``matmul_tiling::MultiCoreMatmulTiling``, ``ACLRT_LAUNCH_KERNEL``), linked with the runtime.

``soc_env(soc) -> dict``: the environment such a host program runs with (the SoC's cube memory
sizes from ``soc.py``; kernels under ``run_kernel`` get them in the spec file).

``Arg``: ``Arg.input(ndarray)``, ``Arg.output(dtype, shape)`` (zero-filled GM, returned),
``Arg.inout(ndarray)`` (initial data, returned), ``Arg.workspace(nbytes)``, ``Arg.tiling(bytes)``.

``pack_tiling([("int32", 8), ("float", 0.5), ...]) -> bytes``: a C struct with natural alignment.

``Report``: ``status`` (``"ok"``, ``"findings"``, ``"compile-error"``, ``"crash"``, ``"timeout"``),
``message``, ``diagnostics`` (compiler messages as ``{file, line, col, severity, message}``),
``findings`` (``{kind, message, api, file, line, block, blocks, count}``), ``outputs``
(``{arg position: ndarray}`` for outputs and inouts), ``timings`` (``compile_s``, ``run_s`` = child
process wall time including argument transfer, ``kernel_s`` = time spent running the blocks,
``cached``), ``stderr`` (the child's), ``to_json()``.

bfloat16 has no numpy dtype: pass and receive bfloat16 tensors as ``uint16`` arrays of raw bits
(``Arg.output("bfloat16", shape)`` returns uint16). :func:`bf16_to_float32` /
:func:`float32_to_bf16` convert.

The cache lives in ``~/.cache/ascendcraft/emulator`` (``ASCENDCRAFT_CACHE_DIR`` overrides); a
binary is keyed by the sha256 of the sources and the local headers they include (content, and
paths relative to the folder that holds them all, so the same project compiled from another
temporary folder hits the same entry), the emulator headers and runtime, the flags, the
compiler version and the CPU. Paths are compiled in relative to that folder
(``-ffile-prefix-map``) and made absolute again on the way out, so findings and compiler
messages name the sources of the current call. The cache is capped
(``ASCENDCRAFT_EMULATOR_CACHE_MB``, default 512): the entries used longest ago go first.

The kernel runs in its own process group with stdin closed (``ascendcraft_lab.procs``); its
harness asks Linux to kill it when the parent dies and arms an alarm a little after the
timeout, so a kernel never spins on after the process that started it is gone.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import math
import shutil
import signal
import struct
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from ... import procs
from ...soc import DEFAULT_SOC, get_soc
from .sources import prepare as prepare_source

HERE = Path(__file__).resolve().parent
INCLUDE_DIR = HERE / "include"
RUNTIME_SRC = HERE / "runtime" / "runtime.cpp"
# The runtime: launches, findings and the harness (runtime.cpp); the op harness of registered ops (op_host.cpp).
RUNTIME_SOURCES = (RUNTIME_SRC, HERE / "runtime" / "op_host.cpp", HERE / "runtime" / "ub_order.cpp")
CXX = os.environ.get("CXX", "g++")

# -march=native: the binary only ever runs on the machine that built it (the CPU is in the cache key).
# -fvect-cost-model=dynamic: lets -O2 vectorise loops that need an alias check (dst may equal src).
# -fno-strict-aliasing: kernels reinterpret GM and UB bytes freely, as the device compiler allows.
BASE_FLAGS = ("-std=c++17", "-O2", "-fvect-cost-model=dynamic", "-fno-math-errno", "-fno-strict-aliasing",
              "-march=native", "-pthread", "-fPIC")
WARN_FLAGS = ("-Wall", "-Wextra")
# The emulator is a CPU twin: kernels see the documented CPU-debug switches (ASCENDC_CPU_DEBUG, and
# __CCE_KT_TEST__ of older samples) that hide their NPU-only launch code.
CPU_DEBUG_FLAGS = ("-DASCENDC_CPU_DEBUG=1", "-D__CCE_KT_TEST__=1")


def soc_flags(soc: str | None = None) -> list[str]:
    """__NPU_ARCH__ of the SoC (dav-2201 -> 2201), as the device compiler defines it."""
    return [f"-D__NPU_ARCH__={get_soc(soc).arch.split('-')[-1]}"]

STATUSES = ("ok", "findings", "compile-error", "crash", "timeout", "error")  # error: the host side failed (run_op)
FINDING_KINDS = ("ub-overflow", "unaligned-datacopy", "unaligned-ub-address", "queue-misuse", "gm-out-of-bounds",
                 "uninitialised-ub-read", "gm-race", "repeat-overflow",
                 "sync-all-mismatch", "sync-all-workspace", "api-misuse",
                 # the cube (acemu/cube.h, acemu/matmul.h)
                 "l1-overflow", "l0-overflow", "unaligned-fractal", "uninitialised-cube-read", "pipe-hazard",
                 "wrong-position", "cube-param", "cross-core-sync")
# Reported, but not bugs: the run stays "ok" and they come back in Report.notes.
NOTE_KINDS = ("gm-beyond-buffer", "ub-reserved")


# --------------------------------------------------------------------------------------------
# Arguments
# --------------------------------------------------------------------------------------------
def _np_dtype(dtype: Any) -> tuple[np.dtype, str]:
    """numpy dtype for a kernel tensor plus its logical name (bfloat16 travels as uint16 bits)."""
    if isinstance(dtype, str) and dtype.lower() in ("bfloat16", "bf16"):
        return np.dtype(np.uint16), "bfloat16"
    dt = np.dtype(dtype)
    return dt, dt.name


@dataclass(frozen=True, eq=False)  # eq would compare arrays element-wise
class Arg:
    kind: str                      # input | output | inout | workspace | tiling
    nbytes: int
    data: np.ndarray | bytes | None = None
    dtype: np.dtype | None = None
    shape: tuple[int, ...] = ()
    logical_dtype: str = ""

    @staticmethod
    def input(array: np.ndarray) -> "Arg":
        a = np.ascontiguousarray(array)
        return Arg("input", a.nbytes, a, a.dtype, a.shape, a.dtype.name)

    @staticmethod
    def output(dtype: Any, shape: Sequence[int] | int) -> "Arg":
        dt, name = _np_dtype(dtype)
        shp = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)
        return Arg("output", int(np.prod(shp, dtype=np.int64)) * dt.itemsize, None, dt, shp, name)

    @staticmethod
    def inout(array: np.ndarray) -> "Arg":
        a = np.ascontiguousarray(array)
        return Arg("inout", a.nbytes, a, a.dtype, a.shape, a.dtype.name)

    @staticmethod
    def workspace(nbytes: int) -> "Arg":
        return Arg("workspace", int(nbytes))

    @staticmethod
    def tiling(data: bytes) -> "Arg":
        return Arg("tiling", len(data), bytes(data))


_TILING_TYPES = {
    "int8": "b", "uint8": "B", "int16": "h", "uint16": "H", "int32": "i", "uint32": "I", "int64": "q", "uint64": "Q",
    "float": "f", "float32": "f", "double": "d", "float64": "d", "bool": "?",
}


def pack_tiling(fields: Iterable[tuple[str, Any]]) -> bytes:
    """Pack (type, value) pairs as a C struct: each field at its natural alignment, size padded."""
    out = bytearray()
    max_align = 1
    for typ, value in fields:
        code = _TILING_TYPES.get(str(typ).lower())
        if code is None:
            raise ValueError(f"unknown tiling field type {typ!r}; known: {', '.join(sorted(_TILING_TYPES))}")
        size = struct.calcsize(code)
        max_align = max(max_align, size)
        out += b"\0" * (-len(out) % size)
        out += struct.pack("<" + code, value)
    out += b"\0" * (-len(out) % max_align)
    return bytes(out)


def bf16_to_float32(bits: np.ndarray) -> np.ndarray:
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def float32_to_bf16(x: np.ndarray) -> np.ndarray:
    """Round to nearest even, as the emulator's bfloat16_t does."""
    u = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    nan = (u & 0x7FFFFFFF) > 0x7F800000
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(nan, ((u >> 16) | 0x40).astype(np.uint16), r)


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------
_DIAG_RE = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): "
                      r"(?P<sev>fatal error|error|warning|note): (?P<msg>.*)$")
_LINK_RE = re.compile(r"undefined reference to `(?P<sym>[^']+)'")


_REQUIRED_RE = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+):\s+required from here")


def _in_emulator(path: str) -> bool:
    try:
        return Path(path).resolve().is_relative_to(INCLUDE_DIR)
    except (OSError, ValueError):
        return False


def parse_diagnostics(stderr: str) -> list[dict]:
    """g++ messages as {file, line, col, severity, message}; linker errors have line 0.

    An error inside the emulator's headers (a dtype table's static_assert, say) is reported at the
    kernel's line that instantiated it (g++'s "required from here"), with the header position kept
    as `origin`. An argument that reached the emulator's hidden call-site parameter means no
    overload of that API takes those arguments; the message says so."""
    diags: list[dict] = []
    user_site: tuple[str, int, int] | None = None
    for raw in stderr.splitlines():
        r = _REQUIRED_RE.match(raw)
        if r and not _in_emulator(r["file"]):
            user_site = (r["file"], int(r["line"]), int(r["col"]))
            continue
        m = _DIAG_RE.match(raw)
        if m:
            sev = "error" if m["sev"] == "fatal error" else m["sev"]
            d = {"file": m["file"], "line": int(m["line"]), "col": int(m["col"]), "severity": sev, "message": m["msg"]}
            callsite = "to type \u2018acemu::CallSite\u2019" in m["msg"] or "to type 'acemu::CallSite'" in m["msg"]
            if sev == "note" and callsite:
                err = next((x for x in reversed(diags) if x["severity"] == "error"), None)
                if err is not None and "no overload" not in err["message"]:
                    err["message"] += (" (no overload of this API takes an argument in that position: check the API "
                                       "reference for its parameters)")
            if sev == "error" and _in_emulator(m["file"]) and user_site is not None:
                d["origin"] = f"{m['file']}:{m['line']}"
                d["file"], d["line"], d["col"] = user_site
            if sev != "note":
                user_site = None if sev == "error" else user_site
            diags.append(d)
            continue
        m = _LINK_RE.search(raw)
        if m:
            diags.append({"file": "", "line": 0, "col": 0, "severity": "error",
                          "message": f"undefined reference to `{m['sym']}'"})
        elif "ld returned" in raw or raw.startswith("collect2"):
            diags.append({"file": "", "line": 0, "col": 0, "severity": "error", "message": raw.strip()})
    return diags


@dataclass
class CompileResult:
    ok: bool
    binary: Path | None
    diagnostics: list[dict]
    stderr: str
    compile_s: float
    cached: bool
    key: str = ""

    @property
    def errors(self) -> list[dict]:
        return [d for d in self.diagnostics if d["severity"] == "error"]


@dataclass
class Report:
    status: str
    message: str = ""
    diagnostics: list[dict] = field(default_factory=list)
    findings: list[dict] = field(default_factory=list)
    outputs: dict[int, np.ndarray] = field(default_factory=dict)
    timings: dict[str, Any] = field(default_factory=dict)
    stderr: str = ""
    notes: list[dict] = field(default_factory=list)  # NOTE_KINDS: what the NPU does silently, not a bug
    stdout: str = ""  # what the kernel printed (AscendC::printf)
    progress: dict | None = None  # a timeout: how far the run got (read_progress)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_dict(self) -> dict:
        return {
            "status": self.status,
            "message": self.message,
            "diagnostics": self.diagnostics,
            "findings": self.findings,
            "outputs": {str(k): {"dtype": v.dtype.name, "shape": list(v.shape)} for k, v in self.outputs.items()},
            "timings": self.timings,
            "stderr": self.stderr,
            "notes": self.notes,
            "stdout": self.stdout,
            **({"progress": self.progress} if self.progress is not None else {}),
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    def summary(self) -> str:
        """A few lines for a terminal: status, findings with file:line, timing."""
        lines = [f"status: {self.status}" + (f" - {self.message}" if self.message else "")]
        for d in self.diagnostics:
            if d["severity"] == "error":
                where = f"{d['file']}:{d['line']}:{d['col']}: " if d["file"] else ""
                lines.append(f"  {where}error: {d['message']}")
        for f in self.findings:
            times = f" (x{f['count']})" if f.get("count", 1) > 1 else ""
            lines.append(f"  {f['file']}:{f['line']}: {f['kind']} in {f['api']}, block {f['block']}{times}: "
                         f"{f['message']}")
        for f in self.notes:
            lines.append(f"  {f['file']}:{f['line']}: note: {f['kind']} in {f['api']}: {f['message']}")
        t = self.timings
        if t:
            parts = []
            if "compile_s" in t:
                parts.append(f"compile {t['compile_s']:.2f}s" + (" (cached)" if t.get("cached") else ""))
            if "run_s" in t:
                parts.append(f"run {t['run_s']:.3f}s")
            if "kernel_s" in t:
                parts.append(f"kernel {t['kernel_s']:.3f}s")
            lines.append("timing: " + ", ".join(parts))
        return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# Compilation and cache
# --------------------------------------------------------------------------------------------
def cache_dir() -> Path:
    root = os.environ.get("ASCENDCRAFT_CACHE_DIR")
    d = Path(root) if root else Path.home() / ".cache" / "ascendcraft" / "emulator"
    d.mkdir(parents=True, exist_ok=True)
    return d


DEFAULT_CACHE_MB = 512
RECENT_S = 600        # an entry used this recently is never evicted (another process may be about to run it)


def cache_limit_bytes() -> int:
    try:
        return int(float(os.environ.get("ASCENDCRAFT_EMULATOR_CACHE_MB", DEFAULT_CACHE_MB)) * (1 << 20))
    except ValueError:
        return DEFAULT_CACHE_MB << 20


def _entry_size(d: Path) -> int:
    try:
        return sum(f.stat().st_size for f in d.iterdir() if f.is_file())
    except OSError:
        return 0


def evict(folder: Path, limit: int, is_entry=lambda d: True, recent_s: float = RECENT_S) -> int:
    """Remove the least recently used entries (sub-folders) of `folder` until it holds at most
    `limit` bytes; entries used within `recent_s` stay. Returns the bytes freed."""
    try:
        entries = [d for d in folder.iterdir() if d.is_dir() and is_entry(d)]
    except OSError:
        return 0
    sized = []
    for d in entries:
        try:
            sized.append((d.stat().st_mtime, _entry_size(d), d))
        except OSError:
            continue
    total = sum(size for _, size, _ in sized)
    freed = 0
    now = time.time()
    for used, size, d in sorted(sized, key=lambda e: e[0]):
        if total - freed <= limit:
            break
        if now - used < recent_s:
            continue
        shutil.rmtree(d, ignore_errors=True)
        freed += size
    return freed


def _is_kernel_entry(d: Path) -> bool:
    return len(d.name) == 64 and all(c in "0123456789abcdef" for c in d.name)


def _touch(path: Path) -> None:
    try:
        os.utime(path)
    except OSError:
        pass


_toolchain_memo: dict[str, str] = {}


def _compiler_fingerprint() -> str:
    """Compiler version, CPU and the base flags: what changes every object file."""
    if "cc" in _toolchain_memo:
        return _toolchain_memo["cc"]
    h = hashlib.sha256()
    try:
        h.update(procs.run([CXX, "--version"], timeout=30).stdout.encode())
    except (OSError, subprocess.SubprocessError):
        h.update(b"no-compiler")
    try:
        cpu = Path("/proc/cpuinfo").read_text(errors="replace")
        for key in ("model name", "flags"):
            m = re.search(rf"^{key}\s*:\s*(.*)$", cpu, re.M)
            h.update((m.group(1) if m else "").encode())
    except OSError:
        pass
    h.update(" ".join(BASE_FLAGS + CPU_DEBUG_FLAGS).encode())
    _toolchain_memo["cc"] = h.hexdigest()
    return _toolchain_memo["cc"]


def _toolchain_fingerprint() -> str:
    """The compiler's fingerprint and the emulator's own sources: what changes the runtime object."""
    if "fp" in _toolchain_memo:
        return _toolchain_memo["fp"]
    h = hashlib.sha256(_compiler_fingerprint().encode())
    for p in sorted(INCLUDE_DIR.rglob("*.h")) + list(RUNTIME_SOURCES):
        h.update(str(p.relative_to(HERE)).encode())
        h.update(p.read_bytes())
    h.update(get_soc(DEFAULT_SOC).emulator_line().encode())
    h.update(" ".join(BASE_FLAGS).encode())
    h.update(_HARNESS_VERSION.encode())
    _toolchain_memo["fp"] = h.hexdigest()
    return _toolchain_memo["fp"]


_INCLUDE_RE = re.compile(rb'^\s*#\s*include\s*"([^"]+)"', re.M)


def _local_includes(sources: Sequence[Path], include_dirs: Sequence[Path]) -> list[Path]:
    """Headers the sources include with quotes and that exist next to them or in include_dirs."""
    seen: dict[Path, None] = {}
    stack = list(sources)
    while stack:
        src = stack.pop()
        try:
            text = src.read_bytes()
        except OSError:
            continue
        for name in _INCLUDE_RE.findall(text):
            rel = name.decode(errors="replace")
            for base in [src.parent, *include_dirs]:
                cand = (base / rel).resolve()
                if cand.is_file():
                    if cand not in seen and cand not in sources:
                        seen[cand] = None
                        stack.append(cand)
                    break
    return list(seen)


def _runtime_object() -> Path:
    """The runtime sources compiled once per emulator version (the slow part to compile), linked
    into one relocatable object; position-independent, so extensions can link it too."""
    obj = cache_dir() / f"runtime-{_toolchain_fingerprint()[:24]}.o"
    if obj.exists():
        return obj
    work = procs.make_scratch("acemu-runtime-")
    try:
        objs = []
        for src in RUNTIME_SOURCES:
            o = work / (src.stem + ".o")
            cmd = [CXX, *BASE_FLAGS, f'-DACEMU_DEFAULT_SOC="{get_soc(DEFAULT_SOC).emulator_line()}"',
                   "-isystem", str(INCLUDE_DIR), "-c", str(src), "-o", str(o)]
            r = procs.run(cmd)
            if r.returncode != 0:
                raise RuntimeError(f"building the emulator runtime failed:\n{r.stderr}")
            objs.append(str(o))
        tmp = obj.with_suffix(f".{os.getpid()}.tmp.o")
        r = procs.run(["ld", "-r", *objs, "-o", str(tmp)])
        if r.returncode != 0:
            raise RuntimeError(f"linking the emulator runtime failed:\n{r.stderr}")
        os.replace(tmp, obj)
        return obj
    finally:
        procs.remove_scratch(work)


_HARNESS_VERSION = "2"   # part of the cache key: bump when the harness text changes


def _harness_source(entry: str, n_args: int) -> str:
    params = ", ".join(["uint8_t*"] * n_args) or "void"
    call = ", ".join(f"a[{i}]" for i in range(n_args))
    return (
        "// Generated by ascendcraft_lab.backends.emulator.runner: calls the kernel entry once per block.\n"
        "#include <cstdint>\n"
        "#include <cstdlib>\n"
        "#ifdef __linux__\n"
        "#include <csignal>\n"
        "#include <sys/prctl.h>\n"
        "#include <unistd.h>\n"
        "#endif\n"
        f'extern "C" void {entry}({params});\n'
        "namespace acemu { namespace rt { int harness_main(int, char**, int, void (*)(uint8_t**)); } }\n"
        f"static void acemu_launch(uint8_t** a) {{ (void)a; {entry}({call}); }}\n"
        "// A kernel never outlives the process that started it: killed with its parent, and stopped\n"
        "// by an alarm a little after the parent's timeout, should the parent not be there to do it.\n"
        "static void acemu_watch_parent() {\n"
        "#ifdef __linux__\n"
        "  prctl(PR_SET_PDEATHSIG, SIGKILL);\n"
        '  const char* parent = std::getenv("ASCENDCRAFT_PARENT_PID");\n'
        "  if (parent && getppid() != static_cast<pid_t>(std::atol(parent))) _exit(1);\n"
        '  const char* limit = std::getenv("ACEMU_ALARM_S");\n'
        "  if (limit) alarm(static_cast<unsigned>(std::atol(limit)));\n"
        "#endif\n"
        "}\n"
        f"int main(int argc, char** argv) {{ acemu_watch_parent(); "
        f"return acemu::rt::harness_main(argc, argv, {n_args}, acemu_launch); }}\n"
    )


def _common_root(paths: Sequence[Path]) -> Path:
    """The deepest folder holding every path (the sources' folders and the include folders)."""
    try:
        root = Path(os.path.commonpath([str(p) for p in paths]))
    except ValueError:
        return Path("/")
    return root


def _relative(p: Path, root: Path) -> str:
    try:
        return p.relative_to(root).as_posix() if root != Path("/") else str(p)
    except ValueError:
        return str(p)


def _rebase_text(text: str, old: str, new: str) -> str:
    return text.replace(old, new) if old and old != new else text


def _rebase_findings(findings: list[dict], root: Path) -> list[dict]:
    """Findings name the files relative to the build's common folder (-ffile-prefix-map): back to
    the paths of this run's sources."""
    return [dict(f, file=str(root / f["file"]))
            if f.get("file") and not os.path.isabs(f["file"]) and f["file"] != "?" else f
            for f in findings]


def _rebase_diagnostics(diags: list[dict], old: str, new: str) -> list[dict]:
    """Compiler messages with `old/` (the folder the sources were compiled in) read as `new/`."""
    out = []
    for d in diags:
        d = dict(d)
        if old and d.get("file", "").startswith(old):
            d["file"] = new + d["file"][len(old):]
        d["message"] = _rebase_text(d.get("message", ""), old, new)
        out.append(d)
    return out


def compile_sources(
    sources: Sequence[str | Path],
    *,
    entry: str | None = None,
    n_args: int | None = None,
    extra_flags: Sequence[str] = (),
    include_dirs: Sequence[str | Path] = (),
    soc: str | None = None,
    host: bool = False,
) -> CompileResult:
    """Compile kernel sources; link a runnable binary when ``entry`` and ``n_args`` are given.
    ``host=True``: the sources are a host program with its own ``main`` (launching with
    ACLRT_LAUNCH_KERNEL, <<<>>> or ICPU_RUN_KF); it is linked with the runtime, cached the same
    way, and run with :func:`soc_env` in its environment (:func:`build_program`)."""
    if host:
        return build_program(sources, include_dirs=include_dirs, extra_flags=extra_flags, soc=soc)
    if entry is None or n_args is None:
        return _syntax_check(sources, extra_flags, include_dirs, soc)
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", entry):
        raise ValueError(f"entry must be a C identifier, got {entry!r}")
    missing = (f"kernel entry '{entry}' not found: define it as extern \"C\" __global__ __aicore__ void "
               f"{entry}(GM_ADDR ...) with {n_args} parameters")
    return build_binary(sources, _harness_source(entry, n_args), extra_flags=extra_flags, include_dirs=include_dirs,
                        soc=soc, undefined_hint=(entry, missing))


def _flags(extra_flags: Sequence[str], soc: str | None) -> list[str]:
    return [*BASE_FLAGS, *WARN_FLAGS, *CPU_DEBUG_FLAGS, *soc_flags(soc), *extra_flags]


def _missing(srcs: Sequence[Path]) -> CompileResult | None:
    for s in srcs:
        if not s.is_file():
            return CompileResult(False, None, [{"file": str(s), "line": 0, "col": 0, "severity": "error",
                                                "message": "no such source file"}],
                                 f"{s}: no such file", 0.0, False)
    return None


def _syntax_check(sources, extra_flags, include_dirs, soc) -> CompileResult:
    t0 = time.perf_counter()
    srcs = [Path(s).resolve() for s in sources]
    if (bad := _missing(srcs)) is not None:
        return bad
    inc_flags = ["-isystem", str(INCLUDE_DIR)] + [f"-I{Path(d).resolve()}" for d in include_dirs]
    work = procs.make_scratch("acemu-check-")
    try:
        prepared, more = [], []
        for s in srcs:
            path, fl = prepare_source(s, work)
            prepared.append(str(path))
            more += fl
        cmd = [CXX, *_flags(extra_flags, soc), "-fsyntax-only", *inc_flags, *more, *prepared]
        r = procs.run(cmd)
        return CompileResult(r.returncode == 0, None, parse_diagnostics(r.stderr), r.stderr,
                             time.perf_counter() - t0, False)
    finally:
        procs.remove_scratch(work)


Source = "str | Path | tuple[str | Path, Sequence[str]]"  # a source, or (source, flags for it alone)


def _split_sources(sources) -> list[tuple[Path, list[str]]]:
    out = []
    for s in sources:
        if isinstance(s, tuple):
            out.append((Path(s[0]).resolve(), list(s[1])))
        else:
            out.append((Path(s).resolve(), []))
    return out


ROOT_MARK = "\0root/"  # stands for the build's common folder in cached keys and messages


def _object(src: Path, flags: list[str], inc_flags: list[str], incs: list[Path], work: Path,
            prefix: str = "") -> tuple[Path | None, list[dict], str]:
    """One translation unit compiled to an object file, cached by its content: the source, every
    quoted header it includes (the emulator's headers among them, transitively), the flags and the
    compiler. A torch binding that did not change is reused across submissions and emulator edits.
    Paths under `prefix` (the build's common folder) enter the key relative to it and are compiled
    relative (-ffile-prefix-map), so the same project in a fresh folder reuses the object."""
    rel = (lambda t: t.replace(prefix, ROOT_MARK)) if prefix else (lambda t: t)
    h = hashlib.sha256()
    h.update(_compiler_fingerprint().encode())
    h.update(json.dumps([rel(str(src)), [rel(f) for f in flags], [rel(f) for f in inc_flags]]).encode())
    search = incs + [Path(f[2:]) for f in flags if f.startswith("-I")] + [INCLUDE_DIR]
    for p in [src] + _local_includes([src], search):
        h.update(rel(str(p)).encode())
        h.update(p.read_bytes())
    for f in flags:  # a forced include (-include FILE) is part of the unit
        if f.endswith(".h") and Path(f).is_file():
            h.update(Path(f).read_bytes())
    obj = cache_dir() / "objects" / f"{h.hexdigest()}.o"
    meta = obj.with_suffix(".json")
    if obj.exists() and meta.exists():
        m = json.loads(meta.read_text())
        _touch(obj)
        return (obj, _rebase_diagnostics(m["diagnostics"], ROOT_MARK, prefix),
                _rebase_text(m["stderr"], ROOT_MARK, prefix))
    prepared, more = prepare_source(src, work / "src")
    tmp = work / f"{h.hexdigest()[:16]}.o"
    remap = [f"-ffile-prefix-map={prefix}="] if prefix else []
    cmd = [CXX, *flags, *remap, *inc_flags, *more, "-c", str(prepared), "-o", str(tmp)]
    r = procs.run(cmd)
    diags = parse_diagnostics(r.stderr)
    if r.returncode != 0:
        if not any(d["severity"] == "error" for d in diags):
            diags.append({"file": str(src), "line": 0, "col": 0, "severity": "error",
                          "message": r.stderr.strip()[-2000:] or "compiler failed"})
        return None, diags, r.stderr
    obj.parent.mkdir(parents=True, exist_ok=True)
    tmp_meta = meta.with_suffix(f".{os.getpid()}.tmp")
    tmp_meta.write_text(json.dumps({"diagnostics": _rebase_diagnostics(diags, prefix, ROOT_MARK),
                                    "stderr": _rebase_text(r.stderr, prefix, ROOT_MARK)}))
    shutil.move(str(tmp), obj.with_suffix(f".{os.getpid()}.tmpo"))
    os.replace(obj.with_suffix(f".{os.getpid()}.tmpo"), obj)
    os.replace(tmp_meta, meta)
    return obj, diags, r.stderr


def build_binary(
    sources,
    harness: str | None,
    *,
    extra_flags: Sequence[str] = (),
    include_dirs: Sequence[str | Path] = (),
    soc: str | None = None,
    undefined_hint: tuple[str, str] | None = None,
    link_flags: Sequence[str] = (),
    shared: bool = False,
) -> CompileResult:
    """Compile each source (plus a generated `harness` source, if any) to a cached object and link
    them with the emulator's runtime into an executable (or, `shared`, a shared object). A source
    may come with flags of its own: (path, [flags]). A source that launches with <<<>>> is compiled
    from a rewritten copy that keeps its file and line numbers (sources.py)."""
    t0 = time.perf_counter()
    items = _split_sources(sources)
    incs = [Path(d).resolve() for d in include_dirs]
    if (bad := _missing([s for s, _ in items])) is not None:
        return bad
    inc_flags = ["-isystem", str(INCLUDE_DIR)] + [f"-I{d}" for d in incs]
    flags = _flags(extra_flags, soc)
    # The folder holding every source and include folder: keys and embedded file names are relative
    # to it, so a project written to a fresh temporary folder for every check finds its binary.
    root = _common_root([s.parent for s, _ in items] + incs)
    prefix = "" if root == Path("/") else str(root) + "/"
    work = procs.make_scratch("acemu-build-")
    try:
        if harness is not None:
            harness_path = cache_dir() / "harness" / f"{hashlib.sha256(harness.encode()).hexdigest()[:24]}.cpp"
            if not harness_path.exists():
                harness_path.parent.mkdir(parents=True, exist_ok=True)
                tmp = harness_path.with_suffix(f".{os.getpid()}.tmp")
                tmp.write_text(harness)
                os.replace(tmp, harness_path)
            items.append((harness_path, []))
        objects, diags, stderr = [], [], ""
        for src, own in items:
            obj, d, err = _object(src, [*flags, *own], inc_flags, incs, work, prefix)
            diags += d
            stderr += err
            if obj is None:
                return CompileResult(False, None, diags, stderr, time.perf_counter() - t0, False)
            objects.append(obj)
        h = hashlib.sha256()
        h.update(_toolchain_fingerprint().encode())
        h.update(json.dumps([[str(o) for o in objects], list(link_flags), shared]).encode())
        key = h.hexdigest()
        out_dir = cache_dir() / key
        binary = out_dir / ("module.so" if shared else "kernel")
        diag_file = out_dir / "compile.json"
        cached = binary.exists() and diag_file.exists()
        if not cached:
            runtime_obj = _runtime_object()
            tmp_bin = work / binary.name
            cmd = [CXX, *BASE_FLAGS, *(["-shared"] if shared else []), *map(str, objects), str(runtime_obj),
                   *link_flags, "-o", str(tmp_bin)]
            r = procs.run(cmd)
            stderr += r.stderr
            ldiags = parse_diagnostics(r.stderr)
            diags += ldiags
            if r.returncode != 0:
                if undefined_hint and any(f"undefined reference to `{undefined_hint[0]}'" in d["message"]
                                          for d in ldiags):
                    diags.insert(0, {"file": "", "line": 0, "col": 0, "severity": "error",
                                     "message": undefined_hint[1]})
                elif not any(d["severity"] == "error" for d in ldiags):
                    diags.append({"file": "", "line": 0, "col": 0, "severity": "error",
                                  "message": r.stderr.strip()[-2000:] or "link failed"})
                return CompileResult(False, None, diags, stderr, time.perf_counter() - t0, False, key)
            out_dir.mkdir(parents=True, exist_ok=True)
            tmp_meta = out_dir / f"compile.{os.getpid()}.json"
            tmp_meta.write_text(json.dumps({"diagnostics": _rebase_diagnostics(diags, prefix, ROOT_MARK),
                                            "stderr": _rebase_text(stderr, prefix, ROOT_MARK)}))
            final_tmp = out_dir / f"{binary.name}.{os.getpid()}.tmp"
            shutil.move(str(tmp_bin), final_tmp)
            os.replace(final_tmp, binary)
            os.replace(tmp_meta, diag_file)
            evict(cache_dir(), cache_limit_bytes(), _is_kernel_entry)
        else:
            meta = json.loads(diag_file.read_text())
            _touch(out_dir)
            diags = _rebase_diagnostics(meta["diagnostics"], ROOT_MARK, prefix)
            stderr = _rebase_text(meta["stderr"], ROOT_MARK, prefix)
        return CompileResult(True, binary, diags, stderr, time.perf_counter() - t0, cached, key)
    finally:
        procs.remove_scratch(work)


# --------------------------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------------------------
def cube_spec(soc: str) -> str:
    """The SoC's cube memories as the runtime reads them (spec line `cube`, env ACEMU_CUBE):
    L1, L0A, L0B, L0C and bias-table bytes, then the cube cores."""
    chip = get_soc(soc)
    return f"{chip.l1_bytes} {chip.l0a_bytes} {chip.l0b_bytes} {chip.l0c_bytes} {chip.bt_bytes} {chip.cube_cores}"


def soc_env(soc: str = DEFAULT_SOC) -> dict[str, str]:
    """Environment for a host program linked with the emulator runtime (it has no runner spec):
    the SoC's numbers from soc.py (UB, cores, memory sizes; the cube memories), so kernels and the
    host tiling API see the same SoC."""
    return {"ACEMU_SOC": get_soc(soc).emulator_line(), "ACEMU_CUBE": cube_spec(soc)}


def _scratch_dir(need_bytes: int) -> Path:
    """RAM-backed when it has room (containers often give /dev/shm only 64 MiB): arguments are
    written and memory-mapped, never parsed."""
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        try:
            if shutil.disk_usage(shm).free > need_bytes + (64 << 20):
                return procs.make_scratch("acemu-run-", shm)
        except OSError:
            pass
    return procs.make_scratch("acemu-run-")


# A block that made no AscendC call for this long, when the time limit stops the run, is looping in
# its own scalar code (no call of the emulator is that slow: one call moves at most a UB's worth).
STALL_S = 5.0


def read_progress(path: Path) -> dict | None:
    """The progress file of a stopped run (runtime.cpp's watchdog, rewritten twice a second):
    {elapsed_s, launches, blocks_done, blocks_total, running: [{block, core, calls, idle_s, line, api, file}]},
    or None when the run stopped before the first one was written."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return None
    out: dict[str, Any] = {"elapsed_s": 0.0, "launches": 0, "blocks_done": 0, "blocks_total": 0, "running": []}
    for ln in text.splitlines():
        parts = ln.split(" ")
        try:
            if parts[0] == "elapsed":
                out["elapsed_s"] = float(parts[1])
            elif parts[0] == "launches":
                out["launches"] = int(parts[1])
            elif parts[0] == "blocks":
                out["blocks_done"], out["blocks_total"] = int(parts[1]), int(parts[2])
            elif parts[0] == "running" and len(parts) >= 8:
                out["running"].append({"block": int(parts[1]), "core": parts[2], "calls": int(parts[3]),
                                       "idle_s": float(parts[4]), "line": int(parts[5]), "api": parts[6],
                                       "file": " ".join(parts[7:])})
        except (IndexError, ValueError):
            continue
    return out


def timeout_message(timeout: float, progress: dict | None, *, where=None) -> str:
    """What a stopped run says: how far it got, and whether that looks like a slow emulation (blocks
    finish, at a pace that needs more time) or an endless loop (a block stopped calling AscendC).
    `where(file, line)` may name a running block's position better (the DSL line of a lowered kernel)."""
    head = f"the kernel did not finish within {timeout:g} s and was stopped"
    if not progress or not progress.get("blocks_total"):
        return head + " before its first block started (an endless loop in the host code, or a very slow start?)"
    done, total = int(progress["blocks_done"]), int(progress["blocks_total"])
    running = sorted(progress.get("running") or [], key=lambda r: r["block"])

    def at(r: dict) -> str:
        if r["api"] == "-":
            return f"block {r['block']} (before its first AscendC call)"
        name = Path(r["file"]).name if r["file"] != "-" else "?"
        extra = where(r["file"], r["line"]) if where else ""
        return f"block {r['block']} at {r['api']} ({name}:{r['line']}{extra})"
    elapsed = float(progress.get("elapsed_s") or timeout)
    # No call for STALL_S, or (a short limit) for most of the run: looping in its own code.
    stalled = [r for r in running if r["idle_s"] >= min(STALL_S, max(1.0, 0.6 * elapsed))]
    text = f"{head}: {done} of {total} blocks had finished"
    if stalled:
        r = stalled[0]
        return (text + f"; {at(r)} has made no AscendC call for the last {r['idle_s']:.0f} s: an endless loop in the "
                f"kernel's own code (a loop whose counter never advances, or a bound read from the "
                f"wrong tiling field?)")
    if done > 0:
        need = elapsed * total / done
        return (text + f", the rest were running ({', '.join(at(r) for r in running[:3])}); at that pace the whole "
                f"run needs about {need:.0f} s: the emulation is slow for this size, not stuck (a longer time limit "
                f"lets it finish)")
    calls = sum(r["calls"] for r in running)
    return (text + f"; the running blocks keep calling AscendC ({calls} calls so far; "
            f"{', '.join(at(r) for r in running[:3])}): either one block's share is too much work to emulate in this "
            f"time, or a loop runs far longer than it should (a bound read from the wrong tiling field?)")


def _signal_name(code: int) -> str:
    try:
        return signal.Signals(code).name
    except ValueError:
        return f"signal {code}"


def run_kernel(
    sources: Sequence[str | Path],
    entry: str,
    block_dim: int,
    args: Sequence[Arg],
    *,
    soc: str = DEFAULT_SOC,
    timeout: float = 60,
    extra_flags: Sequence[str] = (),
    include_dirs: Sequence[str | Path] = (),
    tiling_key: int = 0,
    trace: str | Path | None = None,
) -> Report:
    """Compile (cached) and run ``entry`` on blocks 0..block_dim-1; see the module docstring.
    ``tiling_key`` is what TILING_KEY_IS compares with (the host's SetTilingKey). With ``trace``
    the run writes its pipe trace there (``ascendcraft_lab.perf.trace`` reads it)."""
    chip = get_soc(soc)
    if not 1 <= int(block_dim) <= 65535:
        raise ValueError(f"block_dim must be in 1..65535, got {block_dim}")
    if not (isinstance(timeout, (int, float)) and math.isfinite(timeout) and timeout > 0):
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    for a in args:
        if not isinstance(a, Arg):
            raise TypeError(f"kernel arguments must be Arg values (Arg.input, Arg.output, ...), got {type(a).__name__}")
    comp = compile_sources(sources, entry=entry, n_args=len(args), extra_flags=extra_flags, include_dirs=include_dirs,
                           soc=chip.name)
    timings: dict[str, Any] = {"compile_s": round(comp.compile_s, 4), "cached": comp.cached}
    if not comp.ok:
        first = next((d for d in comp.diagnostics if d["severity"] == "error"), None)
        msg = "compilation failed"
        if first:
            where = f"{first['file']}:{first['line']}: " if first["file"] else ""
            msg += f": {where}{first['message']}"
        return Report("compile-error", msg, comp.diagnostics, timings=timings, stderr=comp.stderr)

    work = _scratch_dir(sum(a.nbytes for a in args if a.kind != "workspace"))
    try:
        spec = [f"soc {chip.emulator_line()}", f"cube {cube_spec(chip.name)}", f"entry {entry}",
                f"tiling_key {int(tiling_key)}", f"blocks {int(block_dim)}",
                f"threads {os.cpu_count() or 1}", f"report {work / 'report.json'}"]
        spec.append(f"progress {work / 'progress.txt'}")   # how far it got, should the time limit stop it
        if trace is not None:
            spec.append(f"trace {Path(trace).resolve()}")
        out_files: dict[int, tuple[Path, Arg]] = {}
        for i, a in enumerate(args):
            path = work / f"arg{i}.bin"
            if a.kind == "input" or a.kind == "inout":
                assert isinstance(a.data, np.ndarray)
                a.data.tofile(path)
                spec.append(f"arg {'in' if a.kind == 'input' else 'inout'} {a.nbytes} {path}")
                if a.kind == "inout":
                    out_files[i] = (path, a)
            elif a.kind == "output":
                with open(path, "wb") as f:
                    f.truncate(a.nbytes)  # sparse: zero-filled GM costs nothing to pass
                spec.append(f"arg out {a.nbytes} {path}")
                out_files[i] = (path, a)
            elif a.kind == "tiling":
                path.write_bytes(a.data if isinstance(a.data, bytes) else b"")
                spec.append(f"arg tiling {a.nbytes} {path}")
            elif a.kind == "workspace":
                spec.append(f"arg ws {a.nbytes} -")
            else:
                raise ValueError(f"unknown argument kind {a.kind!r}")
        spec_path = work / "spec.txt"
        spec_path.write_text("\n".join(spec) + "\n")

        t0 = time.perf_counter()
        env = {**os.environ, "ACEMU_ALARM_S": str(int(math.ceil(timeout)) + 5)}
        memory = procs.child_memory()      # a kernel that allocates without end fails here, not the machine
        try:
            proc = procs.run([str(comp.binary), str(spec_path)], timeout=timeout, env=env,
                             memory=memory[0] if memory else None)
        except subprocess.TimeoutExpired as e:
            timings["run_s"] = round(time.perf_counter() - t0, 4)
            err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
            progress = read_progress(work / "progress.txt")
            return Report("timeout", timeout_message(timeout, progress), comp.diagnostics, timings=timings, stderr=err,
                          progress=progress)
        timings["run_s"] = round(time.perf_counter() - t0, 4)
        if proc.returncode != 0:
            oom = procs.out_of_memory(proc.stderr, memory)
            if oom:
                msg = f"the kernel {oom}"
            elif proc.returncode < 0:
                detail = next((ln for ln in proc.stderr.splitlines() if ln.startswith("acemu:")), "")
                msg = detail[len("acemu: "):] if detail else f"the kernel crashed ({_signal_name(-proc.returncode)})"
            else:
                msg = f"the kernel process exited with code {proc.returncode}: {proc.stderr.strip()[-500:]}"
            return Report("crash", msg, comp.diagnostics, timings=timings, stderr=proc.stderr)

        report_path = work / "report.json"
        data = json.loads(report_path.read_text())
        timings["kernel_s"] = round(float(data.get("kernel_s", 0.0)), 6)
        timings["ub_bytes"] = int(data.get("ub_bytes", 0))   # the most InitBuffer bytes a block held
        root = _common_root([Path(s).resolve().parent for s in sources] + [Path(d).resolve() for d in include_dirs])
        everything = _rebase_findings(data.get("findings", []), root)
        findings = [f for f in everything if f["kind"] not in NOTE_KINDS]
        notes = [f for f in everything if f["kind"] in NOTE_KINDS]
        outputs: dict[int, np.ndarray] = {}
        for i, (path, a) in out_files.items():
            if a.nbytes == 0:
                outputs[i] = np.zeros(a.shape, a.dtype)
                continue
            # Copy-on-write view of the file the kernel wrote: no copy, and it stays valid after the
            # scratch directory is removed (the mapping keeps the pages).
            outputs[i] = np.memmap(path, dtype=a.dtype, mode="c", shape=a.shape).view(np.ndarray)
        status = "findings" if findings else "ok"
        msg = f"{len(findings)} sanitizer finding(s)" if findings else ""
        return Report(status, msg, comp.diagnostics, findings, outputs, timings, proc.stderr, notes, proc.stdout)
    finally:
        procs.remove_scratch(work)


__all__ = ["Arg", "CompileResult", "Report", "FINDING_KINDS", "NOTE_KINDS", "STATUSES", "bf16_to_float32",
           "build_binary", "build_program",
           "cache_dir", "compile_sources", "cube_spec", "evict", "program_env", "run_op", "soc_env",
           "float32_to_bf16", "pack_tiling", "parse_diagnostics", "run_kernel"]


# --------------------------------------------------------------------------------------------
# Registered ops (msopgen projects): OpDef + TilingFunc + kernel, run as an aclnn call would
# --------------------------------------------------------------------------------------------
def _op_harness_source(op_type: str, kernel: str, n_args: int) -> str:
    params = ", ".join(["uint8_t*"] * n_args)
    call = ", ".join(f"a[{i}]" for i in range(n_args))
    return (
        "// Generated by ascendcraft_lab.backends.emulator.runner.run_op: registers the kernel of the op and runs it.\n"
        "#include <cstdint>\n"
        '#include "acemu/host/op_call.h"\n'
        f'extern "C" void {kernel}({params});\n'
        f"static void acemu_entry(uint8_t** a) {{ {kernel}({call}); }}\n"
        f'static const bool acemu_registered = acemu::op::register_kernel("{op_type}", "{kernel}", {n_args}, '
        'acemu_entry);\n'
        "int main(int argc, char** argv) { return acemu::op::harness_main(argc, argv); }\n"
    )


def _tensor_line(kind: str, a: np.ndarray, path: Path, logical: str | None = None) -> str:
    dims = " ".join(str(int(d)) for d in a.shape)
    return f"{kind} {logical or a.dtype.name} {a.nbytes} {path} {a.ndim} {dims}".rstrip()


def run_op(
    sources: Sequence[str | Path],
    op_type: str,
    inputs: Sequence[Any],
    outputs: Sequence[tuple[Any, Sequence[int]]],
    attrs: Sequence[Any] = (),
    *,
    kernel: str | None = None,
    soc: str = DEFAULT_SOC,
    timeout: float = 60,
    extra_flags: Sequence[str] = (),
    include_dirs: Sequence[str | Path] = (),
    tiling_header: str | Path | None = None,
) -> Report:
    """Run a registered op: the sources hold its OpDef (OP_ADD), TilingFunc and kernel. ``inputs``
    are arrays in OpDef order (None for a left-out optional input, a list of arrays for a dynamic
    one), ``outputs`` (dtype, shape) pairs, ``attrs`` Python values in OpDef order. The harness
    runs the TilingFunc and launches the kernel with its block dim, tiling data, workspace and
    tiling key; ``Report.outputs`` are keyed by output position (they start filled with 0xFF bytes,
    as device memory is not cleared, unless the OpDef sets InitValue). ``tiling_header`` is the host's
    TilingData header: as in an msopgen build, the kernel source sees its classes without including it."""
    from .sources import kernel_entries, tiling_prelude
    chip = get_soc(soc)
    if kernel is None:
        kernel = re.sub(r"(?<!^)(?=[A-Z])", "_", op_type).lower()
    items, entry = [], None
    prelude_flags: list[str] = []
    if tiling_header is not None:
        text = tiling_prelude(Path(tiling_header).resolve())
        prelude = cache_dir() / "preludes" / f"{hashlib.sha256(text.encode()).hexdigest()[:24]}.h"
        if not prelude.exists():
            prelude.parent.mkdir(parents=True, exist_ok=True)
            prelude.write_text(text)
        prelude_flags = ["-include", str(prelude)]
    for s in sources:
        found = next((e for e in kernel_entries(Path(s).read_text(errors="replace")) if e.name == kernel), None)
        entry = entry or found
        items.append((s, prelude_flags) if found is not None else s)
    if entry is None:
        return Report("compile-error",
                      f'no kernel entry `extern "C" __global__ __aicore__ void {kernel}(...)` in the sources')
    comp = build_binary(items, _op_harness_source(op_type, kernel, len(entry.params)), extra_flags=extra_flags,
                        include_dirs=include_dirs, soc=chip.name)
    timings: dict[str, Any] = {"compile_s": round(comp.compile_s, 4), "cached": comp.cached}
    if not comp.ok:
        first = next((d for d in comp.diagnostics if d["severity"] == "error"), None)
        where = f"{first['file']}:{first['line']}: " if first and first["file"] else ""
        return Report("compile-error", "compilation failed" + (f": {where}{first['message']}" if first else ""),
                      comp.diagnostics, timings=timings, stderr=comp.stderr)
    work = _scratch_dir(sum(np.asarray(a).nbytes for a in inputs if isinstance(a, np.ndarray)))
    try:
        spec = [f"soc {chip.emulator_line()}", f"cube {cube_spec(chip.name)}", f"op {op_type}",
                f"report {work / 'report.json'}"]
        k = 0
        for item in inputs:
            if item is None:
                spec.append("absent")
                continue
            group = item if isinstance(item, (list, tuple)) else [item]
            if isinstance(item, (list, tuple)):
                spec.append(f"list {len(group)}")
            for a in group:
                a = np.ascontiguousarray(a)
                path = work / f"in{k}.bin"
                k += 1
                a.tofile(path)
                spec.append(_tensor_line("input", a, path))
        for v in attrs:
            if isinstance(v, bool):
                spec.append(f"attr bool {int(v)}")
            elif isinstance(v, (int, np.integer)):
                spec.append(f"attr int {int(v)}")
            elif isinstance(v, (float, np.floating)):
                spec.append(f"attr float {float(v)!r}")
            elif isinstance(v, str):
                spec.append(f"attr str {v}")
            elif all(isinstance(x, (int, np.integer)) for x in v):
                spec.append(f"attr ints {len(v)} " + " ".join(str(int(x)) for x in v))
            else:
                spec.append(f"attr floats {len(v)} " + " ".join(repr(float(x)) for x in v))
        out_files = []
        for i, (dtype, shape) in enumerate(outputs):
            dt, name = _np_dtype(dtype)
            path = work / f"out{i}.bin"
            # Outputs start as device memory would: not cleared (0xFF bytes), unless the OpDef
            # sets an InitValue, which the harness writes before the launch.
            blank = np.full(tuple(shape), 0xFF, np.uint8).view(dt) if dt.itemsize == 1 else \
                np.frombuffer(b"\xff" * (int(np.prod(shape, dtype=np.int64)) * dt.itemsize), dt).reshape(tuple(shape))
            blank.tofile(path)
            spec.append(_tensor_line("output", blank, path, name))
            out_files.append((path, dt, tuple(shape)))
        (work / "spec.txt").write_text("\n".join(spec) + "\n")
        t0 = time.perf_counter()
        memory = procs.child_memory()
        try:
            proc = procs.run([str(comp.binary), str(work / "spec.txt")], timeout=timeout,
                             memory=memory[0] if memory else None)
        except subprocess.TimeoutExpired:
            return Report("timeout", f"the op did not finish within {timeout:g} s and was stopped",
                          comp.diagnostics, timings=timings)
        timings["run_s"] = round(time.perf_counter() - t0, 4)
        if proc.returncode != 0:
            detail = next((ln for ln in proc.stderr.splitlines() if ln.startswith("acemu:")), "")
            code = _signal_name(-proc.returncode) if proc.returncode < 0 else proc.returncode
            msg = detail[len("acemu: "):] if detail else f"the op's process ended with {code}"
            oom = procs.out_of_memory(proc.stderr, memory)
            msg = f"the op {oom}" if oom else msg
            return Report("crash" if proc.returncode < 0 else "error", msg, comp.diagnostics, timings=timings,
                          stderr=proc.stderr, stdout=proc.stdout)
        data = json.loads((work / "report.json").read_text())
        root = _common_root([Path(s).resolve().parent for s in sources] + [Path(d).resolve() for d in include_dirs])
        everything = _rebase_findings(data.get("findings", []), root)
        findings = [f for f in everything if f["kind"] not in NOTE_KINDS]
        notes = [f for f in everything if f["kind"] in NOTE_KINDS]
        outs = {i: np.fromfile(path, dtype=dt).reshape(shape) for i, (path, dt, shape) in enumerate(out_files)}
        timings["kernel_s"] = round(float(data.get("kernel_s", 0.0)), 6)
        return Report("findings" if findings else "ok", f"{len(findings)} sanitizer finding(s)" if findings else "",
                      comp.diagnostics, findings, outs, timings, proc.stderr, notes, proc.stdout)
    finally:
        procs.remove_scratch(work)


# --------------------------------------------------------------------------------------------
# Host programs (the samples' CPU-debug main.cpp): built against the emulator, run in a folder
# --------------------------------------------------------------------------------------------
def build_program(sources: Sequence[str | Path], *, include_dirs: Sequence[str | Path] = (),
                  extra_flags: Sequence[str] = (), soc: str | None = None) -> CompileResult:
    """A host program that launches kernels itself (ICPU_RUN_KF, ACLRT_LAUNCH_KERNEL, <<<>>>),
    linked with the emulator's runtime; findings go to its stderr when it ends."""
    return build_binary(sources, None, include_dirs=include_dirs, extra_flags=extra_flags, soc=soc)


def program_env(soc: str | None = None) -> dict[str, str]:
    """The environment a built host program runs with: this process's, and the SoC it emulates."""
    return {**os.environ, **soc_env(soc or DEFAULT_SOC)}
