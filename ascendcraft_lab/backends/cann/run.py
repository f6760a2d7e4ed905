"""Run a built kernel on the NPU against its PyTorch reference, MultiKernelBench's way.

NOT YET RUN ON HARDWARE by the project: written against the documented torch_npu API and
MultiKernelBench's harness (utils/correctness.py, utils/performance.py); everything that does
not need the chip (refusal, argument binding, the verdict) is tested on CPU.

The protocol (in a child process, so a crashing kernel never takes the caller down):
- load the library (`torch.ops.load_library`) and the reference module (with overrides);
- the draws (DRAWS): by default the project's, `Model(*get_init_inputs())` after
  `torch.manual_seed(seed)` and input set `t` from `get_inputs()` after `manual_seed(seed + t)`; or
  MultiKernelBench's (`draws="mkb"`), the same tensors its harness gives the exported submission;
- correctness: 5 input sets (or the reference's get_input_groups() under MultiKernelBench's draws);
  the reference forward and `torch.ops.ascendcraft.<entry>` (arguments bound as in
  dsl/check.py) are compared with the project's tolerances (dsl/check.py: f32 1e-4, f16/bf16
  1e-2; MultiKernelBench uses 1e-4 for f32 too);
- timing: `torch.npu.Event(enable_timing=True)` around each call, synchronised, 3 warm-ups and
  100 timed calls, for the custom op and for PyTorch eager (`Model.forward`) on the NPU;
  speedup = eager mean / custom mean, and Fast_p = correct and speedup > p;
- before the first launch, the device's core count is compared with the session SoC's
  (device.py: read through ACL, never `get_device_name`) and a mismatch is refused in one line;
- the child prints its results (one JSON line, flushed) before it asks the device anything
  optional (the SoC name): a query that crashes the child loses nothing already measured.

Both verdicts are reported: the project's tolerances and MultiKernelBench's, which accepts an
output when `torch.allclose(ref, new, atol=1e-4, rtol=1e-4)` for every float type
(utils/correctness.py at e6c7543; a later revision uses 1e-3 for f16/bf16).
"""
from __future__ import annotations

import argparse
import ast
import json
import math
import subprocess
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ... import procs
from .detect import Toolchain, detect, refuse_reason

CORRECT_TRIALS = 5
# How a check draws its inputs. `project`: Model after manual_seed(seed), input set t after
# manual_seed(seed + t) (the emulator's and interpreter's checks draw the same way). `mkb`:
# MultiKernelBench's utils/correctness.py (wzzll123/MultiKernelBench at 460a972): get_init_inputs()
# unseeded, manual_seed(1024) (torch and the NPU) before Model and again before ModelNew, then five
# get_inputs() drawn one after the other (or get_input_groups()) before any forward. Where ModelNew
# builds a copy of the reference Model (signature.model_new_builds_reference) that copy is built here
# too, so the inputs are the very tensors MultiKernelBench would feed the exported submission.
DRAWS = ("project", "mkb")
MKB_SEED = 1024
WARMUP = 3
TIMED = 100
FAST_P = (0.0, 0.5, 0.8, 1.0, 1.5, 2.0)
MKB_TOLERANCE = 1e-4        # MultiKernelBench utils/correctness.py: allclose(atol=1e-04, rtol=1e-04)


@dataclass
class NpuRun:
    status: str                       # ok | refused | build-error | crash | timeout
    message: str
    outputs: dict[str, np.ndarray] = field(default_factory=dict)    # trial 0's outputs, for the verdict
    trials: list[dict] = field(default_factory=list)
    timings: dict = field(default_factory=dict)    # custom_ms, eager_ms, speedup (means, ms)
    fast_p: dict = field(default_factory=dict)
    build: dict = field(default_factory=dict)
    device: str = ""
    cores: dict = field(default_factory=dict)      # what the device reported, and whether it was checked
    mkb: dict = field(default_factory=dict)        # the verdict at MultiKernelBench's tolerance
    # per input set: [(output param, got, expected)], compared by check_cann
    arrays: list = field(default_factory=list, repr=False)
    draws: str = ""                                # how the inputs were drawn (DRAWS)

    def to_json(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k not in ("outputs", "arrays")}


