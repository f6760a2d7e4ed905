"""Lowering a session: its draft and the folder's edits -> the four passes' steps, their states, the folder.

The policy, in the order a lowering applies it:

- **Settings** (`settle`): the caller's, else the folder's (engine, --until, reference
  overrides, SoC, the draft's name); a draft of None is the folder's `kernel.dsl.py`.
- **Binding**: with a reference, its first input set gives the shapes; the verifier then also
  checks the launch and the UB budget at the DSL line, and the host pass's tiling is explained
  for those shapes. A dtype-generic kernel is lowered as its first variant, the others by the
  rule engine into `ascendc/variants/<dtype>/`.
- **Passes** (`plan_lowering`): the pass manager runs host -> init -> compute -> align with the
  folder's edits (edit_store.py says how they are merged).
- **States** (`step_states`): failed, else edited, else accepted when it was accepted before and
  its output is the same, else unchanged when it changed nothing, else pending.
- **Commit** (`commit`): every stage, the project and the manifest switch in one commit; a
  generated file changed by hand is refused (`lower`) unless it is adopted (`edits.adopt`).
  Nothing is written when anything fails, and a folder this lowering made is removed again.
"""
from __future__ import annotations

import contextlib
import json
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterator, Mapping

from ..atomic import NotText, disk_full, read_text
from ..backends.emulator.verify import compile_errors
from ..dsl import ir
from ..dsl.errors import DslError, format_diagnostic
from ..dsl.generic import instantiate
from ..dsl.parser import parse
from ..dsl.verifier import verify
from ..engines.llm.client import LOG_FILE_NAME
from ..engines.llm.engine import engine_from_environment
from ..engines.rule import RuleEngine
from ..passes.bundle import Bundle
from ..passes.manager import Step, run_pipeline
from ..passes.pipeline import PIPELINE, get_pass
from ..passes.spec import LowerOptions
from ..passes.tiling_report import tiling_report
from ..passes.variants import variant_files
from ..reference import sidecars
from ..soc import get_soc
from .edit_store import edit_log, edit_notes, edits_for_lowering
from .errors import SessionError, user_errors
from .folder import (LOCK_FILE, PROJECT, SOURCEMAP, Committed, Drift, SessionFolder, hand_edit_error, listing, locked,
                     read_manifest, refuse_foreign, text_hash)
from .inputs import bind_shapes, cached_reference, variant_of
from .state import DSL_NAME, REFERENCE_FILES, CheckResult, SessionState, StepState, bundle_hash, jsonable

ENGINES = ("rule", "llm")


def engine_for(name: str, session: SessionFolder | None = None):
    """The engine behind `--engine NAME`; the LLM engine gets the emulator's compiler feedback."""
    if name == "rule":
        return RuleEngine()
    if name == "llm":  # config from LlmConfig.resolve(); no endpoint -> one ValueError message
        engine = engine_from_environment(compiler=compile_errors)
        if session is not None:   # every call of this session is logged beside it (never the key)
            engine.client.log_path = session.path / "runs" / LOG_FILE_NAME
        return engine
    raise ValueError(f"engine `{name}` is not available here; use --engine rule")


def load_dsl(text: str, path: str, soc: str | None, shapes=None, scalars=None, binding=None) -> ir.Program:
    """Parse and verify a draft (with shapes, the verifier also checks the launch and the UB budget).

    A dtype-generic kernel is verified as one variant: `binding`'s, by default the first dtype
    of each type variable (dsl/generic.py)."""
    program = instantiate(parse(text, path), binding)
    return verify(program, soc, shapes=shapes, scalars=scalars) if shapes else verify(program, soc)


# ----------------------------------------------------------------------------- settings
def settle(state: SessionState, dsl: str | None, *, soc: str | None, engine: str | None, until: str | None,
           overrides: Mapping[str, Any] | None, dsl_name: str | None) -> None:
    """The session's settings: each the caller's, else the folder's (see the module docstring)."""
    manifest = read_manifest(state.folder)
    saved = manifest.get("notebook", {})
    text = dsl if dsl is not None and dsl.strip() else read_draft(state.folder)
    state.dsl = text if text.endswith("\n") else text + "\n"
    state.dsl_name = dsl_name or manifest.get("dsl_name") or DSL_NAME
    state.engine = engine or saved.get("engine") or "rule"
    state.until = until if until is not None else saved.get("until")
    state.overrides = dict(overrides if overrides is not None else saved.get("overrides") or {})
    state.soc = check_soc(soc) if soc else check_soc(manifest.get("soc"), state.folder.manifest_path)
    if state.engine not in ENGINES:
        raise SessionError(f"error: unknown engine `{state.engine}`\n  = help: use --engine rule or --engine llm")
    if state.until is not None:
        try:
            state.until = get_pass(state.until).name
        except ValueError as exc:
            raise SessionError(f"error: {exc}") from None


