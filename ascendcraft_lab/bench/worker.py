"""One op of a bench run, in its own process: draft -> lower -> compile -> verify, per shape.

An NPUKernelBench-format reference (`get_input_groups()`) runs on its cases instead: one child
loads every case, a second traces the case the draft is made from, the draft is generalized
over the cases' dtypes and ranks (drafter/cases.py), and session/cases.py runs every case,
each dtype variant compiled once (`ops/<level>/<op>/reference/<variant>/`). The op's result
keeps every case; `progress.json` beside the log counts the cases done for the bench's bar.
Cases that pass different string / bool / None / list arguments (`approximate="none"` or `"tanh"`,
`normalized_shape=[64]` or `[4, 65]`) are drafted once per value (`kernel.dsl.py`, `kernel-2.dsl.py`,
...: a draft takes them as constants), and so are cases passing different values of a number a
group's draft read as a constant instead of taking it as a kernel scalar (a `dim`); their reports
are merged in the cases' order. Cases a draft fails that broadcast another way than its traced case
(y (N,) against x (M, N) there, (M, 1) or 0-d here), or whose ranks its views do not bind, are
drafted again per way and ranks (`kernel-b1.dsl.py`, ...) and take those drafts' results.

`python -m ascendcraft_lab.bench.worker JOB.json` runs `run_op(job)` and writes `result.json`
beside the op's log, draft and AscendC projects, so a crash here (or in a kernel, or in the
reference) is one failed op for the runner, never a failed run. The reference itself runs in
a further child (`drafter.trace.run_jobs`): one process traces it for the drafter, runs it on
the five input sets of every shape (inputs saved before forward, which gets clones) and times
PyTorch eager.
"""
from __future__ import annotations

import json
import os
import platform
import sys
import time
import traceback
from pathlib import Path

import numpy as np

from .. import procs
from ..atomic import write_text
from ..backends.cann.run import check_cann
from ..backends.emulator.verify import emulate
from ..drafter.cases import broadcast_pattern
from ..drafter.draft import DraftError, draft_from_trace, kernel_name
from ..dsl.errors import DslError
from ..dsl.parser import parse
from ..dsl.program import is_program_text
from ..dsl.verifier import verify
from ..engines.rule import render
from ..passes.manager import run_pipeline
from ..passes.spec import LowerOptions
from ..perf import estimate, estimate_eager, estimate_phases, read_trace
from ..perf.sensitivity import FACTORS, sensitivity
from ..reference import (CaseSet, ReferenceError, ReferenceRun, bind, load_cases, reference_format, run_jobs,
                         trim_outputs)
from ..reference.scalars import unbound_numbers
from ..session import CaseReport, CaseResult, check_cases, draft, engine_for
from ..soc import get_soc
from .metrics import check_output, inputs_unchanged


class Log:
    def __init__(self, path: Path):
        self.path = path
        self.fh = open(path, "w", encoding="utf-8")

    def __call__(self, text: str) -> None:
        self.fh.write(text.rstrip("\n") + "\n")
        self.fh.flush()

    def close(self):
        self.fh.close()


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    first = text[0] if text else type(exc).__name__
    return first if len(first) <= 400 else first[:397] + "..."


def run_op(job: dict) -> dict:
    opdir = Path(job["opdir"])
    opdir.mkdir(parents=True, exist_ok=True)
    log = Log(opdir / "log.txt")
    t_start = time.perf_counter()
    result = {"op": job["op"], "category": job["category"], "path": job["path"], "shapes": {}, "draft": None,
              # where it ran: the host, and the copy of this package it imported (on Ray, the one Ray shipped)
              "worker": {"host": platform.node(), "package": str(Path(__file__).resolve().parents[1])}}
    uses_llm = "llm" in (job["draft"], job["engine"])
    if uses_llm:   # every LLM call of this op is logged in its folder (never the key)
        os.environ["ASCENDCRAFT_LLM_LOG_DIR"] = str(opdir)
    try:
        _run(job, opdir, log, result)
    except Exception as exc:  # noqa: BLE001 - any failure is this op's result, with the traceback in its log
        log("internal error:\n" + traceback.format_exc())
        for label in (s["label"] for s in job["shapes"]):
            result["shapes"].setdefault(label, {"compiled": False, "correct": False, "stage": "internal",
                                                "error": f"internal error: {_one_line(exc)}"})
    if uses_llm:
        result["llm"] = llm_usage(opdir / "llm-calls.jsonl")
        log(f"llm: {result['llm']}")
    result["seconds"] = round(time.perf_counter() - t_start, 2)
    log(f"done in {result['seconds']} s")
    log.close()
    return result


