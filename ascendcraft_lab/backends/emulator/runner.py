"""Compile AscendC kernels with g++ against the emulator headers and run them on the CPU.

The runner owns the emulator's host side: it compiles kernel sources (cached by content hash),
generates the harness that calls the kernel entry, passes the kernel arguments to a child
process through files (raw bytes, memory-mapped by the child), and turns what comes back into a
:class:`Report`. The kernel always runs in a child process, so a crash or an endless loop is a
``status``, never an exception in the caller.

Python API
----------
``run_kernel(sources, entry, block_dim, args, *, soc=DEFAULT_SOC, timeout=60, extra_flags=(), include_dirs=()) -> Report``
    Compile (or reuse the cached binary), run blocks ``0..block_dim-1`` and collect outputs and
    sanitizer findings. ``args`` are in the kernel's parameter order.

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
binary is keyed by the sha256 of the sources (content and path), the local headers they include,
the emulator headers and runtime, the flags, the compiler version and the CPU.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from ...soc import DEFAULT_SOC, get_soc

HERE = Path(__file__).resolve().parent
INCLUDE_DIR = HERE / "include"
RUNTIME_SRC = HERE / "runtime" / "runtime.cpp"
CXX = os.environ.get("CXX", "g++")

# -march=native: the binary only ever runs on the machine that built it (the CPU is in the cache key).
# -fvect-cost-model=dynamic: lets -O2 vectorise loops that need an alias check (dst may equal src).
# -fno-strict-aliasing: kernels reinterpret GM and UB bytes freely, as the device compiler allows.
BASE_FLAGS = ("-std=c++17", "-O2", "-fvect-cost-model=dynamic", "-fno-math-errno", "-fno-strict-aliasing", "-march=native", "-pthread")
WARN_FLAGS = ("-Wall", "-Wextra")

STATUSES = ("ok", "findings", "compile-error", "crash", "timeout")
FINDING_KINDS = ("ub-overflow", "unaligned-datacopy", "unaligned-ub-address", "queue-misuse", "gm-out-of-bounds",
                 "uninitialised-ub-read", "gm-race", "repeat-overflow", "sync-all-mismatch", "sync-all-workspace",
                 # the cube (acemu/cube.h, acemu/matmul.h)
                 "l1-overflow", "l0-overflow", "unaligned-fractal", "uninitialised-cube-read", "pipe-hazard", "wrong-position",
                 "cube-param", "cross-core-sync")


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
_DIAG_RE = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): (?P<sev>fatal error|error|warning|note): (?P<msg>.*)$")
_LINK_RE = re.compile(r"undefined reference to `(?P<sym>[^']+)'")


def parse_diagnostics(stderr: str) -> list[dict]:
    """g++ messages as {file, line, col, severity, message}; linker errors have line 0."""
    diags = []
    for raw in stderr.splitlines():
        m = _DIAG_RE.match(raw)
        if m:
            sev = "error" if m["sev"] == "fatal error" else m["sev"]
            diags.append({"file": m["file"], "line": int(m["line"]), "col": int(m["col"]), "severity": sev, "message": m["msg"]})
            continue
        m = _LINK_RE.search(raw)
        if m:
            diags.append({"file": "", "line": 0, "col": 0, "severity": "error", "message": f"undefined reference to `{m['sym']}'"})
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
            lines.append(f"  {f['file']}:{f['line']}: {f['kind']} in {f['api']}, block {f['block']}{times}: {f['message']}")
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


_toolchain_memo: dict[str, str] = {}


def _toolchain_fingerprint() -> str:
    """Compiler version, CPU and the emulator's own sources: anything that changes the binary."""
    if "fp" in _toolchain_memo:
        return _toolchain_memo["fp"]
    h = hashlib.sha256()
    try:
        h.update(subprocess.run([CXX, "--version"], capture_output=True, text=True, timeout=30).stdout.encode())
    except (OSError, subprocess.SubprocessError):
        h.update(b"no-compiler")
    try:
        cpu = Path("/proc/cpuinfo").read_text(errors="replace")
        for key in ("model name", "flags"):
            m = re.search(rf"^{key}\s*:\s*(.*)$", cpu, re.M)
            h.update((m.group(1) if m else "").encode())
    except OSError:
        pass
    for p in sorted(INCLUDE_DIR.rglob("*.h")) + [RUNTIME_SRC]:
        h.update(str(p.relative_to(HERE)).encode())
        h.update(p.read_bytes())
    h.update(" ".join(BASE_FLAGS).encode())
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
    """runtime.cpp compiled once per emulator version (it is the slow part to compile)."""
    obj = cache_dir() / f"runtime-{_toolchain_fingerprint()[:24]}.o"
    if obj.exists():
        return obj
    tmp = obj.with_suffix(f".{os.getpid()}.tmp.o")
    cmd = [CXX, *BASE_FLAGS, "-isystem", str(INCLUDE_DIR), "-c", str(RUNTIME_SRC), "-o", str(tmp)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"building the emulator runtime failed:\n{r.stderr}")
    os.replace(tmp, obj)
    return obj


