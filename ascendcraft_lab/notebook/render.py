"""HTML for the pipeline: highlighted code panes coloured by DSL line, diffs, and the static page.

Shared by the ipywidgets view and the static `text/html` fallback. The pass list, the statuses
and the status line are the view model's (viewmodel.py), as in the extension. Styles are inline (no
`<style>`, no classes, no script) so the page survives nbconvert and GitHub's sanitiser. Every
line carries the colour of the DSL line it came from — the same colour for a DSL line and all
its C++ lines — and a tooltip quoting that DSL line. Long lines wrap, indented past the line
number (there is no script to offer a toggle, and sideways scrolling hides code in a notebook
column of a laptop). Panes are capped: `limit_lines` lines are shown, the rest (up to
`hard_chars` characters of source) sits behind a "show all" control.
"""
from __future__ import annotations

import difflib
import html
from dataclasses import dataclass
from typing import Sequence

from .lexer import lexer_for
from .viewmodel import view_model

# Light, distinct backgrounds; DSL line n takes PALETTE[(n - 1) % len(PALETTE)], 0 (boilerplate) none.
PALETTE = ("#fde2e4", "#e2ece9", "#dfe7fd", "#fff1c1", "#e8dff5", "#d7f3f5", "#fce1c8", "#e4f4d7",
           "#f5d9ec", "#dbe9f6", "#f1ecd9", "#d9f0e3")
STATUS_COLORS = {"pending": "#9e9e9e", "accepted": "#2e7d32", "edited": "#1565c0", "failed": "#c62828",
                 "unchanged": "#bdbdbd", "not-run": "#bdbdbd"}
STATUS_MARKS = {"pending": "○", "accepted": "✓", "edited": "✎", "failed": "✗", "unchanged": "·", "not-run": "–"}
DEFAULT_LINES = 200        # lines shown before "show all"
HARD_CHARS = 120_000       # source characters a pane ever holds; beyond: "open the file"
MONO = "font-family:SFMono-Regular,Menlo,Consolas,monospace;font-size:12px;line-height:1.45"


def dsl_color(dsl_line: int) -> str | None:
    return PALETTE[(dsl_line - 1) % len(PALETTE)] if dsl_line > 0 else None


def highlight(text: str, path: str, max_chars: int = HARD_CHARS) -> list[str]:
    """One HTML fragment per line of `text` (pygments closes its spans at every line end).

    Only the first `max_chars` characters are highlighted (a pane never shows more); later
    lines are escaped plain text, so a multi-megabyte file costs no lexing.
    """
    from pygments import highlight as _highlight
    from pygments.formatters import HtmlFormatter
    if not text:
        return []
    src = text.splitlines(keepends=True)
    head, used = 0, 0
    while head < len(src) and used + len(src[head]) <= max_chars:
        used += len(src[head])
        head += 1
    out = _highlight("".join(src[:head]), lexer_for(path), HtmlFormatter(nowrap=True, noclasses=True, style="default"))
    lines = out.split("\n")[:head] if head else []
    lines += [""] * (head - len(lines))
    return lines + [html.escape(line.rstrip("\r\n")) for line in src[head:]]


@dataclass(frozen=True)
class Row:
    """One displayed line: kind ' ' (context), '+', '-' or '@' (hunk header)."""

    kind: str
    old: int            # 1-based line numbers (0: none)
    new: int
    html: str
    dsl_line: int
    chars: int          # length of the source text (for caps)


def code_rows(text: str, path: str, dsl_lines: Sequence[int]) -> list[Row]:
    src = text.splitlines()
    hl = highlight(text, path)
    return [Row(" ", 0, i + 1, hl[i], dsl_lines[i] if i < len(dsl_lines) else 0, len(src[i])) for i in range(len(src))]


def diff_rows(path: str, before: str, after: str, before_map: Sequence[int], after_map: Sequence[int],
              context: int = 3) -> list[Row]:
    """A unified diff as rows; removed lines keep their DSL line from `before`, others from `after`."""
    a, b = before.splitlines(), after.splitlines()
    ha, hb = highlight(before, path), highlight(after, path)
    rows: list[Row] = []
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(context):
        i1, j1 = group[0][1], group[0][3]
        i2, j2 = group[-1][2], group[-1][4]
        header = f"@@ -{i1 + 1},{i2 - i1} +{j1 + 1},{j2 - j1} @@"
        rows.append(Row("@", 0, 0, html.escape(header), 0, len(header)))
        for tag, x1, x2, y1, y2 in group:
            if tag == "equal":
                rows += [Row(" ", x1 + k + 1, y1 + k + 1, hb[y1 + k], _at(after_map, y1 + k), len(b[y1 + k]))
                         for k in range(x2 - x1)]
                continue
            rows += [Row("-", x + 1, 0, ha[x], _at(before_map, x), len(a[x])) for x in range(x1, x2)]
            rows += [Row("+", 0, y + 1, hb[y], _at(after_map, y), len(b[y])) for y in range(y1, y2)]
    return rows