def read_draft(folder: SessionFolder) -> str:
    """The draft the folder holds (a session opened without one)."""
    if not folder.dsl_path().is_file():
        raise SessionError(f"error: {folder.path} holds no DSL draft yet (no kernel.dsl.py)\n"
                           "  = help: write the DSL draft in the cell (or pass dsl= to Session.open), "
                           "or lower it again: `ascendcraft lower K.dsl.py -o DIR`")
    try:
        return read_text(folder.dsl_path(), "the session's DSL draft")
    except (OSError, NotText) as exc:
        raise SessionError(f"error: {exc}") from None


def check_soc(name: str | None, manifest: Path | None = None) -> str:
    """The SoC's table name; `manifest` names the file the name came from, for the message."""
    try:
        return get_soc(name).name
    except ValueError as exc:
        if manifest is not None:
            raise SessionError(f"error: the session's manifest {manifest} names SoC {name!r}, which is not in the SoC "
                               f"table ({exc})\n  = help: pass --soc with one of the known names, or correct "
                               "`soc` in the manifest") from None
        raise SessionError(f"error: {exc}\n  = help: pass --soc with one of the known names") from None


def reference_source(reference: str | Path | None) -> Path | None:
    """The reference a caller gives, refused when it is not a file (it is copied into the folder)."""
    if reference is None:
        return None
    source = Path(reference)
    if not source.is_file():
        what = "is a directory, not a file" if source.is_dir() else "does not exist"
        raise SessionError(f"error: the reference {source} {what}\n  = help: give --ref the path of a "
                           "KernelBench-style file (Model, get_inputs, get_init_inputs)")
    return source


# ----------------------------------------------------------------------------- one lowering
@dataclass
class Plan:
    """A lowering computed and not yet committed: the steps and every file the folder will hold."""

    engine: Any
    reference: Path | None          # a new reference to copy in (None: the folder's, if any)
    program: ir.Program
    options: LowerOptions
    manifest: dict
    steps: list[Step]
    files: dict[str, str | bytes]   # relative path -> content, as the commit will leave them
    drift: Drift                    # generated files changed or removed since the last commit
    by_hand: list[str]              # ... of which changed, and about to be overwritten: hand edits
    started: float                  # when the passes started (perf_counter)


def lower(state: SessionState, reference: Path | None = None, accept_all: bool = False) -> None:
    """Parse, bind to the reference, lower with the folder's edits and switch the folder to the
    result in one commit; the folder is untouched when anything fails. `accept_all` accepts
    every step that does not fail (as the command line does)."""
    with lowering(state) as engine:
        plan = plan_lowering(state, engine, reference)
        if plan.by_hand:
            raise hand_edit_error(state.folder, plan.by_hand)
        commit(state, plan, accept_all)


@contextlib.contextmanager
def lowering(state: SessionState) -> Iterator[Any]:
    """The frame of one lowering, yielding its engine: the folder made (and removed again when
    this lowering made it and did not finish), its lock held, every error as a SessionError."""
    try:
        engine = engine_for(state.engine, state.folder)
    except ValueError as exc:          # an engine that cannot run here (no LLM endpoint): not the draft's fault
        raise SessionError(f"error: {exc}") from None
    path = state.folder.path
    created = not path.exists()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SessionError(f"error: cannot create the session folder {path}: {exc.strerror}") from None
    finished = False
    try:
        with _lowering_errors(state), locked(state.folder):
            state.notes = []
            yield engine
            finished = True
    finally:
        if created and not finished:     # a folder this call made and never filled goes again
            with contextlib.suppress(OSError):
                (path / LOCK_FILE).unlink(missing_ok=True)
                path.rmdir()


@contextlib.contextmanager
def _lowering_errors(state: SessionState) -> Iterator[None]:
    try:
        with user_errors(state.dsl_name, state.dsl):
            yield
    except NotText as exc:
        raise SessionError(f"error: {exc}") from None
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        raise SessionError(disk_full(exc, f"the session folder {state.folder.path}")
                           or f"error: {where}{exc.strerror or exc}") from None
    except ValueError as exc:
        raise SessionError(format_diagnostic(state.dsl_name, state.dsl, getattr(exc, "span", None), str(exc))) from exc