def fast_p(correct: bool, speedup: float | None, ps=FAST_P) -> dict[str, bool]:
    """MultiKernelBench's Fast_p for one kernel: correct and faster than p x eager."""
    return {f"fast_{p:g}": bool(correct and speedup is not None and speedup > p) for p in ps}


def mkb_allclose(got: np.ndarray, want: np.ndarray, tol: float = MKB_TOLERANCE) -> bool:
    """MultiKernelBench's acceptance of one output: torch.allclose(ref, new, atol=tol, rtol=tol),
    i.e. |ref - new| <= tol + tol * |new| everywhere, NaN never equal, shapes equal."""
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    return got.shape == want.shape and bool(np.allclose(want, got, rtol=tol, atol=tol, equal_nan=False))


def device_preflight(soc_name: str, *, library=None, env=None) -> tuple[dict, str | None]:
    """(what the device reported, the one-line refusal or None), before any kernel runs: the chip's name
    (aclrtGetSocName) selects its SoC table entry, which must be the session's or one with the same
    kernel-visible facts; then the core count must be the session SoC's (device.py)."""
    from ...soc import get_soc
    from .device import DeviceQueryError, core_check_enabled, core_refusal, kernel_cores, soc_refusal
    soc = get_soc(soc_name)
    checked = core_check_enabled(env)
    try:
        found = kernel_cores(soc, library=library)
    except DeviceQueryError as exc:
        return {"expected": soc.vector_cores, "found": None, "checked": checked, "error": str(exc)}, None
    info = {"expected": soc.vector_cores, "found": found, "checked": checked}
    name, refusal = soc_refusal(soc, library=library)
    if name:
        info["soc_name"] = name
    if not checked:
        return info, None
    return info, refusal or core_refusal(soc, found)


# ----------------------------------------------------------------------------- the child process


def _load_module(path: str, overrides: dict):
    """Execute a reference file as a module, module-level constants replaced by `overrides`."""
    source = Path(path).read_text(encoding="utf-8")
    tree = ast.parse(source, filename=path)
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name) and t.id in overrides:
                    v = overrides[t.id]
                    literal = repr(tuple(v) if isinstance(v, list) else v)
                    node.value = ast.copy_location(ast.parse(literal, mode="eval").body, node.value)
    ast.fix_missing_locations(tree)
    module = types.ModuleType("ascendcraft_npu_reference")
    module.__file__ = path
    exec(compile(tree, path, "exec"), module.__dict__)
    return module


def mkb_seed(seed: int = MKB_SEED) -> None:
    """MultiKernelBench's set_seed: torch's generator and, where the backend has one, the NPU's."""
    import torch
    torch.manual_seed(seed)
    npu = getattr(torch, "npu", None)
    if npu is not None and hasattr(npu, "manual_seed"):
        npu.manual_seed(seed)


def mkb_draws(ref, device, builds_reference: bool, trials: int = CORRECT_TRIALS):
    """(init inputs, reference Model, input sets) in MultiKernelBench's order (see DRAWS)."""
    import torch

    def to_device(values):
        return [v.to(device) if isinstance(v, torch.Tensor) else v for v in values]
    init = to_device(list(ref.get_init_inputs()))
    mkb_seed()
    model = ref.Model(*init).to(device)
    mkb_seed()
    if builds_reference:        # the exported ModelNew's own copy of the reference Model
        ref.Model(*init)
    groups = getattr(ref, "get_input_groups", None)
    sets = [list(g) for g in groups()] if callable(groups) else [list(ref.get_inputs()) for _ in range(trials)]
    return init, model, sets


