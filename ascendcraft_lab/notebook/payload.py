"""`application/vnd.ascendcraft.pipeline+json`: the pipeline as data, a projection of `LabSession`.

Python computes every fact (statuses, which actions are open and why, diffs' before/after text,
source maps, colours, the verdict); a renderer (the JupyterLab extension) only draws it. The
steps, their states and actions are the view model (viewmodel.py) that the ipywidgets view and
the static HTML render too; this module adds the text bodies. The shape is documented in
`schema.json` beside this file and in docs/pipeline-mime.md. Bodies are capped: a text longer
than `max_body_chars` is cut at a line end and flagged `truncated`, and when the whole payload
would pass `max_total_chars` the largest bodies are dropped (`omitted`) first — a browser must
never receive megabytes in one output.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

from .render import PALETTE, dsl_color, used_dsl_lines
from .viewmodel import view_model

MIME_TYPE = "application/vnd.ascendcraft.pipeline+json"
SCHEMA_VERSION = 2         # 2: the view model (actions, label, unchanged, status, review_next)
SCHEMA_PATH = Path(__file__).with_name("schema.json")
MAX_BODY_CHARS = 200_000
MAX_TOTAL_CHARS = 2_000_000


def body(text: str | None, dsl_lines: Sequence[int], max_chars: int = MAX_BODY_CHARS) -> dict | None:
    """A file body: text (cut at a line end past `max_chars`), its line count and per-line DSL lines."""
    if text is None:
        return None
    lines = text.splitlines(keepends=True)
    shown, used = [], 0
    for line in lines:
        if used + len(line) > max_chars:
            break
        shown.append(line)
        used += len(line)
    return {"text": "".join(shown), "lines": len(lines), "shown_lines": len(shown),
            "truncated": len(shown) < len(lines), "omitted": False,
            "dsl_lines": [int(x) for x in list(dsl_lines)[:len(shown)]]}


def pipeline_payload(lab, *, max_body_chars: int = MAX_BODY_CHARS, max_total_chars: int = MAX_TOTAL_CHARS) -> dict:
    """The JSON document for one LabSession (see schema.json): its view model plus the text bodies."""
    model = view_model(lab).to_json()
    ran = {s.name: s for s in lab.steps}
    for p in model["passes"]:
        s = ran.get(p["name"])
        before = s.previous if s is not None else None
        for f in p["files"]:
            b = before.files.get(f["path"]) if before else None
            a = s.bundle.files.get(f["path"])
            f["before"] = body(b, before.source_map.get(f["path"], ()) if before else (), max_body_chars)
            f["after"] = body(a, s.bundle.source_map.get(f["path"], ()), max_body_chars)
    final = lab.final
    r = lab.result
    used = sorted(used_dsl_lines(lab))
    doc: dict[str, Any] = {
        "version": SCHEMA_VERSION,
        "session": {"name": lab.name, "folder": str(lab.folder.path), "kernel": _kernel_name(lab), "soc": lab.soc,
                    "engine": lab.engine, "until": lab.until,
                    "reference": "reference.py" if lab.reference is not None else None},
        "dsl": {"path": "kernel.dsl.py", **body(lab.dsl, range(1, len(lab.dsl.splitlines()) + 1), max_body_chars)},
        "passes": model["passes"],
        "final": None if final is None else {
            "files": [{"path": p, "body": body(t, final.source_map.get(p, ()), max_body_chars)}
                      for p, t in final.files.items()]},
        "ready": model["ready"],
        "actions": model["actions"],
        "status": model["status"],
        "review_next": model["review_next"],
        "draft_error": model["draft_error"],
        "verdict": None if r is None else {
            "correct": r.correct, "message": r.message, "summary": r.summary, "detail": r.detail,
            "backend": r.backend, "soc": r.soc, "max_abs_err": r.max_abs_err, "max_rel_err": r.max_rel_err,
            "status": r.status, "findings": [_plain_finding(f) for f in r.findings], "timings": r.timings,
            "current": r.current, "record": r.path},
        "tiling": None if not lab.tiling else {**lab.tiling, "alternatives": lab.tiling_alternatives()},
        "dsl_colors": {str(n): dsl_color(n) for n in used},
        "palette": list(PALETTE),
        "notes": list(lab.notes),
        "timings": dict(lab.timings),
        "limits": {"max_body_chars": max_body_chars, "max_total_chars": max_total_chars, "truncated": False},
    }
    doc = json.loads(json.dumps(doc, default=str), parse_constant=lambda _: None)   # strict JSON: no NaN/inf
    _cap(doc, max_total_chars)
    return doc


def _kernel_name(lab) -> str:
    try:
        return lab.program.kernel.name
    except AttributeError:
        return lab.name


def _plain_finding(f: dict) -> dict:
    keys = ("kind", "message", "file", "line", "dsl_line", "block", "count", "api")
    return {k: f.get(k) for k in keys if k in f}


def _bodies(doc: dict) -> list[dict]:
    out = [doc["dsl"]]
    for p in doc["passes"]:
        for f in p["files"]:
            out += [b for b in (f["before"], f["after"]) if b]
    if doc["final"]:
        out += [f["body"] for f in doc["final"]["files"]]
    return out


def _cap(doc: dict, max_total: int) -> None:
    """Drop the largest bodies (text and map) until the document fits `max_total` characters."""
    size = len(json.dumps(doc))
    if size <= max_total:
        return
    doc["limits"]["truncated"] = True
    for b in sorted(_bodies(doc)[1:], key=lambda b: len(b["text"]), reverse=True):
        if size <= max_total:
            break
        size -= len(json.dumps(b["text"])) + len(json.dumps(b["dsl_lines"])) - 4
        b.update(text="", dsl_lines=[], shown_lines=0, truncated=True, omitted=True)


def load_schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text())