def plan_lowering(state: SessionState, engine, reference: Path | None) -> Plan:
    """Parse the draft, bind it, run the passes with the folder's edits: what the commit would write."""
    refuse_foreign(state.folder)
    t0 = time.perf_counter()
    program = load_dsl(state.dsl, state.dsl_name, state.soc)
    manifest = read_manifest(state.folder)
    _refuse_other_kernel(state.folder, manifest, program)
    program, shapes, scalars = _bind(state, program, reference, t0)
    started = time.perf_counter()
    options = LowerOptions(soc=state.soc, shapes=dict(shapes or {}), scalars=dict(scalars or {}))
    steps = run_pipeline(program, engine, options, edits=edits_for_lowering(state.folder), until=state.until)
    state.variants = _variants(state, program, options, steps)
    drift = state.folder.drift(manifest.get("written") or {})
    files = generated_files(state, steps, reference)
    # Changed since written and about to be overwritten: a hand edit. (A changed file the
    # lowering no longer makes is kept by the commit and reported.)
    by_hand = [rel for rel in drift.changed
               if rel in files and (state.folder.path / rel).read_bytes() != _as_bytes(files[rel])]
    return Plan(engine, reference, program, options, manifest, steps, files, drift, by_hand, started)


def rerun(state: SessionState, plan: Plan) -> Plan:
    """The plan again after the folder's edits changed under the lock (hand edits adopted)."""
    steps = run_pipeline(plan.program, plan.engine, plan.options, edits=edits_for_lowering(state.folder),
                         until=state.until)
    return replace(plan, manifest=read_manifest(state.folder), steps=steps,
                   files=generated_files(state, steps, plan.reference), by_hand=[])


def _refuse_other_kernel(folder: SessionFolder, manifest: dict, program: ir.Program) -> None:
    owner = manifest.get("kernel")
    if owner and owner != program.kernel.name:
        raise SessionError(f"error: {folder.path} is the session of kernel `{owner}`, and this draft's kernel is "
                           f"`{program.kernel.name}`\n  = help: lower `{program.kernel.name}` into a folder of "
                           f"its own (-o DIR), or delete {folder.path} to start over")


def _bind(state: SessionState, program: ir.Program, reference: Path | None, t0: float):
    """(program verified for the shapes, shapes, scalars) of the reference's first input set;
    (program, None, None) without a reference."""
    source = reference if reference is not None else state.reference
    if source is None:
        return program, None, None
    as_file = None if reference is not None else state.reference_as_file()
    ref = cached_reference(source, state.overrides, as_file=as_file)
    state.timings["reference_s"] = round(time.perf_counter() - t0, 3)
    # a generic kernel is lowered as its first variant; the shapes come from the first case
    # whatever its dtype (the variant that serves it binds them)
    shapes, scalars = bind_shapes(verify(variant_of(program, ref), state.soc) if program.generic else program, ref)
    # With shapes the verifier also checks the UB budget, pointing at the DSL line.
    return verify(program, state.soc, shapes=shapes, scalars=scalars), shapes, scalars


def _variants(state: SessionState, program: ir.Program, options: LowerOptions, steps: list[Step]) -> dict[str, Bundle]:
    """A generic kernel's other variants, when every pass ran and none failed."""
    if not program.generic or len(steps) != len(PIPELINE) or any(s.failed for s in steps):
        return {}
    try:
        return variant_files(program, options)
    except DslError as exc:
        raise SessionError(exc.with_source(state.dsl_name, state.dsl).render()) from exc


# ----------------------------------------------------------------------------- the folder's files
def generated_files(state: SessionState, steps: list[Step], reference: Path | None) -> dict[str, str | bytes]:
    """Every file the lowering owns, as the commit will leave them (relative path -> content)."""
    files: dict[str, str | bytes] = {"kernel.dsl.py": state.dsl, **_reference_files(state.folder, reference)}
    outputs = [(f"stages/{s.spec.dirname}", s.bundle) for s in steps]
    if len(steps) == len(PIPELINE) and not any(s.failed for s in steps):
        outputs.append((PROJECT, _project(steps[-1].bundle, state.variants)))
    for root, bundle in outputs:
        for path, text in bundle.files.items():
            files[f"{root}/{path}"] = text
        files[f"{root}/{SOURCEMAP}"] = json.dumps({p: list(m) for p, m in bundle.source_map.items()}, indent=2) + "\n"
    return files


def _reference_files(folder: SessionFolder, reference: Path | None) -> dict[str, bytes]:
    """The reference and what it reads beside it (its JSON cases), so the copy runs as the original
    did: a new reference's, else the folder's copies."""
    if reference is not None:
        source, read = Path(reference), sidecars(reference)
    else:
        source, kept = folder.path / "reference.py", folder.path / REFERENCE_FILES
        if not source.is_file():
            return {}
        read = [f for f in sorted(kept.iterdir()) if f.is_file()] if kept.is_dir() else []
    return {"reference.py": source.read_bytes(), **{f"{REFERENCE_FILES}/{f.name}": f.read_bytes() for f in read}}


