"""`Session`: one kernel's session folder, and the one driver of it.

The CLI (`ascendcraft lower / check`), the notebook (`%%ascendcraft`, the widgets, the
JupyterLab extension) and the demo all go through this class, so they cannot disagree about
a folder: it binds the reference (its shapes explain the tiling and size the UB check),
parses the draft once, runs the four passes with the folder's edits (three-way merged),
decides each step's state, writes every stage, the final project and the manifest, and
verifies the project on the emulator or an NPU, recording each run.

A step is `pending`, `accepted`, `edited`, `failed` or `unchanged`. Everything lives in the
folder (manifest, stages, edits, runs), so `Session.resume(folder)` in a fresh process shows
the same steps and verdict. Every failure a user can cause is a `SessionError` whose `str` is
one diagnostic, pointing at the DSL line where there is one; the cause stays attached.
"""
from __future__ import annotations

import ast
import contextlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from ..backends.cann.detect import refuse_reason
from ..backends.cann.run import check_cann
from ..backends.emulator.verify import check_emulator, compile_errors, render_run
from ..drafter.trace import trace_reference
from ..dsl import ir
from ..dsl.errors import DslError, format_diagnostic
from ..dsl.parser import parse
from ..dsl.verifier import verify
from ..engines.llm.client import LOG_FILE_NAME
from ..engines.llm.engine import engine_from_environment
from ..engines.rule import RuleEngine, render
from ..passes.bundle import Bundle, FileDiff
from ..passes.findings import Finding
from ..passes.manager import Step, run_pipeline
from ..passes.merge import Conflict
from ..passes.pipeline import PIPELINE, get_pass
from ..passes.spec import LowerOptions
from ..passes.tiling_report import TilingReport, tiling_candidates, tiling_report
from ..dsl.generic import VariantMismatch, instantiate, variant_name
from ..perf import estimate_eager, estimate_trace
from ..perf.report import Profile
from ..procs import scratch_dir
from ..reference import ReferenceError, bind, load_cases, load_reference, reference_format, sidecars, variant_for
from ..soc import get_soc
from ..atomic import NotText, read_text
from ..passes.variants import variant_files
from .cases import CaseReport, check_cases
from .ranking import rank_tilings
from .folder import LOCK_FILE, PROJECT, SOURCEMAP, FolderBusy, SessionFolder, files_hash, text_hash

DSL_NAME = "kernel.dsl.py"          # a draft typed in a notebook cell: its name in messages and generated comments
REFERENCE_FILES = "reference_files"  # the files the reference reads (its JSON cases), under their own names
REVIEWED = ("accepted", "edited", "unchanged")
ENGINES = ("rule", "llm")
BACKENDS = ("emulator", "cann")
CONFLICT_MARKERS = ("<<<<<<< ", ">>>>>>> ")


class SessionError(Exception):
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
    cases: dict = field(default_factory=dict)   # every input set's result (session/cases.py CaseReport.to_json)

    @classmethod
    def from_record(cls, record: Mapping[str, Any], path: str = "") -> "CheckResult":
        run = record.get("run") or {}
        return cls(bool(record.get("correct")), str(record.get("message", "")),
                   str(record.get("summary") or record.get("message", "")), str(record.get("detail", "")),
                   str(record.get("backend", "emulator")), str(record.get("soc", "")),
                   _finite(record.get("max_abs_err")), _finite(record.get("max_rel_err")),
                   str(run.get("status", "")), list(run.get("findings") or []),
                   dict(record.get("timings") or {}), str(record.get("bundle_hash", "")), True, path,
                   dict(record.get("cases") or {}))

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


def bundle_hash(bundle: Bundle) -> str:
    return text_hash("".join(f"{p}\0{t}" for p, t in bundle.files.items()))


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


# A reference run costs a child Python with torch (about 2 s): keep the last few, keyed by
# the file's content and the overrides, so re-running a cell or compiling does not reload it.
_REFERENCES: dict[tuple, Any] = {}


def _reference_key(path: Path, overrides, seed, as_file, kind: str) -> tuple:
    """The reference's text and the files it reads: a changed JSON case file is another reference."""
    read = sorted(f for f in Path(as_file).parent.iterdir() if f.is_file()) if as_file and Path(as_file).parent.is_dir() \
        else sidecars(path)
    texts = [Path(path).read_text(errors="replace")] + [f"{f.name}\0{f.read_text(errors='replace')}" for f in read]
    return (kind, text_hash("\0".join(texts)), json.dumps(dict(overrides or {}), sort_keys=True, default=str), seed,
            str(as_file or ""))


def _remember(key, make):
    if key not in _REFERENCES:
        if len(_REFERENCES) >= 8:
            _REFERENCES.pop(next(iter(_REFERENCES)))
        _REFERENCES[key] = make()
    return _REFERENCES[key]


def cached_reference(path: Path, overrides: Mapping[str, Any] | None = None, seed: int = 0, as_file=None):
    """One input set (an NPUKernelBench reference: its first case), kept for re-runs of the same files."""
    return _remember(_reference_key(path, overrides, seed, as_file, "run"),
                     lambda: load_reference(path, overrides=dict(overrides or {}) or None, seed=seed, as_file=as_file))


def cached_cases(path: Path, overrides: Mapping[str, Any] | None = None, as_file=None):
    """Every case of an NPUKernelBench reference (a CaseSet), kept like cached_reference."""
    return _remember(_reference_key(path, overrides, 0, as_file, "cases"),
                     lambda: load_cases(path, overrides=dict(overrides or {}) or None, as_file=as_file))


def parse_override(text: str) -> tuple[str, Any]:
    """`NAME=VALUE` (`--override dim=1003`): the value as a Python literal, else as the text."""
    if "=" not in text:
        raise ValueError(f"override {text!r} is not NAME=VALUE")
    k, v = text.split("=", 1)
    try:
        value = ast.literal_eval(v)
    except (ValueError, SyntaxError):
        value = v
    return k.strip(), value