def measure(library: str, reference: str, entry: str, scalars, param_names: list[str], *,
            soc: str | None = None, overrides: dict | None = None, seed: int = 0, trials: int = CORRECT_TRIALS,
            warmup: int = WARMUP, timed: int = TIMED, out_dir: str | None = None, draws: str = "project",
            builds_reference: bool = False) -> dict:
    """The protocol above, in this process (needs torch_npu and an NPU). Returns plain data with a
    `status` (ok, or refused when the device's core count is not the session SoC's); outputs of
    every trial go to `out_dir` as .npy files with the expected ones. `scalars` is the kernel's
    scalar plan (reference/scalars.py), or an int n for the first n by position."""
    import torch
    import torch_npu  # noqa: F401  (registers the NPU device)
    from .signature import bind_op_args

    torch.npu.set_device(0)              # initialises ACL, which the core-count query needs
    cores, refusal = device_preflight(soc)
    if refusal:
        return {"status": "refused", "message": refusal, "cores": cores}
    torch.ops.load_library(library)
    op = getattr(torch.ops.ascendcraft, entry)
    ref = _load_module(reference, dict(overrides or {}))
    device = torch.device("npu:0")
    if draws == "mkb":
        with torch.no_grad():
            init_inputs, model, sets = mkb_draws(ref, device, builds_reference, trials)
    else:
        init_inputs = list(ref.get_init_inputs())
        torch.manual_seed(seed)
        model = ref.Model(*[v.to(device) if isinstance(v, torch.Tensor) else v for v in init_inputs]).to(device)
        sets = None
    init_scalars = [v for v in init_inputs if isinstance(v, (bool, int, float))]
    named = {**dict(model.named_buffers()), **dict(model.named_parameters())}
    params = [named[n] for n in param_names]
    out = Path(out_dir) if out_dir else None
    results = []
    with torch.no_grad():
        for t in range(len(sets) if sets is not None else trials):
            if sets is None:
                torch.manual_seed(seed + t)
            drawn = sets[t] if sets is not None else ref.get_inputs()
            inputs = [v.to(device) if isinstance(v, torch.Tensor) else v for v in drawn]
            expected = model(*inputs)
            got = op(*bind_op_args(inputs, init_scalars, params, scalars, model))
            torch.npu.synchronize()
            expected = list(expected) if isinstance(expected, (tuple, list)) else [expected]
            got = list(got) if isinstance(got, (tuple, list)) else [got]
            if out is not None:
                for k, (g, e) in enumerate(zip(got, expected)):
                    np.save(out / f"t{t}_got{k}.npy", _to_numpy(g, torch))
                    np.save(out / f"t{t}_want{k}.npy", _to_numpy(e, torch))
            results.append({"trial": t, "outputs": len(got)})

        def timeit(fn, args) -> list[float]:
            for _ in range(warmup):
                fn(*args)
                torch.npu.synchronize()
            times = []
            for _ in range(timed):
                start, end = torch.npu.Event(enable_timing=True), torch.npu.Event(enable_timing=True)
                start.record()
                fn(*args)
                end.record()
                torch.npu.synchronize()
                times.append(start.elapsed_time(end))
            return times

        torch.manual_seed(seed)
        inputs = [v.to(device) if isinstance(v, torch.Tensor) else v for v in ref.get_inputs()]
        custom = timeit(op, bind_op_args(inputs, init_scalars, params, scalars, model))
        eager = timeit(model, inputs)
    return {"status": "ok", "trials": results, "custom_ms": float(np.mean(custom)), "eager_ms": float(np.mean(eager)),
            "custom_std_ms": float(np.std(custom)), "eager_std_ms": float(np.std(eager)), "cores": cores}


def _to_numpy(t, torch) -> np.ndarray:
    """A device tensor as a host array (bf16, which numpy lacks, widened to fp32)."""
    return t.float().cpu().numpy() if t.dtype == torch.bfloat16 else t.cpu().numpy()


def device_name() -> dict:
    """The optional device query a run makes after printing its results: {"device": SoC name}."""
    from .device import soc_name
    return {"device": soc_name() or ""}


def child_main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ascendcraft_lab.backends.cann.run")
    ap.add_argument("--library", required=True)
    ap.add_argument("--reference", required=True)
    ap.add_argument("--entry", required=True)
    ap.add_argument("--scalars", type=json.loads, default=0)     # a scalar plan (JSON list) or a count
    ap.add_argument("--param", action="append", default=[])
    ap.add_argument("--overrides", default="{}")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--soc", default=None)
    ap.add_argument("--out", required=True)
    ap.add_argument("--draws", choices=DRAWS, default="project")
    ap.add_argument("--builds-reference", action="store_true")
    args = ap.parse_args(argv)
    reason = refuse_reason("run")
    if reason:
        print(json.dumps({"status": "refused", "message": reason}), flush=True)
        return 2
    result = measure(args.library, args.reference, args.entry, args.scalars, args.param, soc=args.soc,
                     overrides=json.loads(args.overrides), seed=args.seed, out_dir=args.out, draws=args.draws,
                     builds_reference=args.builds_reference)
    print(json.dumps(result), flush=True)        # the results first: nothing below can lose them
    if result["status"] != "ok":
        return 2
    print(json.dumps(device_name()), flush=True)
    return 0


