"""A session of a program of kernels: its folder, lowering, verification and ESTIMATED profile.

The folder (a program's counterpart of folder.py's, marked `"format": "program"` in its manifest):

    ascendcraft.json              the program, its kernels, the SoC, each kernel's steps (pass, +N -M, status)
    kernel.dsl.py                 the program file as given
    reference.py                  the PyTorch reference (copied, when given)
    kernels/<k>/stages/NN-<pass>/ each kernel's stage list: its bundle after each pass
    ascendc/                      the program's project: <k>/... per kernel and program/<name>_program.cpp
    runs/<timestamp>.json         each check and profile

A lowering writes a complete new folder beside the old one and swaps it in, so a folder is never
half written. `check` verifies the files of `ascendc/` as they are (their hash is in the run
record); `profile` refuses a program that is not verified.
"""
from __future__ import annotations

import json
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from ..atomic import write_json, write_text
from ..backends.emulator.program import check_program_emulator
from ..dsl.errors import DslError
from ..dsl.ir import MultiProgram
from ..dsl.program import parse_any
from ..dsl.program_check import bind_launches, verify_multi
from ..drafter.trace import trace_reference
from ..engines.rule import RuleEngine
from ..passes.bundle import Bundle
from ..passes.program import lower_multi
from ..passes.spec import LowerOptions
from ..perf import estimate_eager, estimate_trace
from ..perf.program import ProgramEstimate, program_estimate
from ..procs import scratch_dir
from ..reference.bind import Verdict
from ..reference.load import ReferenceError, load_reference
from ..reference.program import bind_program, check_program_interpreter
from ..soc import get_soc
from .errors import SessionError
from .folder import text_hash

FORMAT = "program"
MANIFEST = "ascendcraft.json"
DSL = "kernel.dsl.py"
REFERENCE = "reference.py"
PROJECT = "ascendc"


def is_program_folder(path: Path) -> bool:
    try:
        return json.loads((Path(path) / MANIFEST).read_text()).get("format") == FORMAT
    except (OSError, ValueError, AttributeError):
        return False


@dataclass
class ProgramSession:
    path: Path
    program: MultiProgram
    project: Bundle
    manifest: dict

    def summary(self) -> str:
        lines = [f"program `{self.program.name}`: {len(self.program.kernels)} kernels -> {self.path}"]
        for kernel, steps in self.manifest["kernels"].items():
            lines.append(f"  {kernel}: " + ", ".join(f"{s['pass']} {s['stat']} {s['status']}" for s in steps))
        lines.append(f"  host code: {PROJECT}/program/{self.program.name}_program.cpp")
        return "\n".join(lines)


def _parse(text: str, name: str, soc: str) -> MultiProgram:
    mp = parse_any(text, name)
    if not isinstance(mp, MultiProgram):
        raise SessionError(f"error: {name} holds one kernel, not a @program: use the kernel session")
    return verify_multi(mp, soc)


def lower_program(text: str, dsl_name: str, out: Path, *, reference: str | None = None,
                  soc: str | None = None) -> ProgramSession:
    """Parse, verify (for the reference's shapes too, when given), lower every kernel and write the folder."""
    soc = get_soc(soc).name
    mp = _parse(text, dsl_name, soc)
    if reference is not None:
        ref = load_reference(reference)
        inputs, _ = bind_program(mp, ref)
        shapes = {n: v.shape for n, v in inputs.items() if hasattr(v, "shape")}
        bind_launches(mp, shapes, {p.name: inputs[p.name] for p in mp.interface.scalars}, soc)
    lowering = lower_multi(mp, RuleEngine(), LowerOptions(soc=soc))
    kernels = {k: [{"pass": s.spec.name, "stat": s.stat, "status": "failed" if s.failed else "accepted"}
                   for s in steps] for k, steps in lowering.steps.items()}
    manifest = {"format": FORMAT, "program": mp.name, "soc": soc, "dsl_hash": text_hash(text),
                "dsl_name": dsl_name, "kernels": kernels, "reference": REFERENCE if reference else None,
                "project_hash": _project_hash(lowering.bundle)}
    _refuse_foreign(out, mp.name)
    with scratch_dir("ascendcraft-program-session-") as tmp:
        new = tmp / "session"
        _write(new, text, reference, lowering, manifest)
        _swap(new, out)
    if lowering.failed:
        raise SessionError(f"error: kernels {', '.join(lowering.failed)} failed to lower (see {out}/{MANIFEST})")
    return ProgramSession(out, mp, lowering.bundle, manifest)


def _write(root: Path, text: str, reference: str | None, lowering, manifest: dict) -> None:
    write_text(_at(root, DSL), text)
    if reference:
        shutil.copyfile(reference, _at(root, REFERENCE))
    for kernel, steps in lowering.steps.items():
        for s in steps:
            for path, body in s.bundle.files.items():
                write_text(_at(root, f"kernels/{kernel}/stages/{s.spec.dirname}/{path}"), body)
    for path, body in lowering.bundle.files.items():
        write_text(_at(root, f"{PROJECT}/{path}"), body)
    (root / "runs").mkdir(exist_ok=True)
    write_json(root / MANIFEST, manifest)


def _at(root: Path, rel: str) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    return p


