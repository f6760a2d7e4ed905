"""`LabSession`: the pipeline state of one kernel as the notebook sees it, backed by its session folder.

The controller behind `%%ascendcraft` and the widgets, with no UI code: it lowers a DSL draft
through the four passes (`passes.lower.lower_session`, the same entry point as the CLI), and
lets the user review each step — `accept`, `edit` (saved in the folder; later steps are
re-derived and three-way merged, conflicts surfaced), `undo`, `regenerate` — then
`compile_and_verify` on the emulator once every step is accepted or edited.

Everything lives in the folder (manifest, stages, edits, runs), so `LabSession.resume(folder)`
in a fresh process — a re-run cell or a restarted kernel — shows the same steps and verdict.
Every failure a user can cause is a `LabError` whose `str` is one diagnostic, pointing at the
DSL line where there is one; the cause stays attached for debugging.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from ..passes.bundle import Bundle, FileDiff
from ..passes.findings import Finding
from ..passes.manager import Step
from ..passes.merge import Conflict
from ..passes.pipeline import PIPELINE, get_pass
from ..passes.session import SessionFolder, text_hash

DSL_NAME = "kernel.dsl.py"          # the draft's name in messages and in the generated comments
REVIEWED = ("accepted", "edited", "unchanged")
ENGINES = ("rule", "llm")
BACKENDS = ("emulator", "cann")
CONFLICT_MARKERS = ("<<<<<<< ", ">>>>>>> ")


class LabError(Exception):
    """A problem the user can fix: `str(err)` is the whole message (one diagnostic, no traceback)."""


@dataclass(frozen=True)
class StepState:
    """One pass of the pipeline as the user reviews it: status plus the manager's `Step`."""

    step: Step
    status: str                  # pending | accepted | edited | failed | unchanged
    notes: tuple[str, ...] = ()

    spec = property(lambda self: self.step.spec)
    name = property(lambda self: self.step.spec.name)
    number = property(lambda self: self.step.spec.number)
    engine = property(lambda self: self.step.engine)
    seconds = property(lambda self: self.step.seconds)
    bundle = property(lambda self: self.step.bundle)
    previous = property(lambda self: self.step.previous)
    generated = property(lambda self: self.step.generated)
    edited = property(lambda self: self.step.edited)
    report = property(lambda self: self.step.report)   # LLM engine: model, attempts, tokens

    @property
    def findings(self) -> list[Finding]:
        return list(self.step.findings)

    @property
    def conflicts(self) -> tuple[Conflict, ...]:
        return () if self.status == "edited" else tuple(self.step.conflicts)

    @property
    def diffs(self) -> list[FileDiff]:
        return self.step.diffs

    @property
    def stat(self) -> str:
        return self.step.stat

    def __repr__(self) -> str:
        return f"<StepState pass {self.number} {self.name}: {self.status} {self.stat}>"


@dataclass
class CheckResult:
    """A compile-and-verify result, as recorded in `runs/<stamp>.json` of the session folder."""

    correct: bool
    message: str                      # the verdict's first line
    summary: str                      # verdict message plus one line per output
    detail: str = ""                  # emulator findings / compiler errors in the diagnostic format
    backend: str = "emulator"
    soc: str = ""
    max_abs_err: float | None = None
    max_rel_err: float | None = None
    status: str = ""                  # the emulator's: ok | findings | compile-error | crash | timeout | ...
    findings: list[dict] = field(default_factory=list)   # kind, message, file, line, dsl_line, block
    timings: dict = field(default_factory=dict)
    bundle_hash: str = ""
    current: bool = True              # False when the steps changed since this run
    path: str = ""                    # the run record

    @classmethod
    def from_record(cls, record: Mapping[str, Any], path: str = "") -> "CheckResult":
        run = record.get("run") or {}
        return cls(bool(record.get("correct")), str(record.get("message", "")),
                   str(record.get("summary") or record.get("message", "")), str(record.get("detail", "")),
                   str(record.get("backend", "emulator")), str(record.get("soc", "")),
                   _finite(record.get("max_abs_err")), _finite(record.get("max_rel_err")),
                   str(run.get("status", "")), list(run.get("findings") or []),
                   dict(record.get("timings") or {}), str(record.get("bundle_hash", "")), True, path)

    def __str__(self) -> str:
        return self.summary + (f"\n{self.detail}" if self.detail else "")

    def _repr_pretty_(self, p, cycle):
        p.text(str(self))