def _project(final: Bundle, variants: Mapping[str, Bundle]) -> Bundle:
    """`ascendc/`: the last step's bundle, with a generic kernel's other variants."""
    return Bundle({**final.files, **{p: t for v in variants.values() for p, t in v.files.items()}},
                  {**final.source_map, **{p: m for v in variants.values() for p, m in v.source_map.items()}})


def commit(state: SessionState, plan: Plan, accept_all: bool = False) -> None:
    """Switch the folder to the plan in one commit, and the session to its steps."""
    states = step_states(state, plan, accept_all)
    if plan.reference is not None:
        plan.manifest["reference_name"] = Path(plan.reference).name
    elif "reference.py" not in plan.files:
        plan.manifest.pop("reference_name", None)
    done = state.folder.commit(plan.files, plan.manifest)
    state.notes += _commit_notes(plan, done)
    state.timings["lower_s"] = round(time.perf_counter() - plan.started, 3)
    state.program = plan.program
    state.step_states = states
    state.timings["passes_s"] = round(sum(s.seconds for s in states), 4)
    state.result = last_result(state)


def _commit_notes(plan: Plan, done: Committed) -> list[str]:
    notes = []
    restored = [rel for rel in plan.drift.removed if rel in plan.files]
    if restored:
        notes.append(f"restored {listing(restored)} (deleted since the last lowering)")
    if done.kept:
        notes.append(f"kept {listing(done.kept)}: changed by hand and no longer generated")
    if done.foreign:
        notes.append(f"kept {listing(done.foreign)}: not written by ascendcraft")
    return notes


# ----------------------------------------------------------------------------- step states
def step_states(state: SessionState, plan: Plan, accept_all: bool) -> list[StepState]:
    """Each step's reviewed state (see the module docstring), and the manifest as the commit will write it."""
    manifest = plan.manifest
    manifest.setdefault("notebook", {}).update(
        {"engine": state.engine, "until": state.until, "overrides": jsonable(state.overrides)})
    log = edit_log(manifest, plan.steps)
    old_steps = manifest.get("steps", {})
    entries, states = {}, []
    for step in plan.steps:
        digest = bundle_hash(step.bundle)
        status = _status(step, digest, old_steps.get(step.spec.name, {}), accept_all)
        entries[step.spec.name] = _entry(step, status, digest)
        states.append(StepState(step, status, tuple(edit_notes(step, log, state.dsl))))
    manifest.update({
        "schema": 1, "kernel": plan.program.kernel.name, "soc": state.soc, "dsl_hash": text_hash(state.dsl),
        "dsl_name": state.dsl_name, "reference": "reference.py" if "reference.py" in plan.files else None,
        "steps": entries, "lowered_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
    })
    manifest.pop("tiling", None)
    if plan.options.shapes:
        _explain_tiling(state, plan)
    return states


def _status(step: Step, digest: str, old: Mapping[str, Any], accept_all: bool) -> str:
    if step.failed:
        return "failed"
    if step.edited:     # the user's text replaces the step, merge conflicts and all
        return "edited"
    if accept_all or (old.get("status") == "accepted" and old.get("hash") == digest):
        return "accepted"
    return "pending" if step.diffs else "unchanged"


def _entry(step: Step, status: str, digest: str) -> dict[str, Any]:
    """A step as the manifest records it."""
    return {
        "status": status, "engine": step.engine, "hash": digest, "stat": step.stat,
        "files": {d.path: d.stat for d in step.diffs}, "seconds": round(step.seconds, 4),
        "findings": [f.to_json() for f in step.findings],
        "conflicts": [{"path": c.path, "line": c.line, "ours": list(c.ours), "theirs": list(c.theirs)}
                      for c in step.conflicts],
        "report": step.report,
    }


def _explain_tiling(state: SessionState, plan: Plan) -> None:
    """The host pass's tiling for the reference's shapes, in the manifest (none when it cannot be explained)."""
    options = plan.options
    try:
        plan.manifest["tiling"] = tiling_report(plan.program, dict(options.shapes), dict(options.scalars),
                                                get_soc(state.soc)).to_json()
    except DslError:
        pass


def last_result(state: SessionState) -> CheckResult | None:
    """The newest compile-and-verify record, marked stale when the steps changed since."""
    final = state.final
    for record, path in state.folder.runs():
        if record.get("bundle_hash"):
            result = CheckResult.from_record(record, str(path))
            result.current = final is not None and record["bundle_hash"] == bundle_hash(final)
            return result
    return None


def _as_bytes(v) -> bytes | None:
    return v.encode() if isinstance(v, str) else v
