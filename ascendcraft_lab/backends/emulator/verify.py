"""Compile a lowered AscendC project on the emulator, run it, and compare with PyTorch.

Two real builds happen: the generated host tiling function is compiled with g++ and run on
the input shapes (its numbers must equal the DSL host function's), and the generated kernel
is compiled against the emulator and run on every core with those tiling numbers. Findings
and compiler errors are mapped back to the C++ line and its DSL line.
"""
from __future__ import annotations

import hashlib
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

import numpy as np

from ... import procs
from ...config import cache_dir
from ...dsl import ir
from ...dsl.cube import uses_cube
from ...dsl.errors import Span, format_diagnostic
from ...dsl.host import bind_dims, evaluate_host, output_shape, workspace_layout
from ...dsl.verifier import verify
from ...passes.bundle import Bundle
from ...passes.host import dim_args
from ...passes.kernel import needs_sync_base
from ...passes.plan import Plan, plan_for
from ...passes.spec import LowerOptions
from ...reference.bind import Verdict, bind, compare, trim_outputs
from ...soc import DEFAULT_SOC, get_soc
from .runner import (INCLUDE_DIR, Arg, bf16_to_float32, cache_limit_bytes, compile_sources, evict, float32_to_bf16,
                     pack_tiling, run_kernel, timeout_message)

MAX_DIAGNOSTICS = 12  # compiler errors shown back per round: the first ones are the causes

# The time limit of one emulated run, scaled with the work (work_timeout): at least KERNEL_TIMEOUT_S,
# plus the work at rates far below what the emulator does on one CPU thread (bench/emu_speed.py:
# 20+ GFLOP/s on the cube's fp32 GEMM, GB/s on streaming vector kernels), so a limit that fires
# means an endless loop or a very slow kernel, not a big shape.
KERNEL_TIMEOUT_S = 120.0
SLOW_FLOPS = 1e9          # cube multiply-adds x 2 per second
SLOW_BYTES = 20e6         # GM bytes (inputs + outputs) per second


def work_of(inputs: Mapping[str, np.ndarray], outputs: list[tuple[int, ...]], itemsize: int,
            cube: bool) -> tuple[float, float]:
    """(FLOPs, bytes) of a run, from its tensors: the bytes moved in and out, and for a cube kernel
    2 * sqrt(|A| |B| |C|) with A, B the two largest inputs and C the largest output (in elements),
    which is 2 M N K for C[M, N] = A[M, K] B[K, N] (and for batched or matrix-vector products too,
    never less)."""
    ins = sorted((int(a.size) for a in inputs.values()), reverse=True)
    outs = [int(np.prod(s)) if len(s) else 1 for s in outputs]
    nbytes = float(sum(int(a.nbytes) for a in inputs.values()) + sum(outs) * itemsize)
    flops = 0.0
    if cube and len(ins) >= 2 and outs:
        flops = 2.0 * float(ins[0] * ins[1] * max(outs)) ** 0.5
    return flops, nbytes


def work_timeout(flops: float, nbytes: float) -> float:
    """Seconds an emulated run of this work may take before it is stopped (see KERNEL_TIMEOUT_S)."""
    return KERNEL_TIMEOUT_S + flops / SLOW_FLOPS + nbytes / SLOW_BYTES


@dataclass
class EmulatorRun:
    status: str                       # ok | findings | compile-error | crash | timeout | tiling-mismatch
    message: str
    outputs: dict[str, np.ndarray] = field(default_factory=dict)
    inputs_after: dict[str, np.ndarray] = field(default_factory=dict)   # input GM buffers after the kernel
    findings: list[dict] = field(default_factory=list)
    diagnostics: list[dict] = field(default_factory=list)
    tiling: dict[str, int | float] = field(default_factory=dict)
    block_dim: int = 0
    timings: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k not in ("outputs", "inputs_after")}


def tiling_fields(plan: Plan, values: Mapping[str, int | float]) -> list[tuple[str, int | float]]:
    """The tiling struct's (type, value) list in declaration order, for packing."""
    out = []
    for f in plan.tiling_fields:
        v = values[f.name]
        out.append(("float", float(v)) if f.ctype == "float" else ("int64", int(v)))
    return out


