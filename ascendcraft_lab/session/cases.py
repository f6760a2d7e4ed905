"""Verifying a kernel on every input set of its reference, case by case.

The input sets are the cases of `get_input_groups()` (NPUKernelBench format) or one run of
`get_inputs()` per seed (KernelBench format): `reference.load_cases` gives them as a CaseSet.
For each case:

1. its tensor dtypes pick the kernel's variant (`dsl.generic.binding_for`; a plain kernel has
   one), and a dtype no variant serves fails that case in one line;
2. each variant is instantiated, verified and lowered the first time a case needs it, and
   compiled once: its cases reuse the binary and the host tiling probe (`Variants`);
3. the case is bound (dim packs fold its shapes into the kernel's views), its launch and UB
   budget are checked, the kernel runs and every output is compared under both rules
   (`reference.RULES`: this project's dtype-aware tolerances and MultiKernelBench's
   atol = rtol = 1e-4).

A case's failure is one `CaseResult` with one line (which case, its dtypes and shapes, why);
nothing stops the other cases. The task is correct only when every case is (`CaseReport`).
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Mapping

import numpy as np

from .. import procs
from ..backends.emulator.verify import emulate
from ..dsl import ir
from ..dsl.errors import DslError
from ..dsl.generic import VariantMismatch, binding_for, instantiate, variant_name, variants
from ..dsl.verifier import verify
from ..engines.rule import render
from ..passes.bundle import Bundle
from ..passes.spec import LowerOptions
from ..passes.variants import variant_program
from ..reference import RULE_TEXT, RULES, CaseSet, ReferenceError, bind, case_dtypes, check_rules, trim_outputs
from ..soc import get_soc

# Which step a case failed at, in order (a report counts cases by it).
STAGES = ("ok", "reference", "dtype", "variant", "bind", "launch", "compile", "run", "verify")


def one_line(exc: BaseException | str) -> str:
    text = exc.message if isinstance(exc, DslError) else str(exc)
    first = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    return first if len(first) <= 300 else first[:297] + "..."


@dataclass
class CaseResult:
    label: str                         # "case 3" / "seed 1"
    what: str                          # the input set in short: "float16 [17, 301], 'tanh'"
    dtypes: list                       # torch dtype names of its tensor inputs
    variant: str = ""                  # the kernel variant that ran it ("f16"; "" for a plain kernel)
    stage: str = "ok"                  # one of STAGES
    correct: bool = False              # the dtype-aware rule
    mkb: bool = False                  # MultiKernelBench's rule
    message: str = ""                  # why it failed, one line ("" when correct under both rules)
    max_abs_err: float | None = None
    max_rel_err: float | None = None
    kernel_s: float | None = None

    @property
    def dtype(self) -> str:
        """The dtype a report counts this case under: its first tensor's that is not a bool mask
        (where(cond, x, y) counts under x's dtype), a bool when every tensor is one."""
        return next((d for d in self.dtypes if d != "bool"), self.dtypes[0] if self.dtypes else "none")

    def line(self) -> str:
        head = f"{self.label} ({self.what})"
        if self.correct:
            err = f"max abs err {self.max_abs_err:.3g}" if self.max_abs_err is not None else ""
            mkb = "" if self.mkb else f"; fails the MultiKernelBench rule: {self.message}"
            return f"{head}: ok{', ' + err if err else ''}{mkb}"
        return f"{head}: FAIL ({self.stage}) {self.message}"

    def to_json(self) -> dict:
        d = asdict(self)
        for k in ("max_abs_err", "max_rel_err"):
            if d[k] is not None and not np.isfinite(d[k]):
                d[k] = None
        return d


@dataclass
class CaseReport:
    format: str                        # NPUKernelBench | KernelBench
    cases: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    seconds: float = 0.0
    variants: dict = field(default_factory=dict)   # variant -> {"compile_s", "cases"}

    def passed(self, rule: str = "dtype-aware") -> int:
        return sum(1 for c in self.cases if (c.correct if rule == "dtype-aware" else c.mkb))

    @property
    def correct(self) -> bool:
        return bool(self.cases) and self.passed() == len(self.cases)

    @property
    def mkb_correct(self) -> bool:
        return bool(self.cases) and self.passed("mkb") == len(self.cases)

    def per_dtype(self) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for c in self.cases:
            d = out.setdefault(c.dtype, {"cases": 0, "dtype-aware": 0, "mkb": 0})
            d["cases"] += 1
            d["dtype-aware"] += int(c.correct)
            d["mkb"] += int(c.mkb)
        return out

    def first_failure(self) -> CaseResult | None:
        return next((c for c in self.cases if not c.correct), None)

    def verdict(self) -> str:
        n = len(self.cases)
        kind = "cases" if self.format == "NPUKernelBench" else "input sets"
        rules = ", ".join(f"{self.passed(r)}/{n} under the {RULE_TEXT[r]}" for r in RULES)
        if self.correct:
            return f"correct on every one of the {n} {kind}: {rules}"
        bad = self.first_failure()
        return f"incorrect: {rules}; first failure {bad.line()}"

    def per_dtype_line(self) -> str:
        parts = [f"{d} {v['dtype-aware']}/{v['cases']} (MultiKernelBench rule {v['mkb']}/{v['cases']})"
                 for d, v in self.per_dtype().items()]
        return "per dtype: " + ", ".join(parts)

    def summary(self, limit: int = 40) -> str:
        lines = [self.verdict(), self.per_dtype_line()]
        lines += [f"note: {n}" for n in self.notes]
        shown = [c for c in self.cases if not (c.correct and c.mkb)][:limit]
        lines += ["  " + c.line() for c in shown]
        hidden = sum(1 for c in self.cases if not (c.correct and c.mkb)) - len(shown)
        if hidden > 0:
            lines.append(f"  ... and {hidden} more (all cases in the run record)")
        return "\n".join(lines)

    def to_json(self) -> dict:
        return {"format": self.format, "correct": self.correct, "mkb_correct": self.mkb_correct,
                "passed": {r: self.passed(r) for r in RULES}, "total": len(self.cases),
                "per_dtype": self.per_dtype(), "notes": list(self.notes), "seconds": round(self.seconds, 3),
                "variants": self.variants, "cases": [c.to_json() for c in self.cases]}


class CaseStopped(Exception):
    """Where a case stopped (`stage`: dtype, variant, bind, launch, compile, run) and why, in one line."""

    def __init__(self, stage: str, message: str):
        super().__init__(message)
        self.stage, self.message = stage, message


class Variants:
    """The kernel's variants, each instantiated, verified and lowered the first time a case
    needs it; each keeps one folder, so its project is written and compiled once.

    `bundles` gives the projects already made (a session's own, by variant name); the others
    are lowered by the rule engine from the DSL."""

    def __init__(self, program: ir.Program, soc: str | None = None, bundles: Mapping[str, Bundle] | None = None,
                 lower: Callable[[ir.Program], Bundle] | None = None, workdir: Path | None = None):
        self.program = program
        self.soc = get_soc(soc).name
        self.bundles = dict(bundles or {})
        self.lower = lower or (lambda p: render(p, LowerOptions(soc=self.soc), 4))
        self.made: dict[str, tuple | CaseStopped] = {}
        self.workdir = Path(workdir) if workdir is not None else None   # keep the projects there (the bench)
        self._scratch = None

    def __enter__(self) -> "Variants":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self._scratch is not None:
            procs.remove_scratch(self._scratch)
            self._scratch = None

    def get(self, binding: Mapping[str, ir.DType]) -> tuple[ir.Program, Bundle, Path]:
        key = variant_name(binding)
        if key not in self.made:
            self.made[key] = self._make(binding, key)
        made = self.made[key]
        if isinstance(made, CaseStopped):
            raise made
        return made

    def _make(self, binding, key):
        what = f"the {key} variant" if key else "the kernel"
        first = variants(self.program)[0]
        try:
            # the first variant is the kernel as named; the others are named <kernel>_<dtype>, as
            # they are in the project (passes/variants.py)
            program = verify(instantiate(self.program, binding) if dict(binding) == first
                             else variant_program(self.program, binding), self.soc)
        except DslError as e:
            return CaseStopped("variant", f"{what} does not verify: {one_line(e)}")
        try:
            bundle = self.bundles.get(key) or self.lower(program)
        except Exception as e:  # noqa: BLE001 - a lowering failure is this variant's result
            return CaseStopped("variant", f"{what} does not lower: {one_line(e)}")
        if self.workdir is not None:
            root = self.workdir / (key or "kernel") / "ascendc"
        else:
            if self._scratch is None:
                self._scratch = procs.make_scratch("ascendcraft-cases-")
            root = self._scratch / (key or "kernel")
        root.mkdir(parents=True, exist_ok=True)
        return program, bundle, root


def check_cases(program: ir.Program, cases: CaseSet, *, soc: str | None = None,
                bundles: Mapping[str, Bundle] | None = None, timeout: float | None = None,
                progress: Callable[[int, int, CaseResult], None] | None = None, runner: Callable | None = None,
                workdir: Path | None = None) -> CaseReport:
    """Run `program` (generic or plain, parsed) on every case of `cases` on the emulator.

    `bundles` maps variant names to projects to use as they are (a session's verified one);
    `progress(i, n, result)` is called after each case. `runner(program, bundle, case, root)`
    replaces the emulator run (the NPU backend): it returns (outputs by name, problem or "").
    `workdir` keeps each variant's project in `<workdir>/<variant>/ascendc` (default: a scratch folder).
    `timeout` limits each emulated run; None scales it with the case's work (`verify.work_timeout`), as a
    KernelBench run's is, so a large case is not stopped at a fixed limit."""
    t0 = time.perf_counter()
    report = CaseReport(cases.format, notes=list(cases.notes))
    with Variants(program, soc, bundles, workdir=workdir) as builds:
        for i, case in enumerate(cases.cases):
            result = _one(program, case, i, builds, soc, timeout, runner, cases.notes)
            if result.variant is not None:
                v = report.variants.setdefault(result.variant or "kernel", {"cases": 0})
                v["cases"] += 1
            report.cases.append(result)
            if progress is not None:
                progress(i + 1, len(cases.cases), result)
    report.seconds = time.perf_counter() - t0
    return report


def _one(program, case, i, builds: Variants, soc, timeout, runner, set_notes=()) -> CaseResult:
    """One case: the variant its dtypes pick (built once), bound, its launch checked, run, compared."""
    if isinstance(case, ReferenceError):
        return CaseResult(f"case {i}", "the reference failed", [], "", "reference", message=one_line(case))
    own_notes = [n for n in case.notes if n not in set_notes]     # this case's alone (a float32 stand-in run)
    res = CaseResult(case.label, "; ".join([case.describe(), *own_notes]), list(case.dtypes))
    try:
        typed, bundle, root = _variant(program, case, builds, res)
        inputs, expected = _bound(typed, case)
        scalars = {p.name: inputs[p.name] for p in typed.scalars}
        tensors = {n: v for n, v in inputs.items() if isinstance(v, np.ndarray)}
        if expected and all(np.size(v) == 0 for v in expected.values()):
            # Nothing to write: the generated launch code returns before the launch, as PyTorch's ops do.
            res.stage, res.correct, res.mkb, res.max_abs_err, res.max_rel_err = "ok", True, True, 0.0, 0.0
            res.message = ""
            res.what += "; empty output, no launch"
            return res
        _check_launch(typed, builds, tensors, scalars)
        if runner is not None:
            outputs = _run_by(runner, typed, bundle, case, root)
        else:
            outputs = _emulated(typed, bundle, tensors, scalars, builds, timeout, root, res)
    except CaseStopped as stop:
        res.stage, res.message = stop.stage, stop.message
        return res
    return _compare(typed, outputs, expected, res)


def _variant(program, case, builds: Variants, res: CaseResult) -> tuple[ir.Program, Bundle, Path]:
    """(variant program, its project, its folder) for the case's dtypes; `res` names the variant."""
    try:
        binding = binding_for(program, case_dtypes(program, case), res.label)
    except VariantMismatch as e:
        raise CaseStopped("dtype", one_line(e)) from None
    res.variant = variant_name(binding)
    return builds.get(binding)


def _bound(typed: ir.Program, case) -> tuple[dict, dict]:
    try:
        return bind(typed, case)
    except DslError as e:
        raise CaseStopped("bind", one_line(e)) from None


def _check_launch(typed: ir.Program, builds: Variants, tensors: dict, scalars: dict) -> None:
    """The launch and the UB budget at the case's shapes."""
    try:
        verify(typed, builds.soc, shapes={n: np.shape(v) for n, v in tensors.items()}, scalars=scalars)
    except DslError as e:
        raise CaseStopped("launch", one_line(e)) from None


def _run_by(runner, typed: ir.Program, bundle: Bundle, case, root: Path) -> dict:
    """The outputs of a run by `runner` (the NPU backend)."""
    outputs, problem = runner(typed, bundle, case, root)
    if problem:
        raise CaseStopped("run", problem)
    return outputs


def _emulated(typed: ir.Program, bundle: Bundle, tensors: dict, scalars: dict, builds: Variants, timeout, root: Path,
              res: CaseResult) -> dict:
    """The outputs of the run on the emulator (its kernel time into `res`); stopped by a failed
    build or run, an emulator finding, or a write into an input."""
    run = emulate(typed, bundle, tensors, scalars, soc=builds.soc, timeout=timeout, root=root)
    res.kernel_s = run.timings.get("kernel_s")
    if run.status not in ("ok", "findings"):
        stage = "compile" if run.status in ("compile-error", "tiling-mismatch") else "run"
        raise CaseStopped(stage, f"{run.status}: {one_line(run.message)}")
    problems = []
    if run.status == "findings":
        f = run.findings[0]
        problems.append(f"{len(run.findings)} emulator finding(s), first {f.get('kind')}: "
                        f"{one_line(f.get('message', ''))}")
    for name, before in tensors.items():
        after = run.inputs_after.get(name)
        if after is not None and np.ascontiguousarray(before).tobytes() != \
                np.ascontiguousarray(after).reshape(np.shape(before)).tobytes():
            problems.append(f"the kernel wrote into its input `{name}`")
    if problems:
        raise CaseStopped("run", "; ".join(problems))
    return run.outputs


def _compare(program: ir.Program, outputs: dict, expected: dict, res: CaseResult) -> CaseResult:
    ok = {r: True for r in RULES}
    why = {r: "" for r in RULES}
    worst_abs = worst_rel = 0.0
    outputs = trim_outputs(program, outputs)
    for p in program.outputs:
        got = outputs.get(p.name)
        if got is None:
            res.stage, res.message = "run", f"the kernel produced no `{p.name}`"
            return res
        checks = check_rules(p.name, np.reshape(got, np.shape(expected[p.name])), expected[p.name], p.dtype)
        for r, c in checks.items():
            if not c.correct and ok[r]:
                ok[r] = False
                why[r] = f"`{p.name}` differs at {c.mismatches} of {int(np.size(expected[p.name]))} elements " \
                         f"(worst {c.worst}; rtol {c.rtol:g}, atol {c.atol:g})"
        worst_abs = max(worst_abs, checks["dtype-aware"].max_abs_err)
        worst_rel = max(worst_rel, checks["dtype-aware"].max_rel_err)
    res.correct, res.mkb = ok["dtype-aware"], ok["mkb"]
    res.max_abs_err, res.max_rel_err = worst_abs, worst_rel
    res.stage = "ok" if res.correct else "verify"
    res.message = why["dtype-aware"] if not res.correct else why["mkb"]
    return res