def _at(m: Sequence[int], i: int) -> int:
    return m[i] if i < len(m) else 0


def pane(rows: list[Row], *, dsl_source: Sequence[str] = (), limit_lines: int = DEFAULT_LINES,
         hard_chars: int = HARD_CHARS, focus: int = 0, expandable: bool = True, max_height: str = "") -> str:
    """Rows as a monospace block. Past `limit_lines`: a <details> "show all" (static HTML) or a note."""
    shown, rest, dropped, used = [], [], 0, 0
    for r in rows:
        used += r.chars + 1
        if used > hard_chars:
            dropped += 1
        elif len(shown) < limit_lines:
            shown.append(r)
        elif expandable:
            rest.append(r)
        else:
            dropped += 1
    body = "".join(_row(r, dsl_source, focus) for r in shown)
    if rest:
        body += (f'<details><summary style="cursor:pointer;color:#1565c0">show all ({len(rest)} more lines)</summary>'
                 + "".join(_row(r, dsl_source, focus) for r in rest) + "</details>")
    if dropped:
        body += (f'<div style="color:#8d6e63;padding:2px 4px">… {dropped} more lines not shown here '
                 "(large output is capped; open the file in the session folder)</div>")
    style = (f"{MONO};white-space:pre;overflow:auto;border:1px solid #e0e0e0;border-radius:3px;"
             "width:100%;max-width:100%;min-width:0;box-sizing:border-box")
    if max_height:
        style += f";max-height:{max_height}"
    return f'<div style="{style}">{body or _empty()}</div>'


def _empty() -> str:
    return '<div style="color:#9e9e9e;padding:2px 4px">(empty)</div>'


MARK_STYLE = {"+": "color:#2e7d32;font-weight:bold", "-": "color:#c62828;font-weight:bold", " ": "color:#bdbdbd",
              "@": "color:#6a1b9a"}


# A line's text: wrapped at spaces, a token longer than the pane broken anywhere.
WRAP = "white-space:pre-wrap;overflow-wrap:anywhere;min-width:0;flex:1 1 auto"


def _row(r: Row, dsl_source: Sequence[str], focus: int) -> str:
    if r.kind == "@":
        return f'<div style="color:#6a1b9a;background:#f3e5f5;padding:0 4px;{WRAP}">{r.html}</div>'
    color = dsl_color(r.dsl_line)
    style = ["display:flex", f"background:{color}" if color else ""]
    if focus:
        style.append("outline:1px solid #37474f" if r.dsl_line == focus else "opacity:0.35")
    if r.kind == "-":
        style.append("text-decoration:line-through;text-decoration-color:#e57373")
    title = ""
    if r.dsl_line:
        quoted = dsl_source[r.dsl_line - 1].strip() if 0 < r.dsl_line <= len(dsl_source) else ""
        title = f' title="{html.escape(f"DSL line {r.dsl_line}: {quoted}", quote=True)}"'
    number = r.new or r.old
    gutter = (f'<span style="color:#9e9e9e;flex:none;width:3.2em;text-align:right;'
              f'padding-right:6px;user-select:none">{number or ""}</span>')
    mark = (f'<span style="{MARK_STYLE[r.kind]};flex:none;width:2ch;user-select:none">'
            f'{r.kind if r.kind != " " else " "}</span>')
    text = f'<span style="{WRAP}">{r.html or " "}</span>'
    return f'<div style="{";".join(s for s in style if s)}"{title}>{gutter}{mark}{text}</div>'


def dsl_rows(dsl: str) -> list[Row]:
    """The draft itself: every line is its own DSL line (coloured when it produced C++)."""
    return code_rows(dsl, "kernel.dsl.py", list(range(1, len(dsl.splitlines()) + 1)))


def used_dsl_lines(lab) -> set[int]:
    lines: set[int] = set()
    for s in lab.steps:
        for m in s.bundle.source_map.values():
            lines.update(m)
    lines.discard(0)
    return lines


def dsl_pane(lab, *, focus: int = 0, limit_lines: int = DEFAULT_LINES, expandable: bool = True,
             max_height: str = "") -> str:
    used = used_dsl_lines(lab)
    rows = [r if r.dsl_line in used else Row(r.kind, r.old, r.new, r.html, 0, r.chars) for r in dsl_rows(lab.dsl)]
    # Keep the tooltip off for the draft itself: a line quoting itself adds nothing.
    return pane(rows, limit_lines=limit_lines, focus=focus, expandable=expandable, max_height=max_height)


