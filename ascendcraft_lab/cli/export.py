"""`ascendcraft export SESSION|K.dsl.py --format mkb|mkb-direct [-o OUT]`: a MultiKernelBench submission.

A session ships only a project that `ascendcraft check` found correct: its `ascendc/` is
hashed and must match a passing run record (`--unverified` exports it anyway, and says so).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..atomic import NotText, write_text
from ..dsl.errors import DslError
from ..export.common import ExportError, load_dsl_file, load_session
from ..export.direct import export_direct, validate_direct
from ..export.mkb import export_mkb, render_submission, validate_fields
from ..session import SessionError, SessionFolder
from ..session.folder import FolderBusy, ManifestError, files_hash
from ..session.program import is_program_folder


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="ascendcraft export",
                                 description="Export a lowered session as a MultiKernelBench AscendC submission.")
    ap.add_argument("target", help="a session folder (or a kernel.dsl.py, lowered on the fly)")
    ap.add_argument("--format", choices=("mkb", "mkb-direct"), default="mkb",
                    help="mkb: the six-string msopgen submission (.py); mkb-direct: the direct-launch JSON")
    ap.add_argument("-o", "--out", help="output file, or a folder to write it in "
                                        "(default: <session>/export/<op>.mkb.py or .mkb-direct.json)")
    ap.add_argument("--op", help="the MultiKernelBench problem name (default: the DSL kernel's name)")
    ap.add_argument("--ref", help="the PyTorch reference, for a DSL file whose kernel reads Model parameters")
    ap.add_argument("--soc", default=None)
    ap.add_argument("--unverified", action="store_true",
                    help="export a session's project even though no check has passed it")
    ap.add_argument("--force", action="store_true", help="overwrite an -o file that is not an export of ours")
    args = ap.parse_args(argv)
    target = Path(args.target)
    note = ""
    if target.is_dir() and is_program_folder(target):
        return _export_program(target, args)
    try:
        if target.is_dir():
            folder = SessionFolder(target)
            if not folder.exists():
                raise ExportError(f"{target} is not a session folder (no ascendcraft.json)")
            with folder.lock():          # the project read and the run records it is checked against agree
                src = load_session(target, op=args.op, soc=args.soc)
                refusal, hint = _unverified(folder, src.bundle.files)
            if refusal and not args.unverified:
                raise ExportError(f"{refusal}; {hint} (or pass --unverified to export it anyway)")
            if refusal:
                note = f"note: exported unverified: {refusal}"
        elif target.is_file():
            src = load_dsl_file(target, reference=args.ref, op=args.op, soc=args.soc)
            note = (f"note: {target} was lowered on the fly by the rule engine and not checked; "
                    f"`ascendcraft check {target} --ref REF.py` verifies it")
        else:
            raise ExportError(f"{target} does not exist")
        if args.format == "mkb":
            fields = export_mkb(src)
            problems = validate_fields(fields)
            text = render_submission(fields, src)
            suffix = ".mkb.py"
        else:
            spec = export_direct(src)
            problems = validate_direct(spec)
            text = json.dumps(spec, indent=2) + "\n"
            suffix = ".mkb-direct.json"
    except (ExportError, SessionError, ManifestError, NotText) as exc:
        print(f"ascendcraft export: {str(exc).removeprefix('error: ')}", file=sys.stderr)
        return 2
    except FolderBusy as exc:
        print(f"ascendcraft export: {exc.strerror}", file=sys.stderr)
        return 2
    except DslError as exc:   # a DSL or session error: one line, no traceback
        print(exc.render(), file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"ascendcraft export: cannot read {exc.filename or target}: {exc.strerror}", file=sys.stderr)
        return 2
    except UnicodeDecodeError as exc:
        print(f"ascendcraft export: a file of {target} is not UTF-8 text (byte offset {exc.start})", file=sys.stderr)
        return 2
    if problems:
        print("ascendcraft export: the export is malformed: " + "; ".join(problems), file=sys.stderr)
        return 1
    name = f"{src.op}{suffix}"
    if args.out:
        out = Path(args.out)
        if out.is_dir() or args.out.endswith(("/", "\\")):
            out = out / name              # -o names a folder: the submission goes inside it
    else:
        out = (target if target.is_dir() else target.parent) / "export" / name
    if not args.force and not _ours_or_new(out):
        print(f"ascendcraft export: {out} exists and is not a submission ascendcraft exported; name another file, "
              "or pass --force to overwrite it", file=sys.stderr)
        return 2
    try:
        write_text(out, text)
    except OSError as exc:
        print(f"ascendcraft export: cannot write {out}: {exc.strerror}", file=sys.stderr)
        return 1
    if note:
        print(note, file=sys.stderr)
    print(f"wrote {out} ({args.format}: `{src.op}` for {src.soc.name})")
    return 0


def _ours_or_new(out: Path) -> bool:
    """Whether `out` may be written without --force: new, empty, or an export of ours (a user's file is not)."""
    try:
        text = out.read_text(encoding="utf-8")
    except FileNotFoundError:
        return True
    except (OSError, UnicodeDecodeError):
        return False                     # a folder, a binary file, one we cannot read: not ours
    if not text.strip():
        return True
    if text.startswith("# MultiKernelBench AscendC submission for") and "exported by AscendCraft Lab" in text[:300]:
        return True
    try:
        return json.loads(text).get("author") == "AscendCraft Lab"
    except (ValueError, AttributeError):
        return False


def _unverified(folder: SessionFolder, files) -> tuple[str, str]:
    """(why the project in `files` may not ship, what to do): ("", "") when a check passed exactly it."""
    digest = files_hash(files)
    if folder.passing_run(digest) is not None:
        return "", ""
    tried = next((r for r, _ in folder.runs() if r.get("project_hash") == digest), None)
    if tried is not None:
        message = (str(tried.get("message", "")).splitlines() or [""])[0][:160]
        return (f"the last check of {folder.project_dir} (project {digest}) found it incorrect: {message}",
                "fix the kernel and check it again")
    return (f"no check has passed {folder.project_dir} as it is now (project {digest})",
            f"run `ascendcraft check {folder.path}` first")


def _export_program(folder: Path, args) -> int:
    """A program session: the direct-launch submission that runs every kernel in order (verified first)."""
    from ..export.program import export_program_direct
    from ..session.program import open_program, program_verified
    if args.format != "mkb-direct":
        print("ascendcraft export: a program exports as --format mkb-direct (the six-string format holds one "
              "kernel)", file=sys.stderr)
        return 2
    try:
        session = open_program(folder)
        if not program_verified(session) and not args.unverified:
            raise ExportError("no check has passed the program's ascendc/ as it is now; `ascendcraft check "
                              f"{folder}` verifies it (or pass --unverified to export it anyway)")
        ref = folder / "reference.py"
        op = args.op or session.program.name
        spec = export_program_direct(session.program, session.project, session.manifest["soc"], op,
                                     ref.read_text() if ref.is_file() else None)
    except (ExportError, SessionError) as exc:
        print(f"ascendcraft export: {str(exc).removeprefix('error: ')}", file=sys.stderr)
        return 2
    problems = validate_direct(spec)
    if problems:
        print("ascendcraft export: " + "; ".join(problems), file=sys.stderr)
        return 1
    out = Path(args.out) if args.out else folder / "export" / f"{op}.mkb-direct.json"
    if out.is_dir():
        out = out / f"{op}.mkb-direct.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(spec, indent=2) + "\n")
    print(f"wrote {out} (direct-launch submission of program `{session.program.name}`, "
          f"{len(session.program.kernels)} kernels)")
    return 0