def _refuse_foreign(out: Path, name: str) -> None:
    if not out.exists() or (out.is_dir() and not any(out.iterdir())):
        return
    if not is_program_folder(out):
        raise SessionError(f"error: {out} exists and is not a program session\n"
                           "  = help: pass -o with a new or empty folder")
    held = json.loads((out / MANIFEST).read_text()).get("program")
    if held != name:
        raise SessionError(f"error: {out} is the session of program `{held}`, not `{name}`\n"
                           "  = help: pass -o with another folder")


def _swap(new: Path, out: Path) -> None:
    """Move the new folder in; the old one's runs/ are kept."""
    if out.exists():
        old_runs = out / "runs"
        if old_runs.is_dir():
            shutil.copytree(old_runs, new / "runs", dirs_exist_ok=True)
        shutil.rmtree(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(new), str(out))


def open_program(path: Path) -> ProgramSession:
    """A program session as its folder holds it (its project read from ascendc/)."""
    manifest = json.loads((path / MANIFEST).read_text())
    text = (path / DSL).read_text()
    mp = _parse(text, manifest.get("dsl_name") or DSL, manifest["soc"])
    root = path / PROJECT
    files = {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}
    return ProgramSession(path, mp, Bundle(files), manifest)


def _project_hash(project: Bundle) -> str:
    return text_hash("\n".join(f"{p}\n{t}" for p, t in project.files.items()))


# ----------------------------------------------------------------------------- verify and profile


def check_program(target: Path, ref_path: str | None, *, backend: str = "emulator", soc: str | None = None,
                  overrides: dict | None = None, seed: int = 0) -> tuple[Verdict, str]:
    """(verdict, detail) of a program file or session: on the interpreter, or its project on the emulator."""
    session = open_program(target) if target.is_dir() else None
    ref_path = ref_path or (str(target / REFERENCE) if session and (target / REFERENCE).is_file() else None)
    if ref_path is None:
        raise SessionError("error: no reference given\n  = help: pass --ref REF.py")
    soc = get_soc(soc or (session.manifest["soc"] if session else None)).name
    text = (target / DSL).read_text() if session else target.read_text()
    mp = session.program if session else _parse(text, str(target), soc)
    ref = load_reference(ref_path, overrides=overrides, seed=seed)
    if backend == "interpreter":
        return check_program_interpreter(mp, ref_path, soc=soc, reference=ref), ""
    project = session.project if session else lower_multi(mp, RuleEngine(), LowerOptions(soc=soc)).bundle
    check = check_program_emulator(mp, project, ref, soc=soc)
    detail = _launch_table(check) if check.emulated else ""
    if session:
        _record(session, {"backend": backend, "action": "check", "correct": check.verdict.correct,
                          "summary": check.verdict.message, "project_hash": _project_hash(project)})
    return check.verdict, detail


def _launch_table(check) -> str:
    rows = [f"  {r.where}: wrote {', '.join(r.written)}" for r in check.emulated.trace[:12]]
    more = len(check.emulated.trace) - len(rows)
    return "\n".join(["launches (each compared with the interpreter's):"] + rows
                     + ([f"  ... and {more} more"] if more > 0 else []))


def profile_program(target: Path, ref_path: str | None = None, *, soc: str | None = None,
                    seed: int = 0) -> ProgramEstimate:
    """The ESTIMATED program time: every launch traced on the emulator (the program must be correct)."""
    session = open_program(target)
    ref_path = ref_path or str(target / REFERENCE)
    soc = get_soc(soc or session.manifest["soc"]).name
    ref = load_reference(ref_path, seed=seed)
    with scratch_dir("ascendcraft-program-trace-") as tmp:
        check = check_program_emulator(session.program, session.project, ref, soc=soc, traces=tmp)
        if not check.verdict.correct:
            raise SessionError(f"error: the program is not verified, so its time means nothing: "
                               f"{check.verdict.message}\n  = help: `ascendcraft check` shows what is wrong")
        est = {key: estimate_trace(path, soc)[-1] for key, path in check.traced["files"].items()}
        launches = [(r.where, r.stmt.kernel, est[key]) for r, key in zip(check.emulated.trace,
                                                                          check.traced["launches"])]
    profile = program_estimate(session.program.name, soc, launches, _eager(ref_path, soc, seed))
    _record(session, {"backend": "model", "action": "profile", "estimate": True, "profile": profile.to_dict()})
    return profile


def _eager(ref_path: str, soc: str, seed: int):
    try:
        return estimate_eager(trace_reference(ref_path, seed=seed), soc)
    except (ReferenceError, DslError, ValueError, RuntimeError, OSError):
        return None          # a reference the tracer cannot follow has no eager estimate: said by its absence


def program_verified(session: ProgramSession) -> bool:
    """Whether a check passed the session's ascendc/ as it is now (the hash its run record keeps)."""
    digest = _project_hash(session.project)
    for p in sorted((session.path / "runs").glob("*.json")):
        try:
            run = json.loads(p.read_text())
        except (OSError, ValueError):
            continue
        if run.get("action") == "check" and run.get("correct") and run.get("project_hash") == digest:
            return True
    return False


def _record(session: ProgramSession, data: dict) -> None:
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + f"-{time.time_ns() % 1_000_000:06d}"
    write_json(session.path / "runs" / f"{stamp}.json", {"time": time.time(), **data})


__all__ = ["is_program_folder", "lower_program", "open_program", "check_program", "profile_program", "program_verified",
           "ProgramSession"]