def step_diff_panes(lab, step, *, focus: int = 0, limit_lines: int = DEFAULT_LINES, expandable: bool = True,
                    max_height: str = "") -> str:
    """Every file the step changed, as a diff against the previous step."""
    src = lab.dsl.splitlines()
    before = step.previous
    parts = []
    for d in step.diffs:
        b_text = before.files.get(d.path, "") if before else ""
        a_text = step.bundle.files.get(d.path, "")
        rows = diff_rows(d.path, b_text, a_text, before.source_map.get(d.path, ()) if before else (),
                         step.bundle.source_map.get(d.path, ()))
        parts.append(f'<div style="{MONO};font-weight:bold;margin:6px 0 2px">{html.escape(d.path)} '
                     f'<span style="color:#2e7d32">+{d.added}</span> '
                     f'<span style="color:#c62828">-{d.removed}</span></div>'
                     + pane(rows, dsl_source=src, limit_lines=limit_lines, focus=focus, expandable=expandable,
                            max_height=max_height))
    return "".join(parts) or f'<div style="color:#9e9e9e">pass {step.number} changed nothing</div>'


def file_pane(lab, bundle, path: str, *, focus: int = 0, limit_lines: int = DEFAULT_LINES, expandable: bool = True,
              max_height: str = "") -> str:
    rows = code_rows(bundle.files[path], path, bundle.source_map.get(path, ()))
    return pane(rows, dsl_source=lab.dsl.splitlines(), limit_lines=limit_lines, focus=focus, expandable=expandable,
                max_height=max_height)


def status_badge(status: str, label: str | None = None) -> str:
    color = STATUS_COLORS.get(status, "#9e9e9e")
    return (f'<span style="color:{color};font-weight:bold" title="{status}">{STATUS_MARKS.get(status, "?")} '
            f'{html.escape(label or status)}</span>')


def explain_html(lab, view) -> str:
    """What the pass did and why, its findings and conflicts, and notes (a StepView of the selected step)."""
    timing = f", {view.seconds * 1000:.1f} ms, {html.escape(view.engine)} engine" if view.status != "not-run" else ""
    badge = status_badge(view.status, view.label)
    parts = [f'<div style="font-weight:bold">pass {view.number} · {view.name} — {badge} '
             f'<span style="color:#616161;font-weight:normal">{view.stat or "not run"}{timing}</span></div>',
             f'<div style="margin:4px 0"><i>{html.escape(view.reason)}.</i></div>',
             f'<div style="margin:4px 0;color:#37474f">{html.escape(view.explain)}</div>']
    if view.name in ("host", "init") and lab.tiling:
        parts.append(f'<pre style="{MONO};background:#fafafa;padding:4px;margin:4px 0">'
                     f'{html.escape(lab.tiling_text())}</pre>')
    for f in view.findings:
        parts.append(f'<pre style="{MONO};color:#b71c1c;background:#ffebee;padding:4px;margin:4px 0;'
                     f'white-space:pre-wrap">{html.escape(f["text"])}</pre>')
    for c in view.conflicts:
        parts.append(f'<div style="color:#e65100">conflict in {html.escape(c["path"])}:{c["line"]}: your edit and the '
                     f'regenerated text overlap; both are kept between <code>&lt;&lt;&lt;&lt;&lt;&lt;&lt;</code> '
                     f'markers — edit pass {view.number} to resolve it, or undo the earlier edit</div>')
    for n in view.notes:
        parts.append(f'<div style="color:#5d4037">note: {html.escape(n)}</div>')
    return "".join(parts)


def not_run_html(view) -> str:
    """A pass that did not run: why (the view model's reason)."""
    return f'<div style="color:#9e9e9e">{html.escape(view.actions["accept"].why_not)}</div>'


def status_line_html(status) -> str:
    """The view model's status line: where the pipeline stands and what to do next."""
    color = {"failed": "#b71c1c", "verified": "#1b5e20", "wrong": "#b71c1c", "stale": "#e65100",
             "draft-error": "#b71c1c"}.get(status.state, "#616161")
    return (f'<div style="color:{color}" data-status="{status.state}">'
            f'{html.escape(status.text).replace("Compile &amp; verify", "<b>Compile &amp; verify</b>")}</div>')