def _run(job: dict, opdir: Path, log: Log, result: dict) -> None:
    if reference_format(job["path"]) == "NPUKernelBench":
        return _run_cases(job, opdir, log, result)
    path, seeds = job["path"], list(job.get("seeds", [0, 1, 2, 3, 4]))
    cast = "float16" if job.get("dtype") == "float16" else None
    shapes = job["shapes"]
    log(f"== {job['category']}/{job['op']}  ({path})")
    log(f"shapes: {', '.join(s['label'] + ' ' + json.dumps(s['overrides']) for s in shapes)}; seeds {seeds}; "
        f"draft {job['draft']}, engine {job['engine']}, backend {job['backend']}, dtype {job.get('dtype', 'float32')}")
    # one child process: the trace (first shape), every (shape, seed) run, eager timing per shape
    jobs = []
    if job["draft"] == "drafter":
        jobs.append({"mode": "trace", "path": path, "overrides": shapes[0]["overrides"], "seed": 0,
                     "cast_inputs": cast})
    for s in shapes:
        for seed in seeds:
            jobs.append({"mode": "run", "path": path, "overrides": s["overrides"], "seed": seed, "cast_inputs": cast})
        if job.get("timing", True):
            jobs.append({"mode": "time", "path": path, "overrides": s["overrides"], "seed": 0, "cast_inputs": cast,
                         "threads": os.cpu_count() or 1, "repeats": 10})
        if job.get("estimate", True):     # the graph of this shape, for the estimated eager time
            jobs.append({"mode": "trace", "path": path, "overrides": s["overrides"], "seed": 0, "cast_inputs": cast})
    t0 = time.perf_counter()
    answers = run_jobs(jobs, timeout=float(job.get("reference_timeout", 600)))
    log(f"reference child: {len(jobs)} jobs in {time.perf_counter() - t0:.1f} s")
    k = 0
    traced = None
    if job["draft"] == "drafter":
        traced, k = answers[0], 1
    runs, timings, graphs = {}, {}, {}
    for s in shapes:
        runs[s["label"]] = answers[k:k + len(seeds)]
        k += len(seeds)
        if job.get("timing", True):
            timings[s["label"]] = answers[k]
            k += 1
        if job.get("estimate", True):
            graphs[s["label"]] = answers[k]
            k += 1

    def fail_all(stage, message, compiled=False):
        log(f"{stage}: {message}")
        for s in shapes:
            result["shapes"].setdefault(s["label"], {"compiled": compiled, "correct": False,
                                                     "stage": stage, "error": message})

    # 1. the draft
    t0 = time.perf_counter()
    draft_text, template = _draft(job, traced, runs[shapes[0]["label"]][0], log)
    if isinstance(draft_text, Exception):
        fail_all("draft", _one_line(draft_text))
        return
    write_text(opdir / "kernel.dsl.py", draft_text)
    result["draft"] = {"template": template, "seconds": round(time.perf_counter() - t0, 2), "file": "kernel.dsl.py"}
    log(f"draft ({template}) in {time.perf_counter() - t0:.1f} s -> {opdir / 'kernel.dsl.py'}")
    for s in shapes:
        result["shapes"][s["label"]] = _shape(job, s, draft_text, runs[s["label"]], timings.get(s["label"]), opdir, log,
                                              graphs.get(s["label"]))