def variant_of(program: ir.Program, ref) -> ir.Program:
    """The variant of a dtype-generic kernel that serves this input set (the program itself when plain)."""
    try:
        return variant_for(program, ref, "the reference's first input set")
    except VariantMismatch as exc:
        raise SessionError(f"error: {exc}\n  = help: add its dtype to the kernel's @kernel(...) type variable") from None


def bind_shapes(program: ir.Program, ref) -> tuple[dict, dict]:
    """(shapes by tensor param, scalars by scalar param) of a reference run bound to the kernel."""
    inputs, _ = bind(program, ref)
    shapes = {n: tuple(v.shape) for n, v in inputs.items() if hasattr(v, "shape")}
    return shapes, {p.name: inputs[p.name] for p in program.scalars}


class Session:
    """The pipeline of one kernel in its session folder; see the module docstring.

    Open with `Session.open(folder, dsl, reference=..., soc=...)` (creates or resumes) or
    `Session.resume(folder)` (everything from the folder). Mutators return the session, so a
    notebook cell ending in `lab.accept("host")` shows the updated pipeline.
    """

    def __init__(self, folder: str | Path):
        self.folder = SessionFolder(folder)
        self.name = self.folder.path.name
        self.dsl = ""
        self.dsl_name = DSL_NAME
        self.soc = ""
        self.engine = "rule"
        self.until: str | None = None
        self.overrides: dict[str, Any] = {}
        self.program: ir.Program | None = None
        self.result: CheckResult | None = None
        self.notes: list[str] = []          # short facts to show beside the steps (stale edits, ...)
        self.timings: dict[str, float] = {}
        self.variants: dict[str, Bundle] = {}   # a generic kernel's other variants (ascendc/variants/<dtype>/)
        self._steps: list[StepState] = []
        self._listeners: list[Callable[["Session"], None]] = []

    # ----------------------------------------------------------------------------- opening
    @classmethod
    def open(cls, folder: str | Path, dsl: str | None = None, *, reference: str | Path | None = None,
             soc: str | None = None, engine: str | None = None, until: str | None = None,
             overrides: Mapping[str, Any] | None = None, dsl_name: str | None = None,
             accept_all: bool = False, adopt_edits: bool = False) -> "Session":
        """Lower `dsl` into `folder` (created, or resumed with its edits and acceptances).

        `dsl=None` takes the draft already in the folder. `reference` is copied into the folder;
        without it the folder's copy is used. `dsl_name` is the name the draft is known by in
        messages and generated comments (default: the folder's record, else `kernel.dsl.py`).
        Settings left as None come from the folder. `accept_all` accepts every step that does
        not fail (as the command line does). Generated files changed by hand since the last
        lowering are refused (they would be overwritten), unless `adopt_edits` makes each an
        edit of the step it belongs to (`ascendc/` is the last step's output).
        """
        lab = cls(folder)
        lab._check_folder()
        manifest = lab._manifest()
        saved = manifest.get("notebook", {})
        if dsl is None or not dsl.strip():
            if not lab.folder.dsl_path().is_file():
                raise SessionError(f"error: {lab.folder.path} holds no DSL draft yet (no kernel.dsl.py)\n"
                                   "  = help: write the DSL draft in the cell (or pass dsl= to Session.open), "
                                   "or lower it again: `ascendcraft lower K.dsl.py -o DIR`")
            try:
                dsl = read_text(lab.folder.dsl_path(), "the session's DSL draft")
            except (OSError, NotText) as exc:
                raise SessionError(f"error: {exc}") from None
        lab.dsl = dsl if dsl.endswith("\n") else dsl + "\n"
        lab.dsl_name = dsl_name or manifest.get("dsl_name") or DSL_NAME
        lab.engine = engine or saved.get("engine") or "rule"
        lab.until = until if until is not None else saved.get("until")
        lab.overrides = dict(overrides if overrides is not None else saved.get("overrides") or {})
        lab.soc = _check_soc(soc) if soc else _check_soc(manifest.get("soc"), lab.folder.manifest_path)
        if lab.engine not in ENGINES:
            raise SessionError(f"error: unknown engine `{lab.engine}`\n  = help: use --engine rule or --engine llm")
        if lab.until is not None:
            try:
                lab.until = get_pass(lab.until).name
            except ValueError as exc:
                raise SessionError(f"error: {exc}") from None
        source = None
        if reference is not None:
            source = Path(reference)
            if not source.is_file():
                raise SessionError(f"error: the reference {source} does not exist\n"
                                   "  = help: give --ref the path of a KernelBench-style file (Model, get_inputs, get_init_inputs)")
        lab._lower(reference=source, accept_all=accept_all, adopt=adopt_edits)
        return lab

    def _check_empty(self) -> None:
        """A new session goes only into an empty folder (asked again under the lock: another
        process may be making a session there right now)."""
        path = self.folder.path
        if self.folder.exists():
            return
        foreign = self.folder.foreign_files(ours=(LOG_FILE_NAME, "runs"))
        if foreign:
            shown = ", ".join(foreign[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3 else "")
            raise SessionError(f"error: {path} is not a session folder and is not empty ({shown})\n"
                               "  = help: a session writes stages/, ascendc/ and its manifest: give an empty or new "
                               f"folder, e.g. -o {path / 'SESSION'}")

    def _check_folder(self) -> None:
        """Refuse, before any work, a folder this session cannot safely live in."""
        path = self.folder.path
        if path.exists() and not path.is_dir():
            raise SessionError(f"error: {path} is a file, not a session folder\n"
                               "  = help: give -o a folder (it is created when missing)")
        if not path.is_dir():
            return
        if not (path / LOCK_FILE).exists():     # else another process may be writing it: asked under the lock
            self._check_empty()
        blocked = self.folder.unwritable()
        if blocked is not None:
            raise SessionError(f"error: the session folder {path} is read-only ({blocked} cannot be written)\n"
                               "  = help: every lowering and check records its result there: make it writable "
                               "(chmod -R u+w) or copy the session somewhere writable")

    @classmethod
    def resume(cls, folder: str | Path) -> "Session":
        """The session as its folder holds it (draft, SoC, edits, acceptances, last verdict)."""
        if not SessionFolder(folder).exists():
            raise SessionError(f"error: {folder} is not a session folder (no ascendcraft.json)\n"
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
            raise SessionError(f"error: {exc}") from None
        for s in self._steps:
            if s.name == spec.name:
                return s
        raise SessionError(f"error: pass {spec.number} ({spec.name}) has not run: the session stops after `{self.until}`\n"
                           "  = help: open it without --until to run every pass")

    def _reference_as_file(self) -> str | None:
        """Where the folder's reference.py believes it lives: beside the copies of the files it reads."""
        name = self._manifest().get("reference_name")
        return str(self.folder.path / REFERENCE_FILES / name) if name else None

    @property
    def reference(self) -> Path | None:
        p = self.folder.path / "reference.py"
        return p if p.is_file() else None

    @property
    def final(self) -> Bundle | None:
        """The AscendC project after pass 4, or None when the session stops earlier."""
        return self._steps[-1].bundle if len(self._steps) == len(PIPELINE) else None

    @property
    def project_written(self) -> bool:
        """Whether `ascendc/` holds the project: every pass ran and none failed."""
        return self.final is not None and not any(s.status == "failed" for s in self._steps)

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
            raise SessionError(f"error: no file {path} after pass {s.number} ({s.name})\n"
                               f"  = help: its files are {', '.join(s.bundle.files)}")
        return s.bundle.files[path]

    def tiling_text(self) -> str:
        t = self.tiling
        return TilingReport(**t).text() if t else ""

    def tiling_alternatives(self) -> list[str]:
        """The tiling explanation's candidates not taken and any ranking by the estimate, one a line."""
        t = self.tiling
        return TilingReport(**t).alternatives() if t else []

    def summary(self) -> str:
        """The plain-text view: one line per pass, findings, conflicts, notes and the verdict."""
        lines = [f"ascendcraft session `{self.name}` in {self.folder.path} ({self.soc}, engine {self.engine})"]
        for s in self._steps:
            lines.append(f"  pass {s.number} {s.name:<8} {s.status:<9} {s.stat:>11}  {s.seconds * 1000:6.1f} ms  {s.spec.reason}")
            for f in s.findings:
                lines.append("    " + f.render(self.dsl_name, self.dsl).replace("\n", "\n    "))
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
        if self.project_written:
            lines.append(f"AscendC project: {self.folder.path / 'ascendc'}")
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
        return f"<{type(self).__name__} {self.name} at {self.folder.path}: {states}>"

    def _repr_pretty_(self, p, cycle):
        p.text(self.summary())

    # ----------------------------------------------------------------------------- review
    def accept(self, which) -> "Session":
        """Mark a step reviewed as generated. A failed step cannot be accepted: fix it first."""
        s = self.step(which)
        if s.status == "failed":
            raise SessionError(f"error: pass {s.number} ({s.name}) failed and cannot be accepted\n"
                               f"  = help: {self._fix_hint(s)}")
        if s.status in ("pending", "accepted"):
            self._set_status(s.name, "accepted")
        return self._changed()

    def accept_all(self) -> "Session":
        """Accept every pending step (as `ascendcraft lower` does); failed steps stay failed."""
        for s in self._steps:
            if s.status == "pending":
                self._set_status(s.name, "accepted", save=False)
        self._save_statuses()
        return self._changed()

    def edit(self, which, text_or_files: str | Mapping[str, str], path: str | None = None) -> "Session":
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
                    raise SessionError(f"error: pass {s.number} ({s.name}) changed {len(changed)} files: name the one you edit\n"
                                       f"  = help: lab.edit({s.name!r}, text, path=...) with one of: {', '.join(current.files)}")
                path = changed[0]
            files = {path: text_or_files}
        else:
            files = dict(text_or_files)
        unknown = [p for p in files if p not in current.files]
        if unknown:
            raise SessionError(f"error: pass {s.number} ({s.name}) has no file {unknown[0]}\n"
                               f"  = help: its files are {', '.join(current.files)}")
        files = {p: t if t.endswith("\n") or not t else t + "\n" for p, t in files.items()}
        if all(current.files[p] == t for p, t in files.items()):
            raise SessionError(f"error: the edit does not change pass {s.number} ({s.name})")
        edited = current.with_files(files)
        with self._locked():
            self.folder.save_edit(s.name, edited)
            manifest = self._manifest()
            nb = manifest.setdefault("notebook", {})
            nb.setdefault("edits", {})[s.name] = {"dsl_hash": text_hash(self.dsl), "at": time.time()}
            self.folder.save_manifest(manifest)
            self._lower()
        return self._changed()

    def undo(self, which) -> "Session":
        """Drop a step's edit (later steps are re-derived without it), or withdraw its acceptance."""
        s = self.step(which)
        if s.status == "edited" or s.edited:
            self._drop_edit(s.name)
            self._lower()
        elif s.status == "accepted":
            self._set_status(s.name, "pending")
        else:
            raise SessionError(f"error: pass {s.number} ({s.name}) is {s.status}: there is no edit or acceptance to undo")
        return self._changed()

    def regenerate(self, which) -> "Session":
        """Run the pass again from the previous step, dropping any edit of it; review it anew."""
        s = self.step(which)
        if s.edited:
            self._drop_edit(s.name)
        self._set_status(s.name, "pending")
        before = bundle_hash(s.generated)
        self._lower()
        after = self.step(s.name)
        if self.engine == "rule" and bundle_hash(after.generated) == before:
            self.notes.append(f"pass {s.number} ({s.name}) regenerated: the rule engine is deterministic, "
                              "so its output is the same")
        return self._changed()

    def adopt_edits(self) -> "Session":
        """Make the hand edits of generated files (stages/NN-pass/, ascendc/) edits of their steps.

        `ascendc/` is the last step's output, so a change there becomes an edit of pass 4;
        the edit is kept in stages/NN-pass.edit/ and merged into every later lowering."""
        self._lower(adopt=True)
        return self._changed()

    # ----------------------------------------------------------------------------- verify
    def verify(self, backend: str = "emulator", *, reviewed: bool = True, seed: int = 0,
               overrides: Mapping[str, Any] | None = None, reference: str | Path | None = None,
               progress: Callable[[str], None] | None = None, npu_draws: str = "project") -> CheckResult:
        """Compile the final AscendC project, run it and compare with the PyTorch reference.

        `reviewed=False` verifies without asking for every step to be accepted (the CLI's
        `check`, which reviews nothing); `overrides` and `seed` pick the input set (default: the
        session's), `reference` another reference file; `npu_draws` how the cann backend draws its
        inputs (backends/cann/run.py DRAWS). Every run is recorded in runs/."""
        ref_path, overrides, files = self._runnable(backend, reviewed, reference, overrides)
        project = self._shipped_project(files)
        if progress:
            progress("compiling the AscendC project with g++ against the emulator and running it "
                     "(a kernel's first build takes a few seconds; later runs are cached)")
        t0 = time.perf_counter()
        as_file = None if reference is not None else self._reference_as_file()
        if reference_format(ref_path) == "NPUKernelBench":
            return self._verify_cases(ref_path, overrides, as_file, project, files, backend, t0, progress)
        try:
            ref = cached_reference(ref_path, overrides, seed, as_file=as_file)
            t1 = time.perf_counter()
            if backend == "cann":
                verdict, run = check_cann(self.program, project, ref, self.soc, seed=seed, draws=npu_draws)
                detail = ""
            else:
                verdict, run = check_emulator(self.program, project, ref, soc=self.soc)
                detail = render_run(run, self.program)
        except DslError as exc:
            raise SessionError(exc.with_source(self.dsl_name, self.dsl).render()) from exc
        except ReferenceError as exc:
            raise SessionError(exc.render()) from exc
        except (OSError, ValueError) as exc:
            raise SessionError(f"error: compile & verify failed: {exc}") from exc
        seconds = time.perf_counter() - t0
        timings = {"reference_s": round(t1 - t0, 3), "verify_s": round(seconds, 3),
                   **{k: v for k, v in run.timings.items() if isinstance(v, (int, float, bool))}}
        record = {"backend": backend, "soc": verdict.soc, "correct": verdict.correct, "message": verdict.message,
                  "max_abs_err": _finite(verdict.max_abs_err), "max_rel_err": _finite(verdict.max_rel_err),
                  "run": _jsonable(run.to_json()), "overrides": _jsonable(overrides), "seed": seed,
                  "summary": verdict.summary(), "detail": detail, "timings": timings,
                  "bundle_hash": bundle_hash(self.final), "dsl_hash": text_hash(self.dsl),
                  "project_hash": files_hash(files), "project_files": {p: text_hash(t) for p, t in files.items()}}
        path = self.folder.record_run(record)
        self.result = CheckResult.from_record(record, str(path))
        self.timings.update(timings)
        self._changed()
        return self.result

    def _verify_cases(self, ref_path: Path, overrides, as_file, project: Bundle, files, backend: str, t0: float,
                      progress) -> CheckResult:
        """Every case of an NPUKernelBench reference (session/cases.py): the variant the session
        lowered runs as shipped in ascendc/; a generic kernel's other variants are lowered by the
        rule engine from the same DSL. Correct only when every case is."""
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
        primary = variant_name(dict(self.program.binding))
        shipped = {primary: project}
        for name, bundle in self.variants.items():      # the other variants as they are on disk
            prefix = f"variants/{name}/"
            shipped[name] = Bundle({p[len(prefix):]: files[p] for p in bundle.files},
                                   {p[len(prefix):]: m for p, m in bundle.source_map.items()})
        report = check_cases(self.program, cases, soc=self.soc, bundles=shipped, progress=tick)
        seconds = time.perf_counter() - t0
        timings = {"reference_s": round(t1 - t0, 3), "verify_s": round(seconds, 3), "cases_s": round(report.seconds, 3)}
        errs = [c.max_abs_err for c in report.cases if c.max_abs_err is not None]
        rels = [c.max_rel_err for c in report.cases if c.max_rel_err is not None]
        record = {"backend": backend, "soc": get_soc(self.soc).name, "correct": report.correct,
                  "message": report.verdict(), "max_abs_err": _finite(max(errs, default=None)),
                  "max_rel_err": _finite(max(rels, default=None)), "run": {"status": "cases"},
                  "overrides": _jsonable(overrides), "seed": 0, "summary": report.summary(), "detail": "",
                  "timings": timings, "cases": report.to_json(),
                  "bundle_hash": bundle_hash(self.final), "dsl_hash": text_hash(self.dsl),
                  "project_hash": files_hash(files), "project_files": {p: text_hash(t) for p, t in files.items()}}
        path = self.folder.record_run(record)
        self.result = CheckResult.from_record(record, str(path))
        self.timings.update(timings)
        self._changed()
        return self.result

    def _runnable(self, backend: str, reviewed: bool, reference, overrides):
        """(reference path, overrides, project files on disk) when the session can run on `backend`;
        a SessionError saying what is missing otherwise (verify's and estimate's preconditions)."""
        if backend not in BACKENDS:
            raise SessionError(f"error: unknown backend `{backend}`\n  = help: use emulator (or cann on an NPU host)")
        if len(self._steps) < len(PIPELINE):
            raise SessionError(f"error: the session stops after pass `{self.until}`: there is no AscendC project to compile yet\n"
                               "  = help: open it without --until so every pass runs")
        failed = [s for s in self._steps if s.status == "failed"]
        if failed:
            s = failed[0]
            detail = "\n".join(f.render(self.dsl_name, self.dsl) for f in s.findings) or \
                "\n".join(f"conflict in {c.path}:{c.line}" for c in s.conflicts)
            raise SessionError(f"error: pass {s.number} ({s.name}) failed, so there is nothing to compile\n{detail}")
        todo = [s for s in self._steps if s.status not in REVIEWED]
        if reviewed and todo:
            listing = ", ".join(f"{s.name} is {s.status}" for s in todo)
            raise SessionError(f"error: compile & verify needs every step accepted or edited ({listing})\n"
                               "  = help: review each step (accept or edit it), or pass --check to accept them all")
        ref_path = Path(reference) if reference is not None else self.reference
        if ref_path is None:
            raise SessionError("error: this session has no PyTorch reference to verify against\n"
                               "  = help: give it one with --ref REF.py (or reference= in Session.open)")
        overrides = dict(self.overrides if overrides is None else overrides)
        if backend == "cann":
            reason = refuse_reason("run")
            if reason:
                raise SessionError(f"error: {reason}\n  = help: use the emulator backend on a machine without an NPU")
        blocked = self.folder.unwritable()
        if blocked is not None:
            raise SessionError(f"error: the session folder {self.folder.path} is read-only ({blocked} cannot be written)\n"
                               "  = help: every check records its result in runs/: make it writable or copy the session")
        with self._locked():            # what ships is what is on disk: verify exactly that
            files = self.folder.project_files()
        return ref_path, overrides, files

    def _shipped_project(self, files: Mapping[str, str]) -> Bundle:
        """`ascendc/` as a bundle (the steps' source map on it), refused when it is not what the steps made."""
        expected = {**self.final.files, **{p: t for v in self.variants.values() for p, t in v.files.items()}}
        changed = [f"{PROJECT}/{p}" for p, t in expected.items() if p in files and files[p] != t]
        if changed:
            raise SessionError(_hand_edit_message(self.folder, changed))
        missing = [f"{PROJECT}/{p}" for p in expected if p not in files]
        if missing:
            raise SessionError(f"error: {_listing(missing)} {'is' if len(missing) == 1 else 'are'} missing from the "
                               "project on disk, so it is not the project the steps made\n"
                               "  = help: lower again to restore it (`ascendcraft check DIR` does; in a notebook "
                               "lab.adopt_edits())")
        return self.final.with_files({p: t for p, t in files.items() if p not in expected})

    def compile_and_verify(self, backend: str = "emulator", *, progress: Callable[[str], None] | None = None) -> CheckResult:
        """The notebook's Compile & verify: every step must be reviewed first."""
        return self.verify(backend, progress=progress)

    def estimate(self, *, seed: int = 0, overrides: Mapping[str, Any] | None = None,
                 reference: str | Path | None = None, progress: Callable[[str], None] | None = None) -> Profile:
        """The ESTIMATED profile, offline: the project runs traced on the emulator (and must be
        correct), the pipe model turns the trace into a time per block and pipe, and the reference's
        traced graph gives an estimated eager time. Recorded in runs/ (backend `model`)."""
        ref_path, overrides, files = self._runnable("emulator", False, reference, overrides)
        project = self._shipped_project(files)
        if progress:
            progress("running the AscendC project traced on the emulator, then the pipe model")
        t0 = time.perf_counter()
        as_file = None if reference is not None else self._reference_as_file()
        cases = reference_format(ref_path) == "NPUKernelBench"
        notes = []
        try:
            ref = cached_reference(ref_path, overrides, seed, as_file=as_file)   # NPUKernelBench: its first case
            with scratch_dir("ascendcraft-trace-") as tmp:
                verdict, run = check_emulator(self.program, project, ref, soc=self.soc, trace=tmp / "run.trace")
                if not verdict.correct:
                    raise SessionError(f"error: the kernel is not verified, so its time means nothing: {verdict.message}\n"
                                       "  = help: `ascendcraft check` shows what is wrong; profile once it passes")
                launches = estimate_trace(tmp / "run.trace", self.soc)
            if cases:
                graph = None
                notes.append("estimated on the reference's first case; no eager estimate for an NPUKernelBench reference yet")
            else:
                graph = trace_reference(ref_path, overrides=overrides, seed=seed)
        except DslError as exc:
            raise SessionError(exc.with_source(self.dsl_name, self.dsl).render()) from exc
        except ReferenceError as exc:
            raise SessionError(exc.render()) from exc
        except (OSError, ValueError) as exc:
            raise SessionError(f"error: the estimate failed: {exc}") from exc
        if not launches:
            raise SessionError("error: the traced run launched no kernel, so there is nothing to estimate")
        profile = Profile(launches[-1], estimate_eager(graph, self.soc) if graph else None, self.program.kernel.name, notes)
        self.folder.record_run({"backend": "model", "action": "profile", "soc": self.soc, "estimate": True,
                                "profile": _jsonable(profile.to_dict()), "summary": profile.text().splitlines()[1].strip(),
                                "seconds": round(time.perf_counter() - t0, 3), "estimated_bundle": bundle_hash(self.final)})
        return profile

    def rank_tiling(self, *, seed: int = 0, progress: Callable[[str], None] | None = None) -> list[dict]:
        """Rank the tiling candidates (tile lengths x buffers per queue, `tiling_candidates`) by the
        ESTIMATED kernel time: each runs traced and verified on the emulator on the reference's
        inputs. Opt-in (`ascendcraft lower --rank-tiling`, `lab.rank_tiling()`): a few emulator runs.
        The ranking joins the tiling explanation until the next lowering; the project is unchanged."""
        ref_path, overrides, files = self._runnable("emulator", False, None, None)
        project = self._shipped_project(files)
        as_file = self._reference_as_file()
        try:
            ref = cached_reference(ref_path, overrides, seed, as_file=as_file)
            # a generic kernel's UB plan in this input set's dtypes (as the lowering binds it)
            variant = verify(variant_of(self.program, ref), self.soc) if self.program.generic else self.program
            shapes, scalars = bind_shapes(variant, ref)
            candidates = tiling_candidates(variant, shapes, scalars, get_soc(self.soc))
            if not candidates:
                raise SessionError("error: nothing to rank: the kernel has no tile field stepping a tiles() loop "
                                   "(the cube's base tiles are explained, not ranked)")
            if progress:
                progress(f"ranking {len(candidates)} tiling candidates: each runs traced on the emulator")
            ranking = rank_tilings(self.program, project, ref, self.soc, candidates)   # run as verify() runs it
        except DslError as exc:
            raise SessionError(exc.with_source(self.dsl_name, self.dsl).render()) from exc
        except ReferenceError as exc:
            raise SessionError(exc.render()) from exc
        with self._locked():
            manifest = self._manifest()
            if manifest.get("tiling") is not None:
                manifest["tiling"]["ranking"] = _jsonable(ranking)
                self.folder.save_manifest(manifest)
        self._changed()         # views showing the tiling explanation redraw with the ranking
        return ranking

    # ----------------------------------------------------------------------------- internals
    def _manifest(self) -> dict:
        try:
            return self.folder.manifest()
        except ValueError as exc:
            raise SessionError(f"error: {exc}\n  = help: restore the file, or delete the folder to start over") from None

    @contextlib.contextmanager
    def _locked(self):
        """The folder's lock, as a SessionError when another process keeps it too long."""
        try:
            with self.folder.lock():
                yield
        except FolderBusy as exc:
            raise SessionError(f"error: {exc.strerror}\n  = help: wait for it to finish (or stop it), then run this again") from None

    def _lower(self, reference: Path | None = None, accept_all: bool = False, adopt: bool = False) -> None:
        """Parse, bind to the reference, lower with the folder's edits and switch the folder to the
        result in one commit; the folder is untouched when anything fails."""
        try:
            engine = engine_for(self.engine, self.folder)
        except ValueError as exc:          # an engine that cannot run here (no LLM endpoint): not the draft's fault
            raise SessionError(f"error: {exc}") from None
        created = not self.folder.path.exists()
        try:
            self.folder.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SessionError(f"error: cannot create the session folder {self.folder.path}: {exc.strerror}") from None
        committed = False
        try:
            with self._locked():
                self._lower_locked(engine, reference, accept_all, adopt)
                committed = True
        except DslError as exc:
            raise SessionError(exc.with_source(self.dsl_name, self.dsl).render()) from exc
        except ReferenceError as exc:
            raise SessionError(exc.render()) from exc
        except NotText as exc:
            raise SessionError(f"error: {exc}") from None
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename else ""
            raise SessionError(f"error: {where}{exc.strerror or exc}") from None
        except ValueError as exc:
            raise SessionError(format_diagnostic(self.dsl_name, self.dsl, getattr(exc, "span", None), str(exc))) from exc
        finally:
            if created and not committed:     # a folder this call made and never filled goes again
                with contextlib.suppress(OSError):
                    (self.folder.path / LOCK_FILE).unlink(missing_ok=True)
                    self.folder.path.rmdir()

    def _lower_locked(self, engine, reference: Path | None, accept_all: bool, adopt: bool) -> None:
        folder = self.folder
        self.notes = []
        self._check_empty()
        ref_file = folder.path / "reference.py"
        ref_source = reference if reference is not None else (ref_file if ref_file.is_file() else None)
        as_file = None if reference is not None else self._reference_as_file()
        t0 = time.perf_counter()
        program = load_dsl(self.dsl, self.dsl_name, self.soc)
        manifest = self._manifest()
        owner = manifest.get("kernel")
        if owner and owner != program.kernel.name:
            raise SessionError(f"error: {folder.path} is the session of kernel `{owner}`, and this draft's kernel is "
                               f"`{program.kernel.name}`\n  = help: lower `{program.kernel.name}` into a folder of "
                               f"its own (-o DIR), or delete {folder.path} to start over")
        shapes = scalars = None
        if ref_source is not None:
            ref = cached_reference(ref_source, self.overrides, as_file=as_file)
            self.timings["reference_s"] = round(time.perf_counter() - t0, 3)
            # a generic kernel is lowered as its first variant; the shapes come from the first case
            # whatever its dtype (the variant that serves it binds them)
            shapes, scalars = bind_shapes(verify(variant_of(program, ref), self.soc) if program.generic else program, ref)
            # With shapes the verifier also checks the UB budget, pointing at the DSL line.
            program = verify(program, self.soc, shapes=shapes, scalars=scalars)
        t1 = time.perf_counter()
        options = LowerOptions(soc=self.soc, shapes=dict(shapes or {}), scalars=dict(scalars or {}))
        steps = run_pipeline(program, engine, options, edits=folder.edits(), until=self.until)
        self.variants = {}
        if program.generic and len(steps) == len(PIPELINE) and not any(s.failed for s in steps):
            try:
                self.variants = variant_files(program, options)
            except DslError as exc:
                raise SessionError(exc.with_source(self.dsl_name, self.dsl).render()) from exc
        written = manifest.get("written") or {}
        drift = folder.drift(written)
        files = self._generated_files(steps, reference)
        # Changed since written and about to be overwritten: a hand edit. (A changed file the
        # lowering no longer makes is kept by the commit and reported.)
        by_hand = [rel for rel in drift.changed if rel in files and (folder.path / rel).read_bytes() != _as_bytes(files[rel])]
        if by_hand and adopt:
            self._adopt(by_hand, steps, manifest)
            manifest = self._manifest()
            steps = run_pipeline(program, engine, options, edits=folder.edits(), until=self.until)
            files = self._generated_files(steps, reference)
        elif by_hand:
            raise SessionError(_hand_edit_message(folder, by_hand))
        states = self._states(steps, manifest, program, shapes, scalars, accept_all, "reference.py" in files)
        if reference is not None:
            manifest["reference_name"] = Path(reference).name
        elif "reference.py" not in files:
            manifest.pop("reference_name", None)
        done = folder.commit(files, manifest)
        restored = [rel for rel in drift.removed if rel in files]
        if restored:
            self.notes.append(f"restored {_listing(restored)} (deleted since the last lowering)")
        if done.kept:
            self.notes.append(f"kept {_listing(done.kept)}: changed by hand and no longer generated")
        if done.foreign:
            self.notes.append(f"kept {_listing(done.foreign)}: not written by ascendcraft")
        self.timings["lower_s"] = round(time.perf_counter() - t1, 3)
        self.program = program
        self._steps = states
        self.timings["passes_s"] = round(sum(s.seconds for s in states), 4)
        self.result = self._last_result()

    def _generated_files(self, steps: list[Step], reference: Path | None) -> dict[str, str | bytes]:
        """Every file the lowering owns, as the commit will leave them (relative path -> content)."""
        folder = self.folder
        files: dict[str, str | bytes] = {"kernel.dsl.py": self.dsl}
        ref_file = folder.path / "reference.py"
        if reference is not None:
            files["reference.py"] = Path(reference).read_bytes()
            # what the reference reads beside it (its JSON cases), so the copy runs as the original did
            for f in sidecars(reference):
                files[f"{REFERENCE_FILES}/{f.name}"] = f.read_bytes()
        elif ref_file.is_file():
            files["reference.py"] = ref_file.read_bytes()
            kept = folder.path / REFERENCE_FILES
            for f in sorted(kept.iterdir()) if kept.is_dir() else []:
                if f.is_file():
                    files[f"{REFERENCE_FILES}/{f.name}"] = f.read_bytes()
        outputs = [(f"stages/{s.spec.dirname}", s.bundle) for s in steps]
        if len(steps) == len(PIPELINE) and not any(s.failed for s in steps):
            final = steps[-1].bundle
            outputs.append((PROJECT, Bundle({**final.files, **{p: t for v in self.variants.values() for p, t in v.files.items()}},
                                            {**final.source_map, **{p: m for v in self.variants.values()
                                                                    for p, m in v.source_map.items()}})))
        for root, bundle in outputs:
            for path, text in bundle.files.items():
                files[f"{root}/{path}"] = text
            files[f"{root}/{SOURCEMAP}"] = json.dumps({p: list(m) for p, m in bundle.source_map.items()}, indent=2) + "\n"
        return files

    def _adopt(self, paths: list[str], steps: list[Step], manifest: dict) -> None:
        """Save hand edits of generated files as edits of their steps (see `adopt_edits`)."""
        folder = self.folder
        by_step: dict[str, dict[str, str]] = {}
        for rel in paths:
            name = folder.owner_of(rel)
            inner = rel.split("/", 2)[2] if rel.startswith("stages/") else rel.split("/", 1)[1]
            try:
                text = read_text(folder.path / rel)
            except NotText as exc:
                raise SessionError(f"error: {exc}") from None
            mine = by_step.setdefault(name, {})
            if mine.get(inner, text) != text:
                raise SessionError(f"error: {inner} was changed by hand both in stages/{get_pass(name).dirname}/ and in "
                                   f"{PROJECT}/, differently\n  = help: keep one of the two changes, then adopt it")
            mine[inner] = text
        step_of = {s.spec.name: s for s in steps}
        nb = manifest.setdefault("notebook", {})
        for name, changed in by_step.items():
            step = step_of.get(name)
            if step is None:
                raise SessionError(f"error: pass {get_pass(name).number} ({name}) did not run this time, so its hand "
                                   "edit cannot become an edit of it\n  = help: lower without --until")
            unknown = [p for p in changed if p not in step.bundle.files]
            if unknown:
                raise SessionError(f"error: {unknown[0]} is not a file of pass {step.spec.number} ({name})")
            folder.save_edit(name, step.bundle.with_files(changed))
            nb.setdefault("edits", {})[name] = {"dsl_hash": text_hash(self.dsl), "at": time.time()}
            self.notes.append(f"adopted the hand edit of {_listing(sorted(changed))} as an edit of pass "
                              f"{step.spec.number} ({name}), kept in stages/{step.spec.dirname}.edit/")
        folder.save_manifest(manifest)

    def _states(self, steps: list[Step], manifest: dict, program: ir.Program, shapes, scalars,
                accept_all: bool, has_reference: bool) -> list[StepState]:
        """Each step's reviewed state, and the manifest as the commit will write it."""
        nb = manifest.setdefault("notebook", {})
        nb.update({"engine": self.engine, "until": self.until, "overrides": _jsonable(self.overrides)})
        edits_meta = nb.setdefault("edits", {})
        for name in list(edits_meta):
            if name not in {s.spec.name for s in steps if s.edited}:
                edits_meta.pop(name)
        old_steps = manifest.get("steps", {})
        entries, states = {}, []
        for step in steps:
            digest = bundle_hash(step.bundle)
            old = old_steps.get(step.spec.name, {})
            if step.failed:
                status = "failed"
            elif step.edited:     # the user's text replaces the step, merge conflicts and all
                status = "edited"
            elif accept_all or (old.get("status") == "accepted" and old.get("hash") == digest):
                status = "accepted"
            elif not step.diffs:
                status = "unchanged"
            else:
                status = "pending"
            entries[step.spec.name] = {
                "status": status, "engine": step.engine, "hash": digest, "stat": step.stat,
                "files": {d.path: d.stat for d in step.diffs}, "seconds": round(step.seconds, 4),
                "findings": [f.to_json() for f in step.findings],
                "conflicts": [{"path": c.path, "line": c.line, "ours": list(c.ours), "theirs": list(c.theirs)}
                              for c in step.conflicts],
                "report": step.report,
            }
            states.append(StepState(step, status, tuple(self._edit_notes(step, edits_meta))))
        manifest.update({
            "schema": 1, "kernel": program.kernel.name, "soc": self.soc, "dsl_hash": text_hash(self.dsl),
            "dsl_name": self.dsl_name, "reference": "reference.py" if has_reference else None,
            "steps": entries, "lowered_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
        })
        manifest.pop("tiling", None)
        if shapes:
            try:
                manifest["tiling"] = tiling_report(program, dict(shapes), dict(scalars or {}), get_soc(self.soc)).to_json()
            except DslError:
                pass
        return states

    def _edit_notes(self, step: Step, edits_meta: dict) -> list[str]:
        if not step.edited:
            return []
        notes = []
        meta = edits_meta.get(step.spec.name, {})
        if meta.get("dsl_hash") and meta["dsl_hash"] != text_hash(self.dsl):
            notes.append("this edit was made for an earlier DSL draft and replaces the regenerated step; "
                         "undo it to take the new output")
        later_edits = [n for n, m in edits_meta.items()
                       if get_pass(n).number < step.spec.number and m.get("at", 0) > meta.get("at", 0)]
        if later_edits:
            notes.append(f"your later edit of {', '.join(later_edits)} is not in this edited step "
                         "(an edit replaces the step); undo this edit to re-derive it")
        return notes

    def _last_result(self) -> CheckResult | None:
        final = self.final
        for record, path in self.folder.runs():
            if record.get("bundle_hash"):
                result = CheckResult.from_record(record, str(path))
                result.current = final is not None and record["bundle_hash"] == bundle_hash(final)
                return result
        return None

    def _set_status(self, name: str, status: str, save: bool = True) -> None:
        self._steps = [StepState(s.step, status, s.notes) if s.name == name else s for s in self._steps]
        if save:
            self._save_statuses()

    def _save_statuses(self) -> None:
        with self._locked():
            manifest = self._manifest()
            for s in self._steps:
                if s.name in manifest.get("steps", {}):
                    manifest["steps"][s.name]["status"] = s.status
            self.folder.save_manifest(manifest)
        if self.result is not None and not self.ready:
            self.result.current = False

    def _drop_edit(self, name: str) -> None:
        with self._locked():
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

    def on_change(self, callback: Callable[["Session"], None]) -> None:
        """Call `callback(session)` after every change (views refresh themselves with it)."""
        self._listeners.append(callback)

    def _changed(self) -> "Session":
        for fn in list(self._listeners):
            fn(self)
        return self


def _as_bytes(v) -> bytes | None:
    return v.encode() if isinstance(v, str) else v


def _listing(paths: list[str], limit: int = 4) -> str:
    return ", ".join(paths[:limit]) + (f" and {len(paths) - limit} more" if len(paths) > limit else "")


def _hand_edit_message(folder: SessionFolder, paths: list[str]) -> str:
    """Where hand edits of generated files belong, and the two ways on."""
    steps = sorted({folder.owner_of(p) for p in paths}, key=lambda n: get_pass(n).number)
    where = ", ".join(f"pass {get_pass(n).number} ({n}), kept in stages/{get_pass(n).dirname}.edit/" for n in steps)
    verb = "was" if len(paths) == 1 else "were"
    return (f"error: {_listing(paths)} {verb} changed by hand since ascendcraft wrote {'it' if len(paths) == 1 else 'them'}\n"
            f"  = note: {PROJECT}/ and stages/ are regenerated from the session's steps: this change would be "
            "overwritten, and it is not what the steps verify\n"
            f"  = help: edits belong to a step: --adopt-edits (in a notebook: lab.adopt_edits(), or %%ascendcraft "
            "... --adopt-edits) makes this an edit of "
            f"{where}, merged into every later lowering; or delete the changed file to have it regenerated")


def _has_markers(bundle: Bundle) -> bool:
    return any(line.startswith(CONFLICT_MARKERS) for text in bundle.files.values() for line in text.splitlines())


def _check_soc(name: str | None, manifest: Path | None = None) -> str:
    """The SoC's table name; `manifest` names the file the name came from, for the message."""
    try:
        return get_soc(name).name
    except ValueError as exc:
        if manifest is not None:
            raise SessionError(f"error: the session's manifest {manifest} names SoC {name!r}, which is not in the SoC "
                               f"table ({exc})\n  = help: pass --soc with one of the known names, or correct "
                               "`soc` in the manifest") from None
        raise SessionError(f"error: {exc}\n  = help: pass --soc with one of the known names") from None


def _jsonable(value):
    """Plain JSON (no NaN/inf, no numpy scalars) for records a browser or another tool reads."""
    return json.loads(json.dumps(value, default=_plain), parse_constant=lambda _: None)


def _plain(o):
    if hasattr(o, "tolist"):
        return o.tolist()
    if hasattr(o, "item"):
        return o.item()
    return str(o)


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