def _harness_source(entry: str, n_args: int) -> str:
    params = ", ".join(["uint8_t*"] * n_args) or "void"
    call = ", ".join(f"a[{i}]" for i in range(n_args))
    return (
        "// Generated by ascendcraft_lab.backends.emulator.runner: calls the kernel entry once per block.\n"
        "#include <cstdint>\n"
        f'extern "C" void {entry}({params});\n'
        "namespace acemu { namespace rt { int harness_main(int, char**, int, void (*)(uint8_t**)); } }\n"
        f"static void acemu_launch(uint8_t** a) {{ (void)a; {entry}({call}); }}\n"
        f"int main(int argc, char** argv) {{ return acemu::rt::harness_main(argc, argv, {n_args}, acemu_launch); }}\n"
    )


def compile_sources(
    sources: Sequence[str | Path],
    *,
    entry: str | None = None,
    n_args: int | None = None,
    extra_flags: Sequence[str] = (),
    include_dirs: Sequence[str | Path] = (),
    host: bool = False,
) -> CompileResult:
    """Compile kernel sources; link a runnable binary when ``entry`` and ``n_args`` are given.
    ``host=True``: the sources are a host program with its own ``main`` (launching with
    ACLRT_LAUNCH_KERNEL); it is linked with the runtime, cached the same way, and run with
    :func:`soc_env` in its environment."""
    t0 = time.perf_counter()
    srcs = [Path(s).resolve() for s in sources]
    incs = [Path(d).resolve() for d in include_dirs]
    for s in srcs:
        if not s.is_file():
            return CompileResult(False, None, [{"file": str(s), "line": 0, "col": 0, "severity": "error", "message": "no such source file"}],
                                 f"{s}: no such file", 0.0, False)
    inc_flags = ["-isystem", str(INCLUDE_DIR)] + [f"-I{d}" for d in incs]
    flags = [*BASE_FLAGS, *WARN_FLAGS, *extra_flags]
    if host:
        entry, n_args = "", -1
    elif entry is None or n_args is None:
        cmd = [CXX, *flags, "-fsyntax-only", *inc_flags, *map(str, srcs)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        diags = parse_diagnostics(r.stderr)
        return CompileResult(r.returncode == 0, None, diags, r.stderr, time.perf_counter() - t0, False)

    if not host and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", entry):
        raise ValueError(f"entry must be a C identifier, got {entry!r}")
    h = hashlib.sha256()
    h.update(_toolchain_fingerprint().encode())
    h.update(json.dumps([entry, n_args, list(extra_flags), [str(d) for d in incs]]).encode())
    for p in srcs + _local_includes(srcs, incs):
        h.update(str(p).encode())
        h.update(p.read_bytes())
    key = h.hexdigest()
    out_dir = cache_dir() / key
    binary = out_dir / "kernel"
    diag_file = out_dir / "compile.json"
    if binary.exists() and diag_file.exists():
        try:
            meta = json.loads(diag_file.read_text())
            return CompileResult(True, binary, meta["diagnostics"], meta["stderr"], time.perf_counter() - t0, True, key)
        except (OSError, ValueError, KeyError):
            pass

    runtime_obj = _runtime_object()
    work = Path(tempfile.mkdtemp(prefix="acemu-build-"))
    try:
        harness = work / "acemu_harness.cpp"
        if not host:
            harness.write_text(_harness_source(entry, n_args))
        tmp_bin = work / "kernel"
        cmd = [CXX, *flags, *inc_flags, *map(str, srcs), *([] if host else [str(harness)]), str(runtime_obj), "-o", str(tmp_bin)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        stderr = r.stderr
        diags = parse_diagnostics(stderr)
        if r.returncode != 0:
            if not host and any(f"undefined reference to `{entry}'" in d["message"] for d in diags):
                diags.insert(0, {"file": "", "line": 0, "col": 0, "severity": "error",
                                 "message": f"kernel entry '{entry}' not found: define it as "
                                            f"extern \"C\" __global__ __aicore__ void {entry}(GM_ADDR ...) with {n_args} parameters"})
            elif not any(d["severity"] == "error" for d in diags):
                diags.append({"file": "", "line": 0, "col": 0, "severity": "error", "message": stderr.strip()[-2000:] or "compiler failed"})
            return CompileResult(False, None, diags, stderr, time.perf_counter() - t0, False, key)
        out_dir.mkdir(parents=True, exist_ok=True)
        tmp_meta = out_dir / f"compile.{os.getpid()}.json"
        tmp_meta.write_text(json.dumps({"diagnostics": diags, "stderr": stderr}))
        final_tmp = out_dir / f"kernel.{os.getpid()}.tmp"
        shutil.move(str(tmp_bin), final_tmp)
        os.replace(final_tmp, binary)
        os.replace(tmp_meta, diag_file)
        return CompileResult(True, binary, diags, stderr, time.perf_counter() - t0, False, key)
    finally:
        shutil.rmtree(work, ignore_errors=True)


# --------------------------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------------------------
def cube_spec(soc: str) -> str:
    """The SoC's cube memories as the runtime reads them (spec line `cube`, env ACEMU_CUBE):
    L1, L0A, L0B, L0C and bias-table bytes, then the cube cores."""
    chip = get_soc(soc)
    return f"{chip.l1_bytes} {chip.l0a_bytes} {chip.l0b_bytes} {chip.l0c_bytes} {chip.bt_bytes} {chip.cube_cores}"


def soc_env(soc: str = "Ascend910B2") -> dict[str, str]:
    """Environment for a host program linked with the emulator runtime (it has no runner spec):
    the cube memory sizes from soc.py, so kernels and the host tiling API see the same SoC."""
    return {"ACEMU_CUBE": cube_spec(soc)}


def _scratch_dir(need_bytes: int) -> Path:
    """RAM-backed when it has room (containers often give /dev/shm only 64 MiB): arguments are
    written and memory-mapped, never parsed."""
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        try:
            if shutil.disk_usage(shm).free > need_bytes + (64 << 20):
                return Path(tempfile.mkdtemp(prefix="acemu-run-", dir=shm))
        except OSError:
            pass
    return Path(tempfile.mkdtemp(prefix="acemu-run-"))


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
) -> Report:
    """Compile (cached) and run ``entry`` on blocks 0..block_dim-1; see the module docstring."""
    chip = get_soc(soc)
    if not 1 <= int(block_dim) <= 65535:
        raise ValueError(f"block_dim must be in 1..65535, got {block_dim}")
    for a in args:
        if not isinstance(a, Arg):
            raise TypeError(f"kernel arguments must be Arg values (Arg.input, Arg.output, ...), got {type(a).__name__}")
    comp = compile_sources(sources, entry=entry, n_args=len(args), extra_flags=extra_flags, include_dirs=include_dirs)
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
        spec = [f"soc {chip.name} {chip.ub_bytes} {chip.ub_usable} {chip.vector_cores}", f"cube {cube_spec(chip.name)}",
                f"blocks {int(block_dim)}",
                f"threads {os.cpu_count() or 1}", f"report {work / 'report.json'}"]
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
        try:
            proc = subprocess.run([str(comp.binary), str(spec_path)], capture_output=True, text=True, timeout=timeout,
                                  errors="replace")
        except subprocess.TimeoutExpired as e:
            timings["run_s"] = round(time.perf_counter() - t0, 4)
            err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
            return Report("timeout", f"the kernel did not finish within {timeout:g} s and was stopped (an endless loop, "
                                     f"or a loop bound read from the wrong tiling field?)", comp.diagnostics, timings=timings, stderr=err)
        timings["run_s"] = round(time.perf_counter() - t0, 4)
        if proc.returncode != 0:
            if proc.returncode < 0:
                detail = next((ln for ln in proc.stderr.splitlines() if ln.startswith("acemu:")), "")
                msg = detail[len("acemu: "):] if detail else f"the kernel crashed ({_signal_name(-proc.returncode)})"
            else:
                msg = f"the kernel process exited with code {proc.returncode}: {proc.stderr.strip()[-500:]}"
            return Report("crash", msg, comp.diagnostics, timings=timings, stderr=proc.stderr)

        report_path = work / "report.json"
        data = json.loads(report_path.read_text())
        timings["kernel_s"] = round(float(data.get("kernel_s", 0.0)), 6)
        timings["ub_bytes"] = int(data.get("ub_bytes", 0))   # the most InitBuffer bytes a block held
        findings = data.get("findings", [])
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
        return Report(status, msg, comp.diagnostics, findings, outputs, timings, proc.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)


__all__ = ["Arg", "CompileResult", "Report", "FINDING_KINDS", "STATUSES", "bf16_to_float32", "cache_dir", "compile_sources", "cube_spec",
           "float32_to_bf16", "pack_tiling", "parse_diagnostics", "run_kernel", "soc_env"]