def parse_child_output(stdout: str, stderr: str, returncode: int) -> dict:
    """The child's result line (the first JSON object with a `status`), with the optional lines
    after it merged in. A child that died after printing its results keeps them, with a note."""
    objects = []
    for line in stdout.splitlines():
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            continue                     # torch_npu and CANN may print their own lines
        if isinstance(value, dict):
            objects.append(value)
    result = next((o for o in objects if "status" in o), None)
    if result is None:
        tail = (stderr or stdout).strip().splitlines()[-1:] or ["no output"]
        return {"status": "crash", "message": f"the NPU run failed (exit {returncode}): {tail[0]}"}
    after = objects[objects.index(result) + 1:]
    merged = dict(result)
    for extra in after:
        merged.update(extra)
    if result["status"] == "ok" and returncode:
        tail = (stderr or "").strip().splitlines()[-1:] or [f"exit {returncode}"]
        merged["device_note"] = (f"the optional device query after the results failed (exit {returncode}: {tail[0]}); "
                                 "the results above are complete")
    return merged


# ----------------------------------------------------------------------------- the check


def run_on_npu(program, library: str, ref, *, soc: str | None = None, seed: int = 0, timeout: float = 600,
               draws: str = "project") -> NpuRun:
    """Run the protocol in a child Python; the outputs of trial 0 come back for the verdict."""
    from ...reference.scalars import scalar_plan
    from .signature import OpSignature, model_new_builds_reference
    sig = OpSignature.of(program)
    plan = list(scalar_plan(program, ref))
    with procs.scratch_dir("ascendcraft-npu-") as tmp:
        cmd = [sys.executable, "-m", "ascendcraft_lab.backends.cann.run", "--library", library,
               "--reference", str(ref.path), "--entry", sig.entry, "--scalars", json.dumps(plan),
               "--overrides", json.dumps(getattr(ref, "overrides", {}) or {}), "--seed", str(seed), "--out", str(tmp),
               "--draws", draws]
        cmd += ["--builds-reference"] if model_new_builds_reference(program, plan) else []
        cmd += ["--soc", soc] if soc else []
        cmd += [a for p in sig.params for a in ("--param", p.param_name)]
        try:
            proc = procs.run(cmd, timeout=timeout)      # own process group: stopped with us, on timeout too
        except subprocess.TimeoutExpired:
            return NpuRun("timeout", f"the NPU run did not finish in {timeout:g} s")
        data = parse_child_output(proc.stdout, proc.stderr, proc.returncode)
        if data["status"] != "ok":
            return NpuRun(data["status"], data["message"], cores=data.get("cores", {}))
        outputs = {o.name: np.load(Path(tmp) / f"t0_got{k}.npy") for k, o in enumerate(sig.outputs)}
        def saved(t, kind, k):
            return np.load(Path(tmp) / f"t{t['trial']}_{kind}{k}.npy")
        arrays = [[(o, saved(t, "got", k), saved(t, "want", k))
                   for k, o in enumerate(sig.outputs)] for t in data["trials"]]
    speedup = data["eager_ms"] / data["custom_ms"] if data["custom_ms"] > 0 else None
    timings = {"custom_ms": data["custom_ms"], "eager_ms": data["eager_ms"], "speedup": speedup,
               "custom_std_ms": data["custom_std_ms"], "eager_std_ms": data["eager_std_ms"],
               "warmup": WARMUP, "timed": TIMED}
    message = "ran on the NPU" + (f"; {data['device_note']}" if data.get("device_note") else "")
    return NpuRun("ok", message, outputs, [], timings, {}, {}, data.get("device", ""), data.get("cores", {}), {},
                  arrays)


def draws_note(draws: str, seed: int = 0) -> str:
    """How the inputs of a check were drawn, for its verdict line."""
    if draws == "mkb":
        return f"MultiKernelBench's draws (seed {MKB_SEED}, input sets drawn one after another after both models)"
    return f"the project's draws (input set t after manual_seed({seed} + t))"