def _run_tiling_probe(plan: Plan, bundle: Bundle, dims: Mapping[str, int],
                      scalars: Mapping[str, float]) -> tuple[dict | None, str]:
    """Compile the generated tiling function with a tiny main that prints every field.

    The dims and scalars come in on the command line, so one build serves every input set of
    a project (the cache keys the probe by the tiling sources alone)."""
    args = [str(int(dims[d])) for d, _, _ in dim_args(plan)]
    args += [repr(float(scalars[s.name])) if s.dtype.is_float else str(int(scalars[s.name]))
             for s in plan.program.scalars]
    kinds = ["int"] * len(dim_args(plan)) + ["float" if s.dtype.is_float else "int" for s in plan.program.scalars]
    reads = [f"std::strtod(argv[{i + 1}], nullptr)" if k == "float" else f"std::strtoll(argv[{i + 1}], nullptr, 10)"
             for i, k in enumerate(kinds)]
    prints = " ".join(f'std::printf("{f.name} %.17g\\n", static_cast<double>(t.{f.name}));' for f in plan.tiling_fields)
    main = (f'#include <cstdio>\n#include <cstdlib>\n#include "{plan.op}_tiling.h"\n'
            f"int main(int argc, char **argv) {{ if (argc != {len(args) + 1}) return 2; {plan.tiling_struct} t{{}};"
            f" uint32_t blocks = {plan.tiling_struct}Func({', '.join(reads + ['t'])});"
            f' std::printf("cores %u\\n", blocks); {prints} return 0; }}\n')
    source = bundle[plan.tiling_impl_path]
    key = hashlib.sha256((source + bundle[plan.tiling_path] + main).encode()).hexdigest()[:32]
    entry = cache_dir() / "tiling" / key      # one folder per probe, so the cache can evict it whole
    exe = entry / "probe"
    if not exe.exists():
        with procs.scratch_dir("ascendcraft-tiling-") as root:
            (root / "host").mkdir()
            (root / plan.tiling_impl_path).write_text(source)
            (root / plan.tiling_path).write_text(bundle[plan.tiling_path])
            (root / "probe.cpp").write_text(main)
            out = procs.run(["g++", "-std=c++17", "-O0", "-I", str(root / "host"), str(root / plan.tiling_impl_path),
                             str(root / "probe.cpp"), "-o", str(root / "probe")])
            if out.returncode:
                first = next((l for l in out.stderr.splitlines() if "error" in l), out.stderr.strip()[:200])
                return None, f"the host tiling code does not compile: {first.replace(str(root) + '/', '')}"
            entry.mkdir(parents=True, exist_ok=True)
            os.replace(root / "probe", exe)
        evict(entry.parent, cache_limit_bytes() // 8)
    try:
        run = procs.run([str(exe), *args], timeout=30)
    except subprocess.TimeoutExpired:
        return None, "the host tiling code did not finish within 30 s (an endless loop in the tiling function?)"
    if run.returncode:
        return None, f"the host tiling code crashed (exit {run.returncode})"
    values = {}
    for line in run.stdout.splitlines():
        name, _, v = line.partition(" ")
        values[name] = float(v)
    return values, ""


@dataclass
class CheckedLaunch:
    """The launch for concrete inputs: the DSL host function's numbers, which the generated C++
    tiling function reproduced (compiled and run on the same shapes)."""
    plan: Plan
    dims: dict
    launch: dict            # cores and every Launch field
    values: dict            # every tiling struct field: dims, Launch fields, scalars


def checked_launch(program: ir.Program, bundle: Bundle, inputs: Mapping[str, np.ndarray],
                   scalars: Mapping[str, int | float], soc) -> tuple[CheckedLaunch | None, str, str]:
    """(launch, status, message): status is "" when the C++ tiling agrees with the DSL, else
    "compile-error" or "tiling-mismatch" with one sentence."""

    plan = plan_for(program, LowerOptions(soc=soc.name))
    shapes = {n: tuple(a.shape) for n, a in inputs.items()}
    dims = bind_dims(program, shapes)
    launch = evaluate_host(program, shapes, scalars, soc)
    values = {**dims, **{k: v for k, v in launch.items() if k != "cores"}, **scalars}
    result = CheckedLaunch(plan, dims, launch, values)
    probe, err = _run_tiling_probe(plan, bundle, dims, scalars)
    if probe is None:
        return result, "compile-error", err
    expected = {"cores": launch["cores"], **{f.name: values[f.name] for f in plan.tiling_fields}}
    wrong = [k for k, v in expected.items()
             if abs(float(probe.get(k, float("nan"))) - float(v)) > 1e-6 * max(1.0, abs(float(v)))]
    if wrong:
        detail = ", ".join(f"{k}: C++ {probe.get(k)} vs DSL {expected[k]}" for k in wrong)
        return (result, "tiling-mismatch",
                f"the generated tiling function disagrees with the DSL host function ({detail})")
    return result, "", ""


def write_bundle_files(bundle: Bundle, root: Path) -> None:
    """The bundle's files under `root`, leaving files whose text is unchanged untouched."""
    for path, text in bundle.files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.is_file() or target.read_text() != text:
            target.write_text(text)


def emulate(program: ir.Program, bundle: Bundle, inputs: Mapping[str, np.ndarray], scalars: Mapping[str, int | float],
            *, soc: str = DEFAULT_SOC, timeout: float | None = None, root: Path | None = None,
            trace: Path | None = None, tiling: Mapping[str, int] | None = None) -> EmulatorRun:
    """Run the bundle's kernel on the emulator for concrete `inputs` (by GM param name).

    The bundle is written under `root` (a temporary folder when None) and compiled there; the
    inputs travel as in/out GM buffers, so what the kernel leaves in them comes back too
    (`inputs_after`), for a check that it did not write into its inputs. With `trace` the run
    writes its pipe trace there (``ascendcraft_lab.perf`` estimates the kernel's time from it).
    `tiling` replaces tiling fields after the generated tiling function was checked (the tiling
    ranking's trials: the kernel reads them from the tiling struct, so one build serves them all).
    `timeout` None: scaled with the work (`work_timeout`); a run it stops says how far it got."""
    options_soc = get_soc(soc)
    checked, status, message = checked_launch(program, bundle, inputs, scalars, options_soc)
    if status:
        return EmulatorRun(status, message, tiling=checked.values)
    plan, dims, launch, values = checked.plan, checked.dims, checked.launch, checked.values
    if tiling:
        unknown = sorted(set(tiling) - {f.name for f in plan.tiling_fields})
        if unknown:
            raise ValueError(f"no tiling field {', '.join(unknown)} in {plan.tiling_struct}")
        values = {**values, **tiling}
    env = {**dims, **scalars}
    args, names, kinds, out_shapes = [], [], [], []
    for t in program.tensors():
        if t.role is ir.TensorRole.output:
            shape = output_shape(program, t, env, options_soc)
            out_shapes.append(tuple(shape))
            args.append(Arg.output(t.dtype.np if t.dtype is not ir.DType.bf16 else "bfloat16", shape))
            kinds.append("out")
        elif t.dtype is ir.DType.bf16:     # bfloat16 travels as its raw bits (numpy has no bfloat16)
            f32 = np.ascontiguousarray(inputs[t.name], dtype=np.float32)
            args.append(Arg.inout(float32_to_bf16(f32.reshape(-1)).reshape(f32.shape)))
            kinds.append("in")
        else:
            args.append(Arg.inout(np.ascontiguousarray(inputs[t.name], dtype=t.dtype.np)))
            kinds.append("in")
        names.append(t.name)
    workspace_bytes = workspace_layout(program, env, options_soc, int(launch["cores"]))[1]
    args.append(Arg.workspace(max(32, workspace_bytes)))   # zeroed GM
    args.append(Arg.tiling(pack_tiling(tiling_fields(plan, values))))
    if needs_sync_base(program):      # the launch's cross-core sync base (passes/kernel.py): any GM address
        args.append(Arg.workspace(32))

    work = work_of({n: a for n, a in inputs.items() if isinstance(a, np.ndarray)}, out_shapes, 4, uses_cube(program))
    limit = float(timeout) if timeout is not None else work_timeout(*work)

    def run(folder: Path):
        write_bundle_files(bundle, folder)
        return run_kernel([folder / plan.kernel_path], plan.entry, int(launch["cores"]), args, soc=options_soc.name,
                          timeout=limit, include_dirs=[folder / "host"], trace=trace)
    if root is None:
        with procs.scratch_dir("ascendcraft-emu-") as tmp:
            report = run(tmp)
    else:
        report = run(Path(root))
    message = report.message
    if report.status == "timeout":   # say where the running blocks were, in the kernel and in the DSL draft
        def where(file: str, line: int) -> str:
            ours = file != "-" and Path(file).name == Path(plan.kernel_path).name
            dsl = bundle.dsl_line(plan.kernel_path, line) if ours else 0
            return f", DSL line {dsl}" if dsl else ""
        work_text = "" if timeout is not None else \
            f"; the limit allows for {work[0] / 1e9:.3g} GFLOP and {work[1] / 1e6:.3g} MB"
        message = timeout_message(limit, report.progress, where=where) + work_text
    bf16 = {t.name for t in program.tensors() if t.dtype is ir.DType.bf16}

    def value(i, a):     # bfloat16 bits back as float32 values (the reference's bf16 are float32 too)
        return bf16_to_float32(a) if names[i] in bf16 else a
    outputs = {names[i]: value(i, a) for i, a in report.outputs.items() if i < len(names) and kinds[i] == "out"}
    after = {names[i]: value(i, a) for i, a in report.outputs.items() if i < len(names) and kinds[i] == "in"}
    findings = [dict(f, dsl_line=bundle.dsl_line(plan.kernel_path, int(f.get("line") or 0))) for f in report.findings]
    for f in findings:
        in_kernel = f.get("file") and Path(f["file"]).name == Path(plan.kernel_path).name
        f["file"] = plan.kernel_path if in_kernel else f.get("file")
    diags = []
    for d in report.diagnostics:
        d = dict(d)
        if d.get("file") and Path(d["file"]).name == Path(plan.kernel_path).name:
            d["file"] = plan.kernel_path
            d["dsl_line"] = bundle.dsl_line(plan.kernel_path, int(d.get("line") or 0))
        diags.append(d)
    return EmulatorRun(report.status, message, outputs, after, findings, diags, values, int(launch["cores"]),
                       dict(report.timings))


def compile_errors(bundle: Bundle, plan: Plan, *, link: bool, host: bool) -> list[str]:
    """Compiler errors of the bundle, as `path:line:col: message` lines (paths project-relative).

    The kernel is compiled against the emulator (syntax only, or compiled and linked when
    `link`); the host tiling code too when `host` (it changed). Nothing is run. This is the
    compiler feedback the LLM engine gives a model (the session layer hands it to the engine).
    """
    out: list[str] = []
    with procs.scratch_dir("ascendcraft-llm-") as tmp:
        root = tmp.resolve()

        def local(text: str) -> str:  # no machine paths in feedback: prompts hash the same everywhere
            return text.replace(str(root) + "/", "").replace(str(INCLUDE_DIR) + "/", "<emulator>/")

        for path, text in bundle.files.items():
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        jobs = []
        if plan.kernel_path in bundle.files:
            jobs.append((plan.kernel_path, link))
        if host and plan.tiling_impl_path in bundle.files:
            jobs.append((plan.tiling_impl_path, False))
        for path, full in jobs:
            n_args = len(plan.program.tensors()) + 2 + needs_sync_base(plan.program)
            kw = dict(entry=plan.entry, n_args=n_args) if full else {}
            result = compile_sources([root / path], include_dirs=[root / "host"], **kw)
            for d in result.errors:
                where = local(str(d.get("file") or ""))
                loc = f"{where}:{d['line']}:{d['col']}: " if where and d.get("line") else ""
                dsl = bundle.dsl_line(where, int(d.get("line") or 0)) if where in bundle.files else 0
                message = local(str(d["message"]))
                out.append(f"{loc}error: {message}" + (f" (DSL line {dsl})" if dsl else ""))
                if len(out) >= MAX_DIAGNOSTICS:
                    return out
    return out


def check_emulator(program: ir.Program, bundle: Bundle, ref, *, soc: str | None = None,
                   rtol: float | None = None, atol: float | None = None, trace: Path | None = None,
                   tiling: Mapping[str, int] | None = None):
    """Run the bundle on the reference's inputs; a Verdict (as the interpreter's) plus the run
    (with `trace`, its pipe trace is written there; `tiling` overrides fields, see `emulate`)."""
    s = get_soc(soc)
    inputs, expected = bind(program, ref)
    if expected and all(np.size(v) == 0 for v in expected.values()):
        # a zero size is the user's input: nothing to write, so the launch code returns before the
        # launch (as PyTorch's ops do), and the host function is not asked to tile nothing
        msg = (f"correct: every output of `{program.kernel.name}` is empty ({_empty_shapes(expected)}): "
               "nothing to compute, no launch")
        return Verdict(True, 0.0, 0.0, 0.0, 0.0, [], msg, "emulator", s.name, {}), EmulatorRun("ok", "empty output")
    scalars = {p.name: inputs[p.name] for p in program.scalars}
    tensors = {n: v for n, v in inputs.items() if isinstance(v, np.ndarray)}
    shapes = {n: np.shape(v) for n, v in tensors.items()}
    typed = verify(program, s, shapes=shapes, scalars=scalars)
    run = emulate(typed, bundle, tensors, scalars, soc=s.name, trace=trace, tiling=tiling)
    name = typed.kernel.name
    if run.status not in ("ok", "findings"):
        return Verdict(False, float("inf"), float("inf"), 0.0, 0.0, [], f"{run.status}: {run.message}", "emulator",
                       s.name, dict(run.tiling)), run
    got = trim_outputs(typed, run.outputs)
    checks = [compare(p.name, got[p.name], expected[p.name], p.dtype, rtol, atol) for p in typed.outputs]
    correct = all(c.correct for c in checks) and run.status == "ok"
    max_abs = max((c.max_abs_err for c in checks), default=0.0)
    max_rel = max((c.max_rel_err for c in checks), default=0.0)
    used_rtol = max((c.rtol for c in checks), default=0.0)
    used_atol = max((c.atol for c in checks), default=0.0)
    if correct:
        msg = (f"correct: `{name}` matches the reference on the emulator ({s.name}, {run.block_dim} cores): "
               f"max abs err {max_abs:.3g}, max rel err {max_rel:.3g} (rtol {used_rtol:g}, atol {used_atol:g})")
    elif all(c.correct for c in checks):
        msg = f"incorrect: results match but the emulator reported {len(run.findings)} finding(s)"
    else:
        bad = next(c for c in checks if not c.correct)
        msg = (f"incorrect: `{bad.name}` differs at {bad.mismatches} elements (worst {bad.worst}); "
               f"max abs err {max_abs:.3g}, max rel err {max_rel:.3g} (rtol {used_rtol:g}, atol {used_atol:g})")
    return Verdict(correct, max_abs, max_rel, used_rtol, used_atol, checks, msg, "emulator", s.name,
                   {"cores": run.block_dim, **run.tiling}), run


def _empty_shapes(outputs: Mapping[str, np.ndarray]) -> str:
    return ", ".join(f"`{n}` {list(np.shape(v))}" for n, v in outputs.items())


def render_run(run: EmulatorRun, program: ir.Program, limit: int = 10) -> str:
    """Findings and compiler errors in the shared diagnostic format, pointing at DSL lines."""
    out = []
    for f in run.findings[:limit]:
        where = f"{f.get('file')}:{f.get('line')}"
        count = f" (x{f['count']})" if f.get("count", 1) > 1 else ""
        span = Span.point(f["dsl_line"]) if f.get("dsl_line") else None
        out.append(format_diagnostic(program.path, program.source, span,
                                     f"[emulator/{f['kind']}] {f['message']} at {where}, block {f.get('block')}{count}",
                                     severity="error"))
    for d in [d for d in run.diagnostics if d.get("severity") == "error"][:limit]:
        out.append(format_diagnostic(program.path, program.source,
                                     Span.point(d["dsl_line"]) if d.get("dsl_line") else None,
                                     f"[g++] {d['message']} at {d.get('file')}:{d.get('line')}"))
    return "\n".join(out)
