"""Lowering a DSL file into a session folder, and the `ascendcraft lower` / `check` commands.

`lower_session` is the one library entry point the CLI and the notebook share: it parses
and verifies the draft, runs the pass manager with the folder's edits, writes every stage,
the final project and the manifest (atomically), and keeps step states across re-runs.
"""
from __future__ import annotations

import argparse
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from ..atomic import write_text
from ..config import default_workdir
from ..dsl import ir
from ..dsl.errors import DslError
from ..dsl.parser import parse
from ..dsl.verifier import verify
from ..soc import get_soc
from .bundle import Bundle
from .manager import LowerOptions, Step, run_pipeline
from .pipeline import PIPELINE, get_pass
from .session import SessionFolder, text_hash

STATES = ("pending", "accepted", "edited", "failed", "unchanged")


@dataclass
class LowerResult:
    program: ir.Program
    steps: list[Step]
    session: SessionFolder
    manifest: dict

    @property
    def final(self) -> Bundle | None:
        """The AscendC project, once all four passes ran and none failed."""
        if len(self.steps) == len(PIPELINE) and not any(s.failed for s in self.steps):
            return self.steps[-1].bundle
        return None


def engine_for(name: str, session: SessionFolder | None = None):
    if name == "rule":
        from ..engines.rule import RuleEngine
        return RuleEngine()
    if name == "llm":  # config from LlmConfig.resolve(); no endpoint -> one ValueError message
        from ..engines.llm.engine import engine_from_environment
        engine = engine_from_environment()
        if session is not None:   # every call of this session is logged beside it (never the key)
            from ..engines.llm.client import LOG_FILE_NAME
            engine.client.log_path = session.path / "runs" / LOG_FILE_NAME
        return engine
    raise ValueError(f"engine `{name}` is not available here; use --engine rule")


def load_dsl(text: str, path: str, soc: str | None, shapes=None, scalars=None) -> ir.Program:
    program = parse(text, path)
    return verify(program, soc, shapes=shapes, scalars=scalars) if shapes else verify(program, soc)


def lower_session(dsl_text: str, folder: str | Path, *, soc: str | None = None, until: str | None = None,
                  engine: str = "rule", reference: str | Path | None = None, accept_all: bool = False,
                  shapes: Mapping[str, tuple] | None = None, scalars: Mapping[str, float] | None = None,
                  dsl_name: str = "kernel.dsl.py") -> LowerResult:
    """Lower `dsl_text` into `folder` (created or resumed). Raises DslError for a bad draft."""
    session = SessionFolder(folder)
    manifest = session.manifest()
    soc_name = get_soc(soc or manifest.get("soc")).name
    # With shapes, the verifier also checks the launch and the UB budget: an overflow is a DSL
    # error at its line, before any pass runs.
    program = load_dsl(dsl_text, dsl_name, soc_name, shapes=shapes, scalars=scalars)
    session.path.mkdir(parents=True, exist_ok=True)
    write_text(session.dsl_path(), dsl_text)
    if reference is not None and Path(reference).resolve() != (session.path / "reference.py").resolve():
        shutil.copyfile(reference, session.path / "reference.py")
    options = LowerOptions(soc=soc_name, shapes=dict(shapes or {}), scalars=dict(scalars or {}))
    eng = engine_for(engine, session)
    steps = run_pipeline(program, eng, options, edits=session.edits(), until=until)
    old_steps = manifest.get("steps", {})
    new_steps = {}
    for step in steps:
        session.write_stage(step.spec.name, step.bundle)
        digest = text_hash("".join(f"{p}\0{t}" for p, t in step.bundle.files.items()))
        old = old_steps.get(step.spec.name, {})
        if step.failed:
            status = "failed"
        elif step.edited:
            status = "edited"
        elif accept_all or (old.get("status") == "accepted" and old.get("hash") == digest):
            status = "accepted"
        elif not step.diffs:
            status = "unchanged"
        else:
            status = "pending"
        new_steps[step.spec.name] = {
            "status": status, "engine": step.engine, "hash": digest, "stat": step.stat,
            "files": {d.path: d.stat for d in step.diffs}, "seconds": round(step.seconds, 4),
            "findings": [f.to_json() for f in step.findings],
            "conflicts": [{"path": c.path, "line": c.line, "ours": list(c.ours), "theirs": list(c.theirs)} for c in step.conflicts],
            "report": step.report,
        }
    for spec in PIPELINE[len(steps):]:
        new_steps.pop(spec.name, None)
        shutil.rmtree(session.stage_dir(spec.name), ignore_errors=True)
    report = None
    if shapes:
        from .tiling_report import tiling_report
        try:
            report = tiling_report(program, dict(shapes), dict(scalars or {}), get_soc(soc_name)).to_json()
        except DslError:
            report = None
    manifest.update({
        "schema": 1, "kernel": program.kernel.name, "soc": soc_name, "dsl_hash": text_hash(dsl_text),
        "reference": "reference.py" if (session.path / "reference.py").exists() else None,
        "steps": new_steps, "lowered_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
    })
    if report:
        manifest["tiling"] = report
    if len(steps) == len(PIPELINE) and not any(s.failed for s in steps):
        session.write_project(steps[-1].bundle)
    else:
        shutil.rmtree(session.path / "ascendc", ignore_errors=True)
    session.save_manifest(manifest)
    return LowerResult(program, steps, session, manifest)