def _run_cases(job: dict, opdir: Path, log: Log, result: dict) -> None:
    """Every case of an NPUKernelBench reference under one generalized draft (see the module docstring)."""
    path = job["path"]
    label = "reference"            # the reference's own input sets: its cases
    out = {"overrides": {}, "compiled": False, "correct": False, "stage": "", "error": "", "cases": None}
    result["shapes"][label] = out
    result["format"] = "NPUKernelBench"
    progress = opdir / "progress.json"
    log(f"== {job['category']}/{job['op']}  ({path}), NPUKernelBench format: every case of get_input_groups()")
    t0 = time.perf_counter()
    try:
        cases = load_cases(path, timeout=float(job.get("reference_timeout", 900)))
    except ReferenceError as e:
        out.update(stage="reference", error=_one_line(e))
        log(f"reference: {e}")
        return
    runs = [c for c in cases if isinstance(c, ReferenceRun)]
    log(f"reference child: {len(cases)} cases in {time.perf_counter() - t0:.1f} s"
        + "".join(f"\nnote: {n}" for n in cases.notes))
    _progress(progress, 0, len(cases))

    def settled():                 # the op stops before its cases run: they are done (failed) for the bar
        _progress(progress, len(cases), len(cases))
    if not runs:
        out.update(stage="reference", error=_one_line(cases.cases[0]))
        return settled()
    groups = attribute_groups(cases.cases)
    if len(groups) > 1:
        log("one draft per value of the arguments a draft takes as constants: " +
            "; ".join(f"{_attrs_text(k)} ({len(g)} cases)" for k, g in groups))
    reports, drafts, done, pending, groups = [], [], 0, groups, []
    while pending:
        key, members = pending.pop(0)
        group = CaseSet(cases.path, cases.format, [cases.cases[i] for i in members], cases.notes)
        suffix = "" if not groups else f"-{len(groups) + 1}"
        try:
            report, draft_info, refused = _group_cases(job, opdir, log, group, suffix, done, len(cases), progress)
        except SplitByConstants as split:       # the draft read numbers as constants that differ between its cases
            log(f"draft{suffix}: {split}")
            pending[0:0] = [(key + extra, [members[i] for i in idx]) for extra, idx in split.groups]
            continue
        groups.append((key, members))
        report, more = _redraft_failed(job, opdir, log, group, report, None if refused else draft_info, suffix)
        if more:                               # the cases run under the drafts of their broadcast patterns
            refused = None
        if refused and len(groups) == 1 and not pending:       # the op's one draft failed: no case runs
            out.update(stage=refused[0], error=refused[1])
            if draft_info is not None:
                result["draft"] = draft_info
            return settled()
        if draft_info is not None:
            drafts.append(dict(draft_info, cases=len(members), attributes=_attrs_text(key)))
        drafts += more
        for i, c in zip(members, report.cases):
            if c.stage == "reference":
                c.label = f"case {i}"          # a failed reference case is named by its place in the group
        reports.append((members, report))
        done += len(members)
    report = _merge(cases, reports, len(groups) > 1)
    if len(groups) > 1:
        report.notes.append("one draft per value of " + "; ".join(
            f"{_attrs_text(k)}: {len(g)} cases" for k, g in groups))
    if drafts:
        result["draft"] = dict(drafts[0], drafts=drafts) if len(drafts) > 1 else drafts[0]
    out["cases"] = report.to_json()
    out["compiled"] = any(c.stage in ("ok", "verify", "run") for c in report.cases)
    out["correct"] = report.correct
    out["mkb_correct"] = report.mkb_correct
    bad = report.first_failure()
    out["stage"] = "ok" if report.correct else (bad.stage if bad else "verify")
    out["error"] = "" if report.correct else bad.line()
    kernel_times = [c.kernel_s for c in report.cases if c.kernel_s]
    if kernel_times:
        out["timing"] = {"emulator_kernel_s": float(np.median(kernel_times)), "torch_eager_s": None}
    log(report.summary())


def attribute_groups(cases: list) -> list[tuple[tuple, list[int]]]:
    """The cases grouped by the arguments a draft takes as constants, in order of first appearance:
    strings, bools, None and lists of them or of numbers (`approximate="tanh"`, `is_result=True`,
    `normalized_shape=[4, 65]`; a list is a tuple in the key). A number reaches the kernel as a scalar
    unless the draft reads it as a constant (a `dim`), which `SplitByConstants` finds once a group is
    drafted; a case whose reference failed joins the first group."""
    groups: dict[tuple, list[int]] = {}
    failed = []
    for i, c in enumerate(cases):
        if not isinstance(c, ReferenceRun):
            failed.append(i)
            continue
        key = tuple((j, _hashable(v)) for j, v in enumerate(c.inputs) if _constant(v))
        groups.setdefault(key, []).append(i)
    out = list(groups.items()) or [((), [])]
    out[0] = (out[0][0], sorted(out[0][1] + failed))
    return out


def _constant(v) -> bool:
    """A string, bool or None, or a list of them or of numbers (not a list of tensors)."""
    if isinstance(v, (list, tuple)):
        return all(_constant(x) or isinstance(x, (int, float)) for x in v)
    return v is None or isinstance(v, (str, bool))


def _hashable(v):
    return tuple(_hashable(x) for x in v) if isinstance(v, (list, tuple)) else v


