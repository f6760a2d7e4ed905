"""`ascendcraft export SESSION|K.dsl.py --format mkb|mkb-direct [-o OUT]`: a MultiKernelBench submission."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..atomic import write_text
from ..dsl.errors import DslError
from ..export.common import ExportError, load_dsl_file, load_session
from ..export.direct import export_direct, validate_direct
from ..export.mkb import export_mkb, render_submission, validate_fields


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="ascendcraft export",
                                 description="Export a lowered session as a MultiKernelBench AscendC submission.")
    ap.add_argument("target", help="a session folder (or a kernel.dsl.py, lowered on the fly)")
    ap.add_argument("--format", choices=("mkb", "mkb-direct"), default="mkb",
                    help="mkb: the six-string msopgen submission (.py); mkb-direct: the direct-launch JSON")
    ap.add_argument("-o", "--out", help="output file (default: <session>/export/<op>.mkb.py or .mkb-direct.json)")
    ap.add_argument("--op", help="the MultiKernelBench problem name (default: the DSL kernel's name)")
    ap.add_argument("--ref", help="the PyTorch reference, for a DSL file whose kernel reads Model parameters")
    ap.add_argument("--soc", default=None)
    args = ap.parse_args(argv)
    target = Path(args.target)
    try:
        if target.is_dir():
            src = load_session(target, op=args.op, soc=args.soc)
        elif target.is_file():
            src = load_dsl_file(target, reference=args.ref, op=args.op, soc=args.soc)
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
    except ExportError as exc:
        print(f"ascendcraft export: {exc}", file=sys.stderr)
        return 2
    except DslError as exc:   # a DSL or session error: one line, no traceback
        print(exc.render(), file=sys.stderr)
        return 2
    if problems:
        print("ascendcraft export: the export is malformed: " + "; ".join(problems), file=sys.stderr)
        return 1
    out = Path(args.out) if args.out else (target if target.is_dir() else target.parent) / "export" / f"{src.op}{suffix}"
    out.parent.mkdir(parents=True, exist_ok=True)
    write_text(out, text)
    print(f"wrote {out} ({args.format}: `{src.op}` for {src.soc.name})")
    return 0