def _finite(v) -> float | None:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if f == f and abs(f) != float("inf") else None


def _bundle_hash(bundle: Bundle) -> str:
    return text_hash("".join(f"{p}\0{t}" for p, t in bundle.files.items()))


# A reference run costs a child Python with torch (about 2 s): keep the last few, keyed by
# the file's content and the overrides, so re-running a cell or compiling does not reload it.
_REFERENCES: dict[tuple, Any] = {}


def _load_reference(path: Path, overrides: Mapping[str, Any]):
    from ..reference import load_reference
    key = (text_hash(path.read_text(errors="replace")), json.dumps(dict(overrides), sort_keys=True, default=str))
    if key not in _REFERENCES:
        if len(_REFERENCES) >= 8:
            _REFERENCES.pop(next(iter(_REFERENCES)))
        _REFERENCES[key] = load_reference(path, overrides=dict(overrides) or None)
    return _REFERENCES[key]


class LabSession:
    """The pipeline of one kernel in its session folder; see the module docstring.

    Open with `LabSession.open(folder, dsl, reference=..., soc=...)` (creates or resumes) or
    `LabSession.resume(folder)` (everything from the folder). Mutators return the session, so a
    notebook cell ending in `lab.accept("host")` shows the updated pipeline.
    """

    def __init__(self, folder: str | Path):
        self.folder = SessionFolder(folder)
        self.name = self.folder.path.name
        self.dsl = ""
        self.soc = ""
        self.engine = "rule"
        self.until: str | None = None
        self.overrides: dict[str, Any] = {}
        self.program = None
        self.result: CheckResult | None = None
        self.notes: list[str] = []          # short facts to show beside the steps (stale edits, ...)
        self.timings: dict[str, float] = {}
        self._steps: list[StepState] = []
        self._listeners: list[Callable[["LabSession"], None]] = []

    # ----------------------------------------------------------------------------- opening
    @classmethod
    def open(cls, folder: str | Path, dsl: str | None = None, *, reference: str | Path | None = None,
             soc: str | None = None, engine: str | None = None, until: str | None = None,
             overrides: Mapping[str, Any] | None = None) -> "LabSession":
        """Lower `dsl` into `folder` (created, or resumed with its edits and acceptances).

        `dsl=None` takes the draft already in the folder. `reference` is copied into the folder;
        without it the folder's copy is used. Settings left as None come from the folder.
        """
        lab = cls(folder)
        manifest = lab._manifest()
        saved = manifest.get("notebook", {})
        if dsl is None or not dsl.strip():
            if not lab.folder.dsl_path().is_file():
                raise LabError(f"error: {lab.folder.path} holds no DSL draft yet\n"
                               "  = help: write the DSL draft in the cell (or pass dsl= to LabSession.open)")
            dsl = lab.folder.dsl_path().read_text()
        lab.dsl = dsl if dsl.endswith("\n") else dsl + "\n"
        lab.engine = engine or saved.get("engine") or "rule"
        lab.until = until if until is not None else saved.get("until")
        lab.overrides = dict(overrides if overrides is not None else saved.get("overrides") or {})
        lab.soc = _check_soc(soc or manifest.get("soc"))
        if lab.engine not in ENGINES:
            raise LabError(f"error: unknown engine `{lab.engine}`\n  = help: use --engine rule or --engine llm")
        if lab.until is not None:
            try:
                lab.until = get_pass(lab.until).name
            except ValueError as exc:
                raise LabError(f"error: {exc}") from None
        source = None
        if reference is not None:
            source = Path(reference)
            if not source.is_file():
                raise LabError(f"error: the reference {source} does not exist\n"
                               "  = help: give --ref the path of a KernelBench-style file (Model, get_inputs, get_init_inputs)")
        lab._lower(reference=source)
        return lab

    @classmethod
    def resume(cls, folder: str | Path) -> "LabSession":
        """The session as its folder holds it (draft, SoC, edits, acceptances, last verdict)."""
        if not SessionFolder(folder).exists():
            raise LabError(f"error: {folder} is not a session folder (no ascendcraft.json)\n"
                           "  = help: create it with %%ascendcraft NAME or `ascendcraft lower K.dsl.py -o DIR`")
        return cls.open(folder)

    # ----------------------------------------------------------------------------- queries
    @property
    def steps(self) -> list[StepState]:
        return list(self._steps)

    def step(self, which: str | int | StepState) -> StepState:
        """A step by pass name (`"init"`), number (2) or StepState."""
        name = which.name if isinstance(which, StepState) else which
        try:
            spec = get_pass(name)
        except ValueError as exc:
            raise LabError(f"error: {exc}") from None
        for s in self._steps:
            if s.name == spec.name:
                return s
        raise LabError(f"error: pass {spec.number} ({spec.name}) has not run: the session stops after `{self.until}`\n"
                       "  = help: open it without --until to run every pass")

    @property
    def reference(self) -> Path | None:
        p = self.folder.path / "reference.py"
        return p if p.is_file() else None

    @property
    def final(self) -> Bundle | None:
        """The AscendC project after pass 4, or None when the session stops earlier."""
        return self._steps[-1].bundle if len(self._steps) == len(PIPELINE) else None

    @property
    def ready(self) -> bool:
        """Whether compile & verify is allowed: all passes ran and each is accepted or edited."""
        return len(self._steps) == len(PIPELINE) and all(s.status in REVIEWED for s in self._steps)

    @property
    def conflicts(self) -> list[Conflict]:
        return [c for s in self._steps for c in s.conflicts]

    @property
    def tiling(self) -> dict | None:
        """The host pass's tiling explained for the reference's shapes (UB use per buffer), if known."""
        return self._manifest().get("tiling") if self.reference is not None else None

    def diff(self, which, path: str | None = None) -> str:
        """The unified diff a step made (every file it changed, or only `path`)."""
        s = self.step(which)
        texts = [d.text for d in s.diffs if path is None or d.path == path]
        return "\n".join(texts) if texts else f"pass {s.number} ({s.name}) did not change {path or 'any file'}"

    def text(self, path: str, which=None) -> str:
        """A file of the project as it stands after a step (default: the last step that ran)."""
        s = self.step(which) if which is not None else self._steps[-1]
        if path not in s.bundle.files:
            raise LabError(f"error: no file {path} after pass {s.number} ({s.name})\n"
                           f"  = help: its files are {', '.join(s.bundle.files)}")
        return s.bundle.files[path]

    def tiling_text(self) -> str:
        from ..passes.tiling_report import TilingReport
        t = self.tiling
        return TilingReport(**t).text() if t else ""

    def summary(self) -> str:
        """The plain-text view: one line per pass, findings, conflicts, notes and the verdict."""
        lines = [f"ascendcraft session `{self.name}` in {self.folder.path} ({self.soc}, engine {self.engine})"]
        for s in self._steps:
            lines.append(f"  pass {s.number} {s.name:<8} {s.status:<9} {s.stat:>11}  {s.seconds * 1000:6.1f} ms  {s.spec.reason}")
            for f in s.findings:
                lines.append("    " + f.render(DSL_NAME, self.dsl).replace("\n", "\n    "))
            for c in s.conflicts:
                lines.append(f"    conflict in {c.path}:{c.line}: your edit and the regenerated text overlap; "
                             f"both are kept between markers — edit pass {s.number} to resolve")
            for n in s.notes:
                lines.append(f"    note: {n}")
        for spec in PIPELINE[len(self._steps):]:
            lines.append(f"  pass {spec.number} {spec.name:<8} not run (--until {self.until})")
        lines.extend(f"  note: {n}" for n in self.notes)
        if self.tiling:
            lines.append(self.tiling_text())
        if self.result is not None:
            lines.append(("" if self.result.current else "(stale: the steps changed since) ") + str(self.result))
        elif self.ready:
            lines.append("every step is reviewed: compile & verify with lab.compile_and_verify()")
        elif self._steps:
            todo = [s.name for s in self._steps if s.status not in REVIEWED]
            if todo:
                lines.append(f"to review: {', '.join(todo)} (accept or edit each, then compile & verify)")
        return "\n".join(lines)

    def __repr__(self) -> str:
        states = ", ".join(f"{s.name}={s.status}" for s in self._steps)
        return f"<LabSession {self.name} at {self.folder.path}: {states}>"

    def _repr_pretty_(self, p, cycle):
        p.text(self.summary())

    def _repr_mimebundle_(self, include=None, exclude=None):
        from .display import mimebundle        # the UI lives in display.py; this is only the hook
        return mimebundle(self)

    # ----------------------------------------------------------------------------- review
    def accept(self, which) -> "LabSession":
        """Mark a step reviewed as generated. A failed step cannot be accepted: fix it first."""
        s = self.step(which)
        if s.status == "failed":
            raise LabError(f"error: pass {s.number} ({s.name}) failed and cannot be accepted\n"
                           f"  = help: {self._fix_hint(s)}")
        if s.status in ("pending", "accepted"):
            self._set_status(s.name, "accepted")
        return self._changed()

    def accept_all(self) -> "LabSession":
        """Accept every pending step (as `ascendcraft lower` does); failed steps stay failed."""
        for s in self._steps:
            if s.status == "pending":
                self._set_status(s.name, "accepted", save=False)
        self._save_statuses()
        return self._changed()

    def edit(self, which, text_or_files: str | Mapping[str, str], path: str | None = None) -> "LabSession":
        """Replace a step's output with your text; later steps are re-derived and merged with it.

        `text_or_files` is the new text of one file (`path`, needed when the step changed
        several files) or a mapping {path: text}. The edit is saved in the session folder;
        overlaps with regenerated text become conflicts on the later step (see `conflicts`).
        """
        s = self.step(which)
        current = s.bundle
        if isinstance(text_or_files, str):
            if path is None:
                changed = [d.path for d in s.diffs]
                if len(changed) != 1:
                    raise LabError(f"error: pass {s.number} ({s.name}) changed {len(changed)} files: name the one you edit\n"
                                   f"  = help: lab.edit({s.name!r}, text, path=...) with one of: {', '.join(current.files)}")
                path = changed[0]
            files = {path: text_or_files}
        else:
            files = dict(text_or_files)
        unknown = [p for p in files if p not in current.files]
        if unknown:
            raise LabError(f"error: pass {s.number} ({s.name}) has no file {unknown[0]}\n"
                           f"  = help: its files are {', '.join(current.files)}")
        files = {p: t if t.endswith("\n") or not t else t + "\n" for p, t in files.items()}
        if all(current.files[p] == t for p, t in files.items()):
            raise LabError(f"error: the edit does not change pass {s.number} ({s.name})")
        edited = current.with_files(files)
        self.folder.save_edit(s.name, edited)
        manifest = self._manifest()
        nb = manifest.setdefault("notebook", {})
        nb.setdefault("edits", {})[s.name] = {"dsl_hash": text_hash(self.dsl), "at": time.time()}
        self.folder.save_manifest(manifest)
        self._lower()
        return self._changed()

    def undo(self, which) -> "LabSession":
        """Drop a step's edit (later steps are re-derived without it), or withdraw its acceptance."""
        s = self.step(which)
        if s.status == "edited" or s.edited:
            self._drop_edit(s.name)
            self._lower()
        elif s.status == "accepted":
            self._set_status(s.name, "pending")
        else:
            raise LabError(f"error: pass {s.number} ({s.name}) is {s.status}: there is no edit or acceptance to undo")
        return self._changed()

    def regenerate(self, which) -> "LabSession":
        """Run the pass again from the previous step, dropping any edit of it; review it anew."""
        s = self.step(which)
        if s.edited:
            self._drop_edit(s.name)
        self._set_status(s.name, "pending")
        before = _bundle_hash(s.generated)
        self._lower()
        after = self.step(s.name)
        if self.engine == "rule" and _bundle_hash(after.generated) == before:
            self.notes.append(f"pass {s.number} ({s.name}) regenerated: the rule engine is deterministic, "
                              "so its output is the same")
        return self._changed()

    # ----------------------------------------------------------------------------- verify
    def compile_and_verify(self, backend: str = "emulator", *, progress: Callable[[str], None] | None = None) -> CheckResult:
        """Compile the final AscendC project, run it and compare with the PyTorch reference."""
        if backend == "cann":
            raise LabError("error: the cann backend is not built yet (it needs a CANN toolkit, an NPU and torch_npu)\n"
                           "  = help: use backend=\"emulator\"")
        if backend not in BACKENDS:
            raise LabError(f"error: unknown backend `{backend}`\n  = help: use emulator (or cann on an NPU host)")
        if len(self._steps) < len(PIPELINE):
            raise LabError(f"error: the session stops after pass `{self.until}`: there is no AscendC project to compile yet\n"
                           "  = help: open it without --until so every pass runs")
        todo = [s for s in self._steps if s.status not in REVIEWED]
        if todo:
            listing = ", ".join(f"{s.name} is {s.status}" for s in todo)
            raise LabError(f"error: compile & verify needs every step accepted or edited ({listing})\n"
                           "  = help: review each step (accept or edit it), or pass --check to accept them all")
        if self.reference is None:
            raise LabError("error: this session has no PyTorch reference to verify against\n"
                           "  = help: give it one with --ref REF.py (or reference= in LabSession.open)")
        from ..dsl.errors import DslError
        from ..passes.verify import check_emulator, render_run
        from ..reference import ReferenceError
        if progress:
            progress("compiling the AscendC project with g++ against the emulator and running it "
                     "(a kernel's first build takes a few seconds; later runs are cached)")
        t0 = time.perf_counter()
        try:
            ref = _load_reference(self.reference, self.overrides)
            t1 = time.perf_counter()
            verdict, run = check_emulator(self.program, self.final, ref, soc=self.soc)
        except DslError as exc:
            raise LabError(exc.with_source(DSL_NAME, self.dsl).render()) from exc
        except ReferenceError as exc:
            raise LabError(exc.render()) from exc
        except (OSError, ValueError) as exc:
            raise LabError(f"error: compile & verify failed: {exc}") from exc
        seconds = time.perf_counter() - t0
        detail = render_run(run, self.program)
        timings = {"reference_s": round(t1 - t0, 3), "verify_s": round(seconds, 3),
                   **{k: v for k, v in run.timings.items() if isinstance(v, (int, float, bool))}}
        record = {"backend": backend, "soc": verdict.soc, "correct": verdict.correct, "message": verdict.message,
                  "max_abs_err": _finite(verdict.max_abs_err), "max_rel_err": _finite(verdict.max_rel_err),
                  "run": _jsonable(run.to_json()), "overrides": _jsonable(self.overrides),
                  "summary": verdict.summary(), "detail": detail, "timings": timings,
                  "bundle_hash": _bundle_hash(self.final), "dsl_hash": text_hash(self.dsl), "source": "notebook"}
        path = self.folder.record_run(record)
        self.result = CheckResult.from_record(record, str(path))
        self.timings.update(timings)
        self._changed()
        return self.result

    # ----------------------------------------------------------------------------- internals
    def _manifest(self) -> dict:
        try:
            return self.folder.manifest()
        except ValueError as exc:
            raise LabError(f"error: {exc}\n  = help: delete the folder to start over") from None

    def _lower(self, reference: Path | None = None) -> None:
        """Parse, bind to the reference, lower with the folder's edits; restore the folder on failure."""
        from ..dsl.check import bind
        from ..dsl.errors import DslError
        from ..passes.lower import load_dsl, lower_session
        from ..reference import ReferenceError
        dsl_file, ref_file = self.folder.dsl_path(), self.folder.path / "reference.py"
        saved = {p: (p.read_bytes() if p.is_file() else None) for p in (dsl_file, ref_file)}
        ref_source = reference if reference is not None else (ref_file if ref_file.is_file() else None)
        t0 = time.perf_counter()
        try:
            program = load_dsl(self.dsl, DSL_NAME, self.soc)
            shapes = scalars = None
            if ref_source is not None:
                ref = _load_reference(ref_source, self.overrides)
                self.timings["reference_s"] = round(time.perf_counter() - t0, 3)
                inputs, _ = bind(program, ref)
                shapes = {n: tuple(v.shape) for n, v in inputs.items() if hasattr(v, "shape")}
                scalars = {p.name: inputs[p.name] for p in program.scalars}
                # With shapes the verifier also checks the UB budget, pointing at the DSL line.
                program = load_dsl(self.dsl, DSL_NAME, self.soc, shapes=shapes, scalars=scalars)
            t1 = time.perf_counter()
            result = lower_session(self.dsl, self.folder.path, soc=self.soc, until=self.until, engine=self.engine,
                                   reference=reference, shapes=shapes, scalars=scalars, dsl_name=DSL_NAME)
        except Exception as exc:
            for p, data in saved.items():       # the folder keeps its last consistent state
                if data is None:
                    p.unlink(missing_ok=True)
                elif not p.is_file() or p.read_bytes() != data:
                    p.write_bytes(data)
            if isinstance(exc, DslError):
                raise LabError(exc.with_source(DSL_NAME, self.dsl).render()) from exc
            if isinstance(exc, ReferenceError):
                raise LabError(exc.render()) from exc
            if isinstance(exc, ValueError):
                from ..dsl.errors import format_diagnostic
                raise LabError(format_diagnostic(DSL_NAME, self.dsl, getattr(exc, "span", None), str(exc))) from exc
            raise
        self.timings["lower_s"] = round(time.perf_counter() - t1, 3)
        self.program = program
        manifest = result.manifest
        nb = manifest.setdefault("notebook", {})
        nb.update({"engine": self.engine, "until": self.until, "overrides": _jsonable(self.overrides)})
        edits_meta = nb.setdefault("edits", {})
        for name in list(edits_meta):
            if name not in {s.spec.name for s in result.steps if s.edited}:
                edits_meta.pop(name)
        self.notes = []
        states = []
        for step in result.steps:
            entry = manifest["steps"][step.spec.name]
            notes = []
            if step.edited and step.conflicts and entry["status"] == "failed" and not _has_markers(step.bundle) \
                    and not any(f.severity == "error" for f in step.findings):
                # The user's edit of this step supersedes the merge whose conflicts it resolved.
                entry["status"] = "edited"
                entry["conflicts"] = []
            if step.edited:
                meta = edits_meta.get(step.spec.name, {})
                if meta.get("dsl_hash") and meta["dsl_hash"] != text_hash(self.dsl):
                    notes.append("this edit was made for an earlier DSL draft and replaces the regenerated step; "
                                 "undo it to take the new output")
                later_edits = [n for n, m in edits_meta.items()
                               if get_pass(n).number < step.spec.number and m.get("at", 0) > meta.get("at", 0)]
                if later_edits:
                    notes.append(f"your later edit of {', '.join(later_edits)} is not in this edited step "
                                 "(an edit replaces the step); undo this edit to re-derive it")
            states.append(StepState(step, entry["status"], tuple(notes)))
        self.folder.save_manifest(manifest)
        self._steps = states
        self.timings["passes_s"] = round(sum(s.seconds for s in result.steps), 4)
        self.result = self._last_result()

    def _last_result(self) -> CheckResult | None:
        runs = sorted((self.folder.path / "runs").glob("*.json")) if (self.folder.path / "runs").is_dir() else []
        final = self.final
        for path in reversed(runs):
            try:
                record = json.loads(path.read_text())
            except (OSError, json.JSONDecodeError):
                continue
            if record.get("bundle_hash"):
                result = CheckResult.from_record(record, str(path))
                result.current = final is not None and record["bundle_hash"] == _bundle_hash(final)
                return result
        return None

    def _set_status(self, name: str, status: str, save: bool = True) -> None:
        self._steps = [StepState(s.step, status, s.notes) if s.name == name else s for s in self._steps]
        if save:
            self._save_statuses()

    def _save_statuses(self) -> None:
        manifest = self._manifest()
        for s in self._steps:
            if s.name in manifest.get("steps", {}):
                manifest["steps"][s.name]["status"] = s.status
        self.folder.save_manifest(manifest)
        if self.result is not None and not self.ready:
            self.result.current = False

    def _drop_edit(self, name: str) -> None:
        self.folder.drop_edit(name)
        manifest = self._manifest()
        manifest.get("notebook", {}).get("edits", {}).pop(name, None)
        self.folder.save_manifest(manifest)

    def _fix_hint(self, s: StepState) -> str:
        if s.conflicts:
            c = s.conflicts[0]
            return (f"resolve the conflict at {c.path}:{c.line}: lab.edit({s.name!r}, ...) with the markers removed, "
                    f"or undo the earlier edit")
        return "change the DSL draft, or edit the step so its checks pass"

    def on_change(self, callback: Callable[["LabSession"], None]) -> None:
        """Call `callback(session)` after every change (views refresh themselves with it)."""
        self._listeners.append(callback)

    def _changed(self) -> "LabSession":
        for fn in list(self._listeners):
            fn(self)
        return self


def _has_markers(bundle: Bundle) -> bool:
    return any(line.startswith(CONFLICT_MARKERS) for text in bundle.files.values() for line in text.splitlines())


def _check_soc(name: str | None) -> str:
    from ..soc import get_soc
    try:
        return get_soc(name).name
    except ValueError as exc:
        raise LabError(f"error: {exc}\n  = help: pass --soc with one of the known names") from None


def _jsonable(value):
    """Plain JSON (no NaN/inf, no numpy scalars) for records a browser or another tool reads."""
    return json.loads(json.dumps(value, default=_plain), parse_constant=lambda _: None)


def _plain(o):
    if hasattr(o, "tolist"):
        return o.tolist()
    if hasattr(o, "item"):
        return o.item()
    return str(o)