class SplitByConstants(Exception):
    """A group's draft read numbers of forward as constants (reference/scalars.unbound_numbers) and
    its cases pass different values: `groups` are (key additions, indices in the group) per value,
    in order of first appearance (a failed reference case in the first)."""

    def __init__(self, message: str, groups: list):
        super().__init__(message)
        self.groups = groups

    @classmethod
    def of(cls, program, cases: list, traced: ReferenceRun):
        fixed = unbound_numbers(program, traced)
        # a view that packs no dims into one axis has the traced case's rank (nonzero: a column per axis)
        ranked = [k for k, p in enumerate(program.inputs) if not p.packs]
        if not fixed and not ranked:
            return None
        by: dict[tuple, list[int]] = {}
        failed = []
        for i, c in enumerate(cases):
            if isinstance(c, ReferenceRun):
                shapes = [np.shape(v) for v in c.tensor_inputs]
                # with constants, every rank: a constant `dim=0` is the last axis of a 1-d case, the first of a 2-d one
                ranks = ("ranks", tuple(len(shp) for k, shp in enumerate(shapes) if fixed or k in ranked))
                by.setdefault(tuple((j, c.inputs[j]) for j in fixed if j < len(c.inputs)) + (ranks,), []).append(i)
            else:
                failed.append(i)
        if len(by) < 2:
            return None
        groups = list(by.items())
        groups[0] = (groups[0][0], sorted(groups[0][1] + failed))
        if not fixed:
            return cls("its views have the traced case's ranks, which differ between its cases: one draft per rank",
                       groups)
        names = ", ".join(f"argument {j + 1}" for j in fixed)
        return cls(f"it reads {names} as constants, which differ between its cases: one draft per value", groups)


def _attrs_text(key: tuple) -> str:
    return ", ".join(f"argument {j + 1} = {v!r}" if j != "ranks" else f"ranks {v}" for j, v in key) \
        or "(no constant arguments)"


def _group_cases(job, opdir: Path, log: Log, group: CaseSet, suffix: str, offset: int, total: int, progress):
    """One group of cases under its own draft `kernel<suffix>.dsl.py`: (report, draft info or None,
    (stage, error) when the draft failed, its report failing every case of the group with that line)."""
    runs = [c for c in group.cases if isinstance(c, ReferenceRun)]

    def failed(stage: str, error: str, info=None):
        report = CaseReport(group.format, notes=list(group.notes))
        for c in group.cases:
            if isinstance(c, ReferenceRun):
                report.cases.append(CaseResult(c.label, c.describe(), list(c.dtypes), "", stage, message=error))
            else:
                report.cases.append(CaseResult("case ?", "the reference failed", [], "", "reference",
                                               message=_one_line(c)))
        _progress(progress, offset + len(group.cases), total)
        return report, info, (stage, error)
    t0 = time.perf_counter()
    text, template, traced_case = _draft_cases(job, runs, log)
    if isinstance(text, Exception):
        log(f"draft: {text}")
        return failed("draft", _one_line(text))
    name = f"kernel{suffix}.dsl.py"
    write_text(opdir / name, text)
    info = {"template": template, "seconds": round(time.perf_counter() - t0, 2), "file": name,
            "traced_case": traced_case}
    log(f"draft ({template}) from case {traced_case} in {time.perf_counter() - t0:.1f} s -> {opdir / name}")

    def tick(i, n, r):
        log(r.line())
        _progress(progress, offset + i, total)
    try:
        program = verify(parse(text, name), job.get("soc"))
    except DslError as e:
        log(f"lower: {e.render() if hasattr(e, 'render') else e}")
        return failed("lower", _one_line(e), info)
    traced = next((r for r in runs if r.case == traced_case), None)
    split = SplitByConstants.of(program, group.cases, traced) if traced is not None else None
    if split is not None:
        raise split
    workdir = opdir / "reference" / (f"attrs{suffix}" if suffix else "")
    report = check_cases(program, group, soc=job.get("soc"), timeout=_kernel_timeout(job),
                         progress=tick, workdir=workdir)
    return report, info, None