def verdict_html(lab, model=None) -> str:
    """The last run's verdict, or before any run the view model's status line."""
    model = model if model is not None else view_model(lab)
    r = lab.result
    if r is None:
        return status_line_html(model.status)
    color, bg = ("#1b5e20", "#e8f5e9") if r.correct else ("#b71c1c", "#ffebee")
    stale = "" if r.current else status_line_html(model.status)
    detail = f'<pre style="{MONO};white-space:pre-wrap;margin:4px 0">{html.escape(r.detail)}</pre>' if r.detail else ""
    timing = ", ".join(f"{k} {v:.2f}" if isinstance(v, float) else f"{k} {v}" for k, v in r.timings.items())
    return (f'<div style="border-left:4px solid {color};background:{bg};padding:6px 8px;margin:4px 0">'
            f'<div style="color:{color};font-weight:bold">{"✓ verified" if r.correct else "✗ not verified"} '
            f'on the {html.escape(r.backend)} ({html.escape(r.soc)})</div>'
            f'<pre style="{MONO};white-space:pre-wrap;margin:4px 0">{html.escape(r.summary)}</pre>{detail}{stale}'
            f'<div style="color:#757575;font-size:11px">{html.escape(timing)}</div></div>')


def pass_table(model) -> str:
    """The four passes as the view model lists them (a pass that did not run says why)."""
    def row(cells: list, last: str, attrs: str = "") -> str:
        # Short cells ("1.4 ms", "✓ accepted") stay on one line; only the description wraps.
        return (f"<tr{attrs}>" + "".join(f'<td style="padding:1px 8px;white-space:nowrap">{c}</td>' for c in cells)
                + f'<td style="padding:1px 8px">{last}</td></tr>')

    rows = []
    for s in model.steps:
        if s.status == "not-run":
            rows.append(row([s.number, s.name, html.escape(s.label), "", ""], html.escape(s.actions["accept"].why_not),
                            ' style="color:#9e9e9e"'))
            continue
        rows.append(row([s.number, f"<b>{s.name}</b>", status_badge(s.status, s.label),
                         f'<span style="{MONO}"><span style="color:#2e7d32">+{s.added}</span> '
                         f'<span style="color:#c62828">-{s.removed}</span></span>',
                         f"{s.seconds * 1000:.1f} ms"], html.escape(s.reason)))
    head = "".join(f'<th style="padding:1px 8px">{h}</th>'
                   for h in ("#", "pass", "status", "lines", "time", "what it adds"))
    return f'<table style="border-collapse:collapse;text-align:left"><tr>{head}</tr>{"".join(rows)}</table>'


def header_html(lab) -> str:
    error = getattr(lab, "draft_error", None)
    shown = (f'<pre class="acl-draft-error" style="{MONO};white-space:pre-wrap;overflow-wrap:break-word;'
             f'border-left:4px solid #b71c1c;background:#ffebee;padding:4px 8px;margin:4px 0">'
             f'{html.escape(error.text)}</pre>') if error is not None else ""
    return (f'<div style="font-size:14px"><b>{html.escape(lab.name)}</b> '
            f'<span style="color:#616161">— {html.escape(lab.soc)}, {html.escape(lab.engine)} engine, '
            f'session folder <code>{html.escape(str(lab.folder.path))}</code></span></div>' + shown
            + "".join(f'<div style="color:#5d4037">note: {html.escape(n)}</div>' for n in lab.notes))


def static_html(lab, *, limit_lines: int = DEFAULT_LINES) -> str:
    """The whole pipeline as one self-contained page (for nbconvert, GitHub, and as a fallback)."""
    model = view_model(lab)
    parts = [f'<div style="font-family:system-ui,sans-serif;font-size:13px">{header_html(lab)}', pass_table(model),
             f'<details open><summary style="cursor:pointer"><b>DSL draft</b> (kernel.dsl.py)</summary>'
             f"{dsl_pane(lab, limit_lines=limit_lines)}</details>"]
    for s in lab.steps:
        view = model.step(s.name)
        parts.append(f'<details><summary style="cursor:pointer"><b>pass {s.number} · {s.name}</b> '
                     f"{status_badge(view.status, view.label)} {s.stat}</summary>{explain_html(lab, view)}"
                     f"{step_diff_panes(lab, s, limit_lines=limit_lines)}</details>")
    final = lab.final
    if final is not None:
        files = "".join(f'<details><summary style="cursor:pointer;{MONO}">{html.escape(p)}</summary>'
                        f"{file_pane(lab, final, p, limit_lines=limit_lines)}</details>" for p in final.files)
        parts.append(f'<details><summary style="cursor:pointer"><b>final AscendC project</b> '
                     f"({len(final.files)} files)</summary>{files}</details>")
    parts.append(verdict_html(lab, model))
    parts.append("</div>")
    return "".join(parts)