def reference_shapes(ref_path: str | Path, overrides=None):
    """Shapes and scalars of a reference's inputs, by kernel parameter (needs the program)."""
    from ..reference import load_reference
    return load_reference(ref_path, overrides=overrides)


def lower_main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="ascendcraft lower", description="Lower a DSL kernel into a session folder with every stage and the AscendC project.")
    ap.add_argument("dsl", help="the kernel (.dsl.py)")
    ap.add_argument("-o", "--out", help="session folder (default: ascendcraft-sessions/<kernel name>)")
    ap.add_argument("--until", choices=[p.name for p in PIPELINE], help="stop after this pass")
    ap.add_argument("--soc", default=None, help="SoC (default Ascend910B2)")
    ap.add_argument("--engine", default="rule", choices=["rule", "llm"])
    ap.add_argument("--ref", help="the PyTorch reference: copied into the session; its shapes explain the tiling")
    args = ap.parse_args(argv)
    path = Path(args.dsl)
    try:
        text = path.read_text()
    except OSError as exc:
        print(f"ascendcraft lower: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return 2
    try:
        program = load_dsl(text, str(path), args.soc)
        shapes = scalars = None
        if args.ref:
            from ..dsl.check import bind
            from ..reference import ReferenceError, load_reference
            try:
                inputs, _ = bind(program, load_reference(args.ref))
            except ReferenceError as exc:
                print(exc.render(), file=sys.stderr)
                return 2
            shapes = {n: tuple(v.shape) for n, v in inputs.items() if hasattr(v, "shape")}
            scalars = {p.name: inputs[p.name] for p in program.scalars}
        out = Path(args.out) if args.out else default_workdir() / program.kernel.name
        result = lower_session(text, out, soc=args.soc, until=args.until, engine=args.engine, reference=args.ref,
                               accept_all=True, shapes=shapes, scalars=scalars, dsl_name=str(path))
    except DslError as exc:
        print(exc.render(), file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"ascendcraft lower: {exc}", file=sys.stderr)
        return 2
    print(summary(result))
    return 1 if any(s.failed for s in result.steps) else 0


def summary(result: LowerResult) -> str:
    lines = [f"lowered `{result.program.kernel.name}` into {result.session.path} ({result.manifest['soc']})"]
    for step in result.steps:
        state = result.manifest["steps"][step.spec.name]["status"]
        lines.append(f"  pass {step.spec.number} {step.spec.name:<8} {step.stat:>10}  {step.seconds * 1000:6.1f} ms  "
                     f"{state:<9} {step.spec.reason}")
        for f in step.findings:
            lines.append("    " + f.render(str(result.program.path), result.program.source).replace("\n", "\n    "))
        for c in step.conflicts:
            lines.append(f"    conflict in {c.path}:{c.line}: your edit and the regenerated text overlap; both kept between markers")
    if "tiling" in result.manifest:
        from .tiling_report import TilingReport
        lines.append(TilingReport(**result.manifest["tiling"]).text())
    if result.final is not None:
        lines.append(f"AscendC project: {result.session.path / 'ascendc'}")
    return "\n".join(lines)


def check_main(argv: list[str] | None = None) -> int:
    """`ascendcraft check TARGET --ref REF.py --backend emulator`: lower (or read the session) and run."""
    ap = argparse.ArgumentParser(prog="ascendcraft check", description="Compile the AscendC on the emulator and verify it against PyTorch.")
    ap.add_argument("target", help="a kernel.dsl.py file or a session folder")
    ap.add_argument("--ref", help="the PyTorch reference (default: the session's reference.py)")
    ap.add_argument("--backend", default="emulator")
    ap.add_argument("--soc", default=None)
    ap.add_argument("--override", action="append", default=[], metavar="NAME=VALUE",
                    help="set a module-level constant of the reference, e.g. dim=1003")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    from ..dsl.check import _parse_override
    from ..reference import ReferenceError, load_reference
    from .verify import check_emulator, render_run
    target = Path(args.target)
    session = SessionFolder(target) if target.is_dir() else None
    try:
        overrides = dict(_parse_override(o) for o in args.override)
        if session is not None:
            if not session.exists():
                print(f"ascendcraft check: {target} is not a session folder (no ascendcraft.json)", file=sys.stderr)
                return 2
            manifest = session.manifest()
            text = session.dsl_path().read_text()
            ref_path = args.ref or (session.path / "reference.py")
            program = load_dsl(text, str(session.dsl_path()), args.soc or manifest.get("soc"))
            bundle = session.read_stage("align")
            if bundle is None:
                print(f"ascendcraft check: {target} has not been lowered through pass 4 (align); run `ascendcraft lower` first",
                      file=sys.stderr)
                return 2
            soc = args.soc or manifest.get("soc")
        else:
            if not args.ref:
                print("ascendcraft check: --ref REF.py is needed for a DSL file", file=sys.stderr)
                return 2
            text = target.read_text()
            program = load_dsl(text, str(target), args.soc)
            from ..engines.rule import render
            soc = args.soc
            bundle = render(program, LowerOptions(soc=get_soc(soc).name), len(PIPELINE))
            ref_path = args.ref
        if args.backend == "cann":
            from ..backends.cann import check_cann
            from ..backends.cann.detect import refuse_reason
            reason = refuse_reason("run")
            if reason:
                print(f"ascendcraft check: {reason}", file=sys.stderr)
                return 2
            ref = load_reference(ref_path, overrides=overrides or None, seed=args.seed)
            verdict, run = check_cann(program, bundle, ref, soc)
            print(verdict.summary())
            return 0 if verdict.correct else 1
        ref = load_reference(ref_path, overrides=overrides or None, seed=args.seed)
        verdict, run = check_emulator(program, bundle, ref, soc=soc)
    except DslError as exc:
        print(exc.render(), file=sys.stderr)
        return 2
    except ReferenceError as exc:
        print(exc.render(), file=sys.stderr)
        return 2
    except (OSError, ValueError) as exc:
        print(f"ascendcraft check: {exc}", file=sys.stderr)
        return 2
    print(verdict.summary())
    detail = render_run(run, program)
    if detail:
        print(detail)
    if session is not None:
        final = session.manifest().get("steps", {}).get("align", {})
        session.record_run({"backend": "emulator", "soc": verdict.soc, "correct": verdict.correct,
                            "bundle_hash": final.get("hash"),
                            "message": verdict.message, "max_abs_err": verdict.max_abs_err,
                            "max_rel_err": verdict.max_rel_err, "run": run.to_json(),
                            "overrides": overrides})
    return 0 if verdict.correct else 1