def _redraft_failed(job, opdir: Path, log: Log, group: CaseSet, report: CaseReport, draft_info, suffix: str):
    """The failed cases of a group drafted again, with the cases they share a key with, when one traced
    case cannot serve them: a draft fixes how each operand is loaded, so cases that broadcast in another
    way (y of shape (N,) against x (M, N) in one case, (M, 1) or one element in another;
    drafter/cases.broadcast_pattern) need their own; so do cases the draft's views do not bind (a rank
    its dims cannot pack: a group norm's (B, C, H, W) against a 3-D case), keyed by their ranks as
    well (and by which axes are 1), and cases whose dtype variant does not verify (an operation the vector unit
    lacks in that dtype, which a draft traced in that dtype may avoid: a Select of int16 values done in f32), keyed
    by their dtypes. `draft_info`: the group's draft (None when it was refused); its traced case's key
    is not drafted again. Returns (the report, each redrafted case's result taken from its new draft;
    the new drafts' info)."""
    runs = {i: c for i, c in enumerate(group.cases) if isinstance(c, ReferenceRun)}
    pattern = {i: broadcast_pattern([np.shape(v) for v in c.tensor_inputs]) for i, c in runs.items()}
    key = {i: (pattern[i],
               _ones(runs[i].tensor_inputs) if report.cases[i].stage in ("bind", "launch") else (),
               tuple(runs[i].dtypes) if report.cases[i].stage == "variant" else ()) for i in runs}
    traced = next(((pattern[i], (), ()) for i, c in runs.items()
                   if draft_info is not None and c.case == draft_info.get("traced_case")), None)
    redo: dict[tuple, list[int]] = {}
    for i, res in enumerate(report.cases):
        if i in runs and not res.correct and key[i] != traced:
            redo.setdefault(key[i], []).append(i)
    if len(set(key.values())) < 2 or not redo:
        return report, []
    log(f"{sum(map(len, redo.values()))} failed cases broadcast in other ways than the traced case, have other "
        f"ranks or dtypes its variants lack operations for: {len(redo)} more drafts")
    infos = []
    for k, members in enumerate(redo.values()):
        sub = CaseSet(group.path, group.format, [group.cases[i] for i in members], group.notes)
        try:
            r, info, _ = _group_cases(job, opdir, log, sub, f"{suffix}-b{k + 1}", 0, len(members),
                                      opdir / "progress-regroup.json")
        except SplitByConstants as split:      # constants differ within this way too: its cases keep their results
            log(f"draft{suffix}-b{k + 1}: {split}")
            continue
        for i, res in zip(members, r.cases):
            report.cases[i] = res
        for v, vinfo in r.variants.items():
            report.variants[f"{v} (broadcast draft {k + 1})"] = vinfo
        if info is not None:
            infos.append(dict(info, cases=len(members), attributes=f"shapes like case {runs[members[0]].case}"))
    return report, infos


def _ones(tensors) -> tuple:
    """Each tensor's rank and which of its axes are 1: a draft declares a traced axis of 1 as the
    literal 1, so a case with more there (x of (2, 64, 56, 56) beside the traced (1, 64, 56, 56)) does not bind."""
    return tuple(tuple(d == 1 for d in np.shape(v)) for v in tensors)


def _merge(cases: CaseSet, reports: list, prefixed: bool) -> CaseReport:
    """One report of every case, in the cases' order, from the groups' reports."""
    if len(reports) == 1:
        return reports[0][1]
    out = CaseReport(cases.format, notes=list(cases.notes))
    placed = []
    for k, (members, report) in enumerate(reports):
        placed += list(zip(members, report.cases))
        out.seconds += report.seconds
        for v, info in report.variants.items():
            out.variants[f"{v} (draft {k + 1})" if prefixed else v] = info
    out.cases = [c for _, c in sorted(placed, key=lambda x: x[0])]
    return out


def _progress(path: Path, done: int, total: int) -> None:
    write_text(path, json.dumps({"done": done, "total": total}))


def _draft_cases(job, runs: list, log):
    """(text, template, traced case) of the draft for every case, or (exception, "", None)."""
    try:
        outcome = draft(job["path"], how=job["draft"], soc=job.get("soc"), cases=runs,
                        timeout=float(job.get("reference_timeout", 900)))
    except Exception as e:  # noqa: BLE001 - one failed op, in one line
        return e, "", None
    for n in outcome.notes:
        log(f"note: {n}")
    return outcome.text, outcome.template, outcome.traced_case