def check_cann(program, bundle, ref, soc: str | None = None, *, rtol: float | None = None, atol: float | None = None,
               workdir: str | Path | None = None, toolchain: Toolchain | None = None, seed: int = 0,
               draws: str = "project"):
    """`ascendcraft check --backend cann`: build the bundle, run it on the NPU, compare with PyTorch.

    Returns (Verdict, NpuRun) like passes/verify.py:check_emulator. Without CANN, torch_npu or
    an NPU the verdict is incorrect and its message is the one-line refusal. `draws` picks how the
    input sets are drawn (DRAWS): `mkb` gives MultiKernelBench's very inputs.
    """
    if draws not in DRAWS:
        raise ValueError(f"unknown draws {draws!r}; one of {', '.join(DRAWS)}")
    from ...reference.bind import Verdict, compare
    from ...soc import get_soc
    from .build import build_project
    s = get_soc(soc)
    tc = toolchain if toolchain is not None else detect()
    reason = refuse_reason("run", tc)
    if reason:
        return Verdict(False, math.inf, math.inf, 0.0, 0.0, [], reason, "cann", s.name, {}), NpuRun("refused", reason)
    from ...config import cache_dir
    import hashlib
    key = hashlib.sha256("".join(f"{p}\0{t}" for p, t in bundle.files.items()).encode()).hexdigest()[:16]
    root = Path(workdir) if workdir else cache_dir() / "cann" / key
    project = root / "ascendc"
    from ...passes.bundle import write_bundle
    write_bundle(project, bundle)
    built = build_project(project, root / "build", soc=s.name, bundle=bundle, toolchain=tc)
    if not built.ok:
        msg = built.message.splitlines()[0]
        return (Verdict(False, math.inf, math.inf, 0.0, 0.0, [], f"build failed: {msg}", "cann", s.name, {}),
                NpuRun("build-error", msg, build=built.to_json()))
    run = run_on_npu(program, built.library, ref, soc=s.name, seed=seed, draws=draws)
    run.build = built.to_json()
    run.draws = draws
    if run.status != "ok":
        return Verdict(False, math.inf, math.inf, 0.0, 0.0, [], f"{run.status}: {run.message}", "cann", s.name, {}), run
    checks_by_trial = [[compare(o.name, got, want, o.dtype, rtol, atol) for o, got, want in trial]
                       for trial in run.arrays]
    run.trials = [{"trial": i, "correct": all(c.correct for c in cs),
                   "max_abs_err": max((c.max_abs_err for c in cs), default=0.0)}
                  for i, cs in enumerate(checks_by_trial)]
    checks = checks_by_trial[0]
    correct = all(t["correct"] for t in run.trials)
    run.fast_p = fast_p(correct, run.timings.get("speedup"))
    mkb_trials = [all(mkb_allclose(got, want) for _, got, want in trial) for trial in run.arrays]
    run.mkb = {"correct": all(mkb_trials), "atol": MKB_TOLERANCE, "rtol": MKB_TOLERANCE,
               "failed_input_sets": [i for i, ok in enumerate(mkb_trials) if not ok]}
    max_abs = max((c.max_abs_err for cs in checks_by_trial for c in cs), default=0.0)
    max_rel = max((c.max_rel_err for cs in checks_by_trial for c in cs), default=0.0)
    used_rtol = max((c.rtol for c in checks), default=0.0)
    used_atol = max((c.atol for c in checks), default=0.0)
    sp = run.timings.get("speedup")
    mkb = f"MultiKernelBench's {MKB_TOLERANCE:g} tolerance: {'passes' if run.mkb['correct'] else 'fails'}"
    if correct:
        msg = (f"correct: `{program.kernel.name}` matches the reference on the NPU ({run.device or s.name}) over "
               f"{len(run.trials)} input sets ({draws_note(draws, seed)}):"
               f" max abs err {max_abs:.3g} (rtol {used_rtol:g}, atol {used_atol:g}; {mkb}); "
               f"{run.timings['custom_ms']:.4g} ms vs eager {run.timings['eager_ms']:.4g} ms (speedup {sp:.3g}x)")
    else:
        bad = next(t for t in run.trials if not t["correct"])
        msg = (f"incorrect: input set {bad['trial']} differs from the reference (max abs err {bad['max_abs_err']:.3g}; "
               f"{mkb}; {draws_note(draws, seed)})")
    return Verdict(correct, max_abs, max_rel, used_rtol, used_atol, checks, msg, "cann", s.name, {}), run


if __name__ == "__main__":
    procs.die_with_parent()
    sys.exit(child_main())
