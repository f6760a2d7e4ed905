"""Verifying a session's AscendC project against its PyTorch reference, and a DSL file without a session.

Three kinds of verification, one record each in the session's runs/ (`record_check`):

- **one input set** (a KernelBench reference): the project compiled and run on the emulator,
  or built and run on an NPU (`backend="cann"`), its outputs compared with the reference's;
- **every case** of an NPUKernelBench reference (session/cases.py), on the emulator: the variant
  the session lowered runs as shipped in `ascendc/`, a generic kernel's other variants as lowered
  beside it. Correct only when every case is;
- **a DSL file** (`check_file`, `check_file_cases`): lowered in memory by the rule engine,
  nothing recorded.

What is verified is what ships: the files of `ascendc/` as they are on disk, refused when they
are not the project the steps made (`shipped_project`). `runnable` holds the preconditions the
estimate (estimate.py) shares.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable, Mapping

from ..atomic import disk_full, read_text
from ..backends.cann.detect import refuse_reason
from ..backends.cann.run import check_cann
from ..backends.emulator.verify import check_emulator, render_run
from ..dsl.generic import variant_name
from ..dsl.parser import parse
from ..dsl.verifier import verify
from ..engines.rule import render
from ..passes.bundle import Bundle
from ..passes.pipeline import PIPELINE
from ..passes.spec import LowerOptions
from ..reference import ReferenceError, load_cases, load_reference, reference_format
from ..soc import get_soc
from .cases import CaseReport, check_cases
from .errors import SessionError, user_errors
from .folder import PROJECT, files_hash, hand_edit_error, listing, locked, refuse_read_only, text_hash
from .inputs import cached_cases, cached_reference, variant_of
from .lower import load_dsl
from .state import REVIEWED, CheckResult, SessionState, bundle_hash, finite, jsonable

BACKENDS = ("emulator", "cann")
Progress = Callable[[str], None]


def verify_session(state: SessionState, backend: str = "emulator", *, reviewed: bool = True, seed: int = 0,
                   overrides: Mapping[str, Any] | None = None, reference: str | Path | None = None,
                   progress: Progress | None = None, npu_draws: str = "project") -> CheckResult:
    """Compile the final AscendC project, run it and compare with the PyTorch reference.

    `reviewed=False` verifies without asking for every step to be accepted (the CLI's `check`,
    which reviews nothing); `overrides` and `seed` pick the input set (default: the session's),
    `reference` another reference file; `npu_draws` how the cann backend draws its inputs
    (backends/cann/run.py DRAWS). Every run is recorded in runs/."""
    ref_path, overrides, files = runnable(state, backend, reviewed, reference, overrides)
    project = shipped_project(state, files)
    if progress:
        progress("compiling the AscendC project with g++ against the emulator and running it "
                 "(a kernel's first build takes a few seconds; later runs are cached)")
    t0 = time.perf_counter()
    as_file = None if reference is not None else state.reference_as_file()
    if reference_format(ref_path) == "NPUKernelBench":
        fields = _every_case(state, ref_path, overrides, as_file, project, files, backend, t0, progress)
    else:
        fields = _one_input_set(state, ref_path, overrides, seed, as_file, project, backend, t0, npu_draws)
    return record_check(state, {"backend": backend, **fields}, overrides, files)


def _one_input_set(state: SessionState, ref_path: Path, overrides, seed: int, as_file, project: Bundle,
                   backend: str, t0: float, npu_draws: str = "project") -> dict:
    """The record's fields of one run on the reference's input set (seed `seed`)."""
    with user_errors(state.dsl_name, state.dsl, failing="compile & verify"):
        ref = cached_reference(ref_path, overrides, seed, as_file=as_file)
        t1 = time.perf_counter()
        if backend == "cann":
            verdict, run = check_cann(state.program, project, ref, state.soc, seed=seed, draws=npu_draws)
            detail = ""
        else:
            verdict, run = check_emulator(state.program, project, ref, soc=state.soc)
            detail = render_run(run, state.program)
    timings = {"reference_s": round(t1 - t0, 3), "verify_s": round(time.perf_counter() - t0, 3),
               **{k: v for k, v in run.timings.items() if isinstance(v, (int, float, bool))}}
    return {"soc": verdict.soc, "correct": verdict.correct, "message": verdict.message,
            "max_abs_err": finite(verdict.max_abs_err), "max_rel_err": finite(verdict.max_rel_err),
            "run": jsonable(run.to_json()), "seed": seed, "summary": verdict.summary(), "detail": detail,
            "timings": timings}


def _every_case(state: SessionState, ref_path: Path, overrides, as_file, project: Bundle, files: Mapping[str, str],
                backend: str, t0: float, progress: Progress | None) -> dict:
    """The record's fields of a run of every case of an NPUKernelBench reference (session/cases.py)."""
    if backend != "emulator":
        raise SessionError("error: the cases of an NPUKernelBench reference are verified on the emulator here\n"
                           "  = help: use --backend emulator (the NPU run takes KernelBench references)")
    try:
        cases = cached_cases(ref_path, overrides, as_file)
    except ReferenceError as exc:
        raise SessionError(exc.render()) from exc
    t1 = time.perf_counter()

    def tick(i, n, result):
        if progress:
            progress(f"case {i}/{n}: {result.line()}")
    report = check_cases(state.program, cases, soc=state.soc, bundles=_shipped_variants(state, project, files),
                         progress=tick)
    timings = {"reference_s": round(t1 - t0, 3), "verify_s": round(time.perf_counter() - t0, 3),
               "cases_s": round(report.seconds, 3)}
    errs = [c.max_abs_err for c in report.cases if c.max_abs_err is not None]
    rels = [c.max_rel_err for c in report.cases if c.max_rel_err is not None]
    return {"soc": get_soc(state.soc).name, "correct": report.correct, "message": report.verdict(),
            "max_abs_err": finite(max(errs, default=None)), "max_rel_err": finite(max(rels, default=None)),
            "run": {"status": "cases"}, "seed": 0, "summary": report.summary(), "detail": "",
            "timings": timings, "cases": report.to_json()}


def _shipped_variants(state: SessionState, project: Bundle, files: Mapping[str, str]) -> dict[str, Bundle]:
    """Each variant's project as it is on disk, by variant name (the lowered one is `project`)."""
    shipped = {variant_name(dict(state.program.binding)): project}
    for name, bundle in state.variants.items():
        prefix = f"variants/{name}/"
        shipped[name] = Bundle({p[len(prefix):]: files[p] for p in bundle.files},
                               {p[len(prefix):]: m for p, m in bundle.source_map.items()})
    return shipped


# A check's run record, field by field in the order its file lists them (`cases`: an NPUKernelBench run).
RECORD_FIELDS = ("backend", "soc", "correct", "message", "max_abs_err", "max_rel_err", "run", "overrides", "seed",
                 "summary", "detail", "timings", "cases", "bundle_hash", "dsl_hash", "project_hash", "project_files")
_FIELD_ORDER = {name: i for i, name in enumerate(RECORD_FIELDS)}     # any other field after them


def record_check(state: SessionState, fields: Mapping[str, Any], overrides, files: Mapping[str, str]) -> CheckResult:
    """Record a compile-and-verify run in runs/ (with the hashes of what ran) and make it the session's verdict."""
    hashes = {"overrides": jsonable(overrides), "bundle_hash": bundle_hash(state.final),
              "dsl_hash": text_hash(state.dsl), "project_hash": files_hash(files),
              "project_files": {p: text_hash(t) for p, t in files.items()}}
    record = dict(sorted({**fields, **hashes}.items(), key=lambda kv: _FIELD_ORDER.get(kv[0], len(_FIELD_ORDER))))
    try:
        path = state.folder.record_run(record)
    except OSError as exc:          # a full disk: the verdict is shown, and said to be unrecorded
        full = disk_full(exc)
        if full is None:
            raise
        record["detail"] = "\n".join(filter(None, [record.get("detail"), full.replace(
            "error: ", f"warning: this verdict is not recorded in {state.folder.path}/runs/ (`export` needs a "
                       "recorded passing check): ", 1)]))
        path = ""
    state.result = CheckResult.from_record(record, str(path))
    state.timings.update(record["timings"])
    return state.result


def runnable(state: SessionState, backend: str, reviewed: bool, reference, overrides):
    """(reference path, overrides, project files on disk) when the session can run on `backend`;
    a SessionError saying what is missing otherwise (verify's and the estimate's preconditions)."""
    if backend not in BACKENDS:
        raise SessionError(f"error: unknown backend `{backend}`\n  = help: use emulator (or cann on an NPU host)")
    _refuse_unfinished(state, reviewed)
    ref_path = Path(reference) if reference is not None else state.reference
    if ref_path is None:
        raise SessionError("error: this session has no PyTorch reference to verify against\n"
                           "  = help: give it one with --ref REF.py (or reference= in Session.open)")
    overrides = dict(state.overrides if overrides is None else overrides)
    if backend == "cann":
        reason = refuse_reason("run")
        if reason:
            raise SessionError(f"error: {reason}\n  = help: use the emulator backend on a machine without an NPU")
    refuse_read_only(state.folder, "every check records its result in runs/: make it writable or copy the session")
    with locked(state.folder):            # what ships is what is on disk: verify exactly that
        files = state.folder.project_files()
    return ref_path, overrides, files


def _refuse_unfinished(state: SessionState, reviewed: bool) -> None:
    """Refuse a session whose passes did not all run, one failed, or (`reviewed`) one is not reviewed."""
    steps = state.step_states
    if len(steps) < len(PIPELINE):
        raise SessionError(f"error: the session stops after pass `{state.until}`: there is no AscendC project to "
                           "compile yet\n  = help: open it without --until so every pass runs")
    failed = [s for s in steps if s.status == "failed"]
    if failed:
        s = failed[0]
        detail = "\n".join(f.render(state.dsl_name, state.dsl) for f in s.findings) or \
            "\n".join(f"conflict in {c.path}:{c.line}" for c in s.conflicts)
        raise SessionError(f"error: pass {s.number} ({s.name}) failed, so there is nothing to compile\n{detail}")
    todo = [s for s in steps if s.status not in REVIEWED]
    if reviewed and todo:
        states = ", ".join(f"{s.name} is {s.status}" for s in todo)
        raise SessionError(f"error: compile & verify needs every step accepted or edited ({states})\n"
                           "  = help: review each step (accept or edit it), or pass --check to accept them all")


def shipped_project(state: SessionState, files: Mapping[str, str]) -> Bundle:
    """`ascendc/` as a bundle (the steps' source map on it), refused when it is not what the steps made."""
    expected = {**state.final.files, **{p: t for v in state.variants.values() for p, t in v.files.items()}}
    changed = [f"{PROJECT}/{p}" for p, t in expected.items() if p in files and files[p] != t]
    if changed:
        raise hand_edit_error(state.folder, changed)
    missing = [f"{PROJECT}/{p}" for p in expected if p not in files]
    if missing:
        raise SessionError(f"error: {listing(missing)} {'is' if len(missing) == 1 else 'are'} missing from the "
                           "project on disk, so it is not the project the steps made\n"
                           "  = help: lower again to restore it (`ascendcraft check DIR` does; in a notebook "
                           "lab.adopt_edits())")
    return state.final.with_files({p: t for p, t in files.items() if p not in expected})


def check_file_cases(dsl_path: str | Path, reference: str | Path, *, soc: str | None = None,
                     overrides: Mapping[str, Any] | None = None, progress=None) -> CaseReport:
    """Every case of an NPUKernelBench reference against a DSL file, lowered in memory by the rule
    engine (each variant of a generic kernel once). Raises DslError / ReferenceError / OSError."""
    soc_name = get_soc(soc).name
    text = read_text(dsl_path, "DSL file")
    load_dsl(text, str(dsl_path), soc_name)          # the draft's own errors first, as a DslError
    cases = load_cases(reference, overrides=dict(overrides or {}) or None)
    return check_cases(parse(text, str(dsl_path)), cases, soc=soc_name, progress=progress)


def check_file(dsl_path: str | Path, reference: str | Path, *, soc: str | None = None, backend: str = "emulator",
               overrides: Mapping[str, Any] | None = None, seed: int = 0, npu_draws: str = "project"):
    """Verify a DSL file without a session folder: lowered in memory by the rule engine.

    Returns (verdict, run, program); raises DslError / ReferenceError / OSError for bad input."""
    soc_name = get_soc(soc).name
    program = load_dsl(read_text(dsl_path, "DSL file"), str(dsl_path), soc_name)
    bundle = render(program, LowerOptions(soc=soc_name), len(PIPELINE))
    ref = load_reference(reference, overrides=dict(overrides or {}) or None, seed=seed)
    if program.generic:
        program = verify(variant_of(program, ref), soc_name)
        bundle = render(program, LowerOptions(soc=soc_name), len(PIPELINE))
    if backend == "cann":
        verdict, run = check_cann(program, bundle, ref, soc_name, seed=seed, draws=npu_draws)
    else:
        verdict, run = check_emulator(program, bundle, ref, soc=soc_name)
    return verdict, run, program