def llm_usage(path: Path) -> dict:
    """Calls and tokens of one op, from the LLM client's call log."""
    calls = [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []
    return {"calls": len(calls), "cached": sum(1 for c in calls if c.get("cached")),
            "requests": sum(c.get("attempts") or 0 for c in calls if not c.get("cached")),
            "tokens_in": sum(c.get("tokens_in") or 0 for c in calls),
            "tokens_out": sum(c.get("tokens_out") or 0 for c in calls)}


def _draft(job, traced, ref0, log):
    if job["draft"] == "drafter":
        if isinstance(traced, ReferenceError):
            return traced, ""
        try:
            d = draft_from_trace(traced["graph"], name=kernel_name(job["path"]), soc=job.get("soc"),
                                 source=Path(job["path"]).name, estimate=estimate_phases)
        except DraftError as e:
            return e, ""
        for n in d.notes:
            log(f"note: {n}")
        return d.text, d.template
    try:
        outcome = draft(job["path"], how="llm", soc=job.get("soc"),
                        reference_run=None if isinstance(ref0, Exception) else ref0)
    except Exception as e:  # noqa: BLE001 - the model's failure is this op's result
        return e, ""
    for n in outcome.notes:
        log(f"note: {n}")
    return outcome.text, "llm"


def _shape(job, s, draft_text, runs, timing, opdir: Path, log: Log, graph=None) -> dict:
    label = s["label"]
    out = {"overrides": s["overrides"], "compiled": False, "correct": False, "stage": "", "error": "", "seeds": []}
    log(f"-- shape {label} {json.dumps(s['overrides'])}")
    bad = next((r for r in runs if isinstance(r, ReferenceError)), None)
    if bad is not None:
        out.update(stage="reference", error=_one_line(bad))
        log(f"reference: {bad}")
        return out
    refs = [r["run"] for r in runs]
    if is_program_text(draft_text):
        return _program_shape(job, s, draft_text, refs, opdir, log, out)
    # 2. lower (the four passes)
    t0 = time.perf_counter()
    try:
        program = verify(parse(draft_text, "kernel.dsl.py"), job.get("soc"))
        inputs, _ = bind(program, refs[0])
        shapes = {n: v.shape for n, v in inputs.items() if hasattr(v, "shape")}
        scalars = {p.name: inputs[p.name] for p in program.scalars}
        program = verify(program, job.get("soc"), shapes=shapes, scalars=scalars)
        bundle = _lower(job, program, shapes, scalars)
    except DslError as e:
        out.update(stage="lower", error=_one_line(e))
        log(f"lower: {e.render() if hasattr(e, 'render') else e}")
        return out
    except Exception as e:  # noqa: BLE001 - a lowering failure is this shape's result
        out.update(stage="lower", error=_one_line(e))
        log("lower: " + traceback.format_exc())
        return out
    out["lower_s"] = round(time.perf_counter() - t0, 2)
    project = opdir / label / "ascendc"
    log(f"lowered in {out['lower_s']} s -> {project}")
    # 3 + 4. compile once, run every input set, compare
    kernel_times, all_ok = [], True
    trace = project.parent / "run.trace" if job.get("estimate", True) and job["backend"] == "emulator" else None
    for i, ref in enumerate(refs):
        seed_res = _run_seed(job, program, bundle, project, ref, log, exact=lambda seed: _exact_reference(job, s, seed),
                             trace=trace if i == 0 else None)
        out["seeds"].append(seed_res)
        if seed_res["status"] == "compile-error":
            out.update(stage="compile", error=seed_res["error"])
            return out
        out["compiled"] = True
        if seed_res.get("kernel_s"):
            kernel_times.append(seed_res["kernel_s"])
        if not seed_res["correct"]:
            all_ok = False
            if not out["error"]:
                out.update(stage="verify", error=f"seed {ref.seed}: {seed_res['error']}")
    out["correct"] = all_ok
    if all_ok:
        out["stage"] = "ok"
    if kernel_times and timing and not isinstance(timing, ReferenceError):
        emu = float(np.median(kernel_times))
        eager = timing["timing"]["median_s"]
        out["timing"] = {"emulator_kernel_s": emu, "torch_eager_s": eager, "torch_threads": timing["timing"]["threads"],
                         "emulator_threads": os.cpu_count() or 1}
        out["speed_ratio"] = eager / emu if emu > 0 else None
    if all_ok and trace is not None and trace.is_file():
        out["estimate"] = _estimate(trace, graph, get_soc(job.get("soc")).name, log)
    log(f"shape {label}: {'correct' if all_ok else 'INCORRECT'}" + (f" ({out['error']})" if out["error"] else ""))
    return out


def _program_shape(job, s, draft_text: str, refs, opdir: Path, log: Log, out: dict) -> dict:
    """A program of kernels (drafter/programs.py): every launch on the emulator or the interpreter, per
    seed, as `ascendcraft check` runs it (session/program.check_program); no timing or estimate yet."""
    from ..session.program import check_program
    label = s["label"]
    if job["backend"] not in ("emulator", "interpreter"):
        out.update(stage="lower", error=f"a program runs on the interpreter or the emulator, not {job['backend']}")
        return out
    path = opdir / label / "program.dsl.py"
    write_text(path, draft_text)
    all_ok = True
    for ref in refs:
        t0 = time.perf_counter()
        try:
            verdict, _ = check_program(path, job["path"], backend=job["backend"], soc=job.get("soc"),
                                       overrides=s["overrides"] or None, seed=ref.seed)
        except Exception as e:  # noqa: BLE001 - a lowering or run failure is this shape's result
            out.update(stage="lower", error=_one_line(e))
            log("program: " + traceback.format_exc())
            return out
        out["compiled"] = True
        out["seeds"].append({"seed": ref.seed, "correct": verdict.correct, "status": "ok" if verdict.correct else
                             "incorrect", "error": "" if verdict.correct else _one_line(verdict.message),
                             "seconds": round(time.perf_counter() - t0, 2)})
        log(f"seed {ref.seed}: {verdict.summary()}")
        if not verdict.correct:
            all_ok = False
            if not out["error"]:
                out.update(stage="verify", error=f"seed {ref.seed}: {_one_line(verdict.message)}")
    out["correct"] = all_ok
    if all_ok:
        out["stage"] = "ok"
    log(f"shape {label}: {'correct' if all_ok else 'INCORRECT'}" + (f" ({out['error']})" if out["error"] else ""))
    return out


def _estimate(trace: Path, graph, soc: str, log: Log) -> dict:
    """The pipe model's ESTIMATE of the first seed's traced run, and of eager for the reference."""
    try:
        launch = read_trace(trace)[-1]
        kernel = estimate(launch, soc, keep_spans=0)
        eager = estimate_eager(graph["graph"], soc) if isinstance(graph, dict) else None
        t0 = time.monotonic()
        moves = sensitivity(launch, graph["graph"] if isinstance(graph, dict) else None, soc)
        log(f"sensitivity: {len(moves)} parameters x {len(FACTORS)} in {time.monotonic() - t0:.1f} s")
    except (OSError, ValueError, IndexError, KeyError) as e:
        log(f"estimate: {_one_line(e)}")
        return {"error": _one_line(e)}
    finally:
        trace.unlink(missing_ok=True)
    est = {"estimate": True, "kernel_s": kernel.kernel_s, "bound_pipe": kernel.bound_pipe, "overlap": kernel.overlap,
           "roofline": kernel.roofline["bound"], "bandwidth_fraction": kernel.roofline["bandwidth_fraction"],
           "roofline_fraction": kernel.roofline["fraction"], "roofline_bound": kernel.roofline["chip_bound"],
           "floor_s": kernel.roofline["floor_s"],
           "eager_s": eager.seconds if eager and eager.ops else None, "sensitivity": moves}
    est["speedup"] = est["eager_s"] / kernel.kernel_s if est["eager_s"] and kernel.kernel_s > 0 else None
    log(f"ESTIMATED on {soc}: kernel {kernel.kernel_s * 1e6:.2f} us "
        f"({kernel.bound_pipe}-bound, overlap {kernel.overlap:.0%}, at {kernel.roofline['fraction']:.0%} of the "
        f"chip's {kernel.roofline['chip_bound']} roofline)"
        + (f", eager {est['eager_s'] * 1e6:.2f} us, speedup {est['speedup']:.2f}x" if est["speedup"] else ""))
    return est


def _lower(job, program, shapes, scalars):
    options = LowerOptions(soc=get_soc(job.get("soc")).name, shapes=shapes, scalars=scalars)
    if job["engine"] == "rule":
        return render(program, options, 4)
    steps = run_pipeline(program, engine_for(job["engine"]), options)
    failed = [f.render() for st in steps for f in st.findings]
    if failed or len(steps) < 4 or any(st.failed for st in steps):
        raise RuntimeError("the passes reported: "
                           + (failed[0].splitlines()[0] if failed else "an incomplete pipeline"))
    return steps[-1].bundle


def _exact_reference(job, s, seed):
    """The reference run again in float64 (outputs rounded to float32), or a ReferenceError."""
    return run_jobs([{"mode": "run", "path": job["path"], "overrides": s["overrides"], "seed": seed, "exact": True}],
                    timeout=float(job.get("reference_timeout", 600)))[0]


def _run_seed(job, program, bundle, project, ref, log, exact=None, trace: Path | None = None) -> dict:
    inputs, expected = bind(program, ref)
    scalars = {p.name: inputs[p.name] for p in program.scalars}
    tensors = {n: v for n, v in inputs.items() if isinstance(v, np.ndarray)}
    before = {n: v.copy() for n, v in tensors.items()}
    if job["backend"] == "cann":
        verdict, run = check_cann(program, bundle, ref, job.get("soc"))
        return {"seed": ref.seed, "status": "ok" if verdict.correct else "incorrect", "correct": bool(verdict.correct),
                "error": "" if verdict.correct else verdict.message, "outputs": []}
    kr = emulate(program, bundle, tensors, scalars, soc=get_soc(job.get("soc")).name,
                 timeout=_kernel_timeout(job), root=project, trace=trace)
    res = {"seed": ref.seed, "status": kr.status, "correct": False, "error": "", "outputs": [],
           "kernel_s": kr.timings.get("kernel_s"), "compile_s": kr.timings.get("compile_s"),
           "cached": kr.timings.get("cached")}
    if kr.status not in ("ok", "findings"):
        res["error"] = f"{kr.status}: {kr.message}"
        log(f"seed {ref.seed}: {res['error']}")
        return res
    got = trim_outputs(program, kr.outputs)
    checks = [check_output(p.name, got.get(p.name), expected[p.name], _torch_dtype(p)) for p in program.outputs]
    if exact is not None and not all(c.correct for c in checks) and job.get("dtype", "float32") == "float32" \
            and all(_is_f32(p) for p in program.outputs):
        # PyTorch's float32 answer is not always the better one (torch.norm of 67 M floats is off by
        # 0.5 %): a float32 kernel that matches the float64 answer instead is correct too.
        run = exact(ref.seed)
        if isinstance(run, dict):
            _, precise = bind(program, run["run"])
            again = [check_output(p.name, kr.outputs.get(p.name), precise[p.name], "float32") for p in program.outputs]
            if all(c.correct for c in again):
                worst = max(c.max_rel_err for c in checks)
                log(f"seed {ref.seed}: differs from PyTorch's float32 result (max rel err {worst:.3g}) but matches "
                    "the reference computed in float64, so PyTorch's float32 result is the less accurate one")
                checks = again
                res["reference"] = "float64"
    res["outputs"] = [c.to_json() for c in checks]
    changed = inputs_unchanged(before, kr.inputs_after)
    problems = [f"`{c.name}`: {c.reason}" for c in checks if not c.correct]
    if changed:
        problems.append(changed)
    if kr.status == "findings":
        problems.append(f"{len(kr.findings)} emulator finding(s): {kr.findings[0].get('kind')} — "
                        f"{kr.findings[0].get('message', '')[:160]}")
    res["correct"] = not problems
    res["error"] = "; ".join(problems)
    worst = max((c.max_rel_err for c in checks), default=0.0)
    log(f"seed {ref.seed}: {'ok' if res['correct'] else 'FAIL ' + res['error']}  "
        f"(kernel {kr.timings.get('kernel_s')} s, compile {kr.timings.get('compile_s')} s"
        f"{' cached' if kr.timings.get('cached') else ''}, max rel err {worst:.3g})")
    return res


def _kernel_timeout(job) -> float | None:
    """The job's time limit for one emulated run, or None: scaled with the run's work (verify.work_timeout)."""
    t = job.get("kernel_timeout")
    return float(t) if t is not None else None


def _is_f32(p) -> bool:
    return p.dtype.value == "f32"


def _torch_dtype(p) -> str:
    return {"f32": "float32", "f16": "float16", "bf16": "bfloat16"}.get(p.dtype.value, p.dtype.value)


def main(argv=None) -> int:
    procs.die_with_parent()        # a worker never outlives the bench that started it
    procs.handle_termination()
    argv = sys.argv[1:] if argv is None else argv
    job = json.loads(Path(argv[0]).read_text())
    result = run_op(job)
    write_text(Path(job["opdir"]) / "result.json", json.dumps(result, indent=1, default=_json_default))
    return 0


def _json_default(o):
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    return str(o)


if __name__ == "__main__":
    sys.exit(main())
