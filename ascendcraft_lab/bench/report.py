"""The bench report: a JSON document, a self-contained HTML page (inline SVG, no JS) and a
Markdown page (the same figures as plain tables, for notes and reviews).

The HTML shows the figures per category and overall, a bar chart per category (Comp@1 and
Pass@1 for each shape), one row per op with its template, verdicts, errors and log, and the
method: the correctness rule, the integrity checks and the timing method, in words.
"""
from __future__ import annotations

import html
import json
from pathlib import Path

from ..atomic import write_text
from ..perf import costs_for
from ..perf.model import assumptions

INTEGRITY = [
    "Each op runs in its own worker process, and the reference in a further child; a crash, hang or exception "
    "is that op's failure (with its log), never the run's.",
    "Correct = every output within rtol = tol and atol = tol x rms(reference) of PyTorch (tol 1e-4 for fp32, "
    "1e-2 for fp16) on all input sets (seeds 0-4, MultiKernelBench's protocol), no emulator sanitizer finding, "
    "and inputs bit-identical after the kernel ran. An all-zero or constant output fails whenever the "
    "reference is not. MultiKernelBench's plain allclose is recorded per output as well (mkb_allclose). "
    "A float32 output that misses PyTorch's float32 answer is compared once more with the reference run in "
    "float64 (PyTorch's float32 torch.norm of 67 M floats is 0.5 % off the exact value); a pass that way is "
    "marked reference = float64 in results.json and said in the op's log.",
    "The reference's forward gets clones of the inputs; the inputs the kernel gets are the copies saved "
    "before forward ran (a reference that modifies its inputs cannot change what the kernel is given).",
    "A kernel cannot call back into PyTorch: the generated kernel is C++ compiled with g++ against the "
    "emulator's AscendC headers only, linked without libtorch or Python, and the DSL it comes from has no "
    "escape hatch (it is parsed, never executed). The kernel sources are also scanned for torch/ATen/Python "
    "symbols; a hit would fail the op (kernel_calls_torch).",
]
TIMING = ("Timing (informational, NOT an NPU speed): the emulator's kernel time is the wall time of running all "
          "blocks of the kernel on {threads} CPU threads, as the emulator reports it (kernel_s; compile and "
          "argument transfer excluded), median over the input sets. PyTorch eager is Model.forward on the same "
          "CPU, {threads} threads, under no_grad: 3 warm-up calls, then the median of 10 timed calls "
          "(time.perf_counter). The ratio is eager time / emulator time; on an NPU host the CANN backend "
          "would time the real kernel with NPU events (Fast_p).")


def write_json(path: Path, doc: dict) -> None:
    """The bench's results document (indent 1; values JSON cannot hold as their text), written atomically."""
    write_text(path, json.dumps(doc, indent=1, default=str))


def _pct(x) -> str:
    return f"{100 * x:.1f}%"


def _ratio(x) -> str:
    return "" if x is None else f"{x:.3g}"


def _chart(summary: dict) -> str:
    cats = list(summary["categories"]) + ["overall"]
    shapes = summary["shapes"]
    series = [(s, k) for s in shapes for k in ("comp@1", "pass@1")]
    colors = {("comp@1", 0): "#9ecae1", ("pass@1", 0): "#3182bd", ("comp@1", 1): "#a1d99b", ("pass@1", 1): "#31a354"}
    bw, gap, top, height, left = 16, 28, 20, 180, 40
    group = bw * len(series) + gap
    width = left + group * len(cats) + 20
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{top + height + 60}" '
           f'role="img" aria-label="Comp@1 and Pass@1 per category">']
    for y in (0, 0.25, 0.5, 0.75, 1.0):
        yy = top + height * (1 - y)
        out.append(f'<line x1="{left}" x2="{width - 10}" y1="{yy}" y2="{yy}" stroke="#ddd"/>'
                   f'<text x="{left - 4}" y="{yy + 4}" font-size="10" text-anchor="end">{int(y * 100)}%</text>')
    for gi, c in enumerate(cats):
        figs = summary["overall"] if c == "overall" else summary["categories"][c]
        x0 = left + gi * group + gap / 2
        for si, (shape, key) in enumerate(series):
            v = figs.get(shape, {}).get(key, 0.0)
            h = height * v
            color = colors.get((key, shapes.index(shape) % 2), "#888")
            out.append(f'<rect x="{x0 + si * bw}" y="{top + height - h}" width="{bw - 2}" height="{h}" fill="{color}">'
                       f'<title>{html.escape(c)} {shape} {key}: {_pct(v)}</title></rect>')
        out.append(f'<text x="{x0 + len(series) * bw / 2}" y="{top + height + 16}" font-size="12" '
                   f'text-anchor="middle">{html.escape(c)}</text>')
    lx = left
    for si, (shape, key) in enumerate(series):
        color = colors.get((key, shapes.index(shape) % 2), "#888")
        out.append(f'<rect x="{lx}" y="{top + height + 32}" width="10" height="10" fill="{color}"/>'
                   f'<text x="{lx + 14}" y="{top + height + 41}" font-size="11">{shape} {key}</text>')
        lx += 130
    out.append("</svg>")
    return "\n".join(out)


def render_html(doc: dict) -> str:
    meta, summary, results = doc["meta"], doc["summary"], doc["results"]
    shapes = summary["shapes"]
    e = html.escape
    rows = []
    for c, figs in list(summary["categories"].items()) + [("overall", summary["overall"])]:
        cells = "".join(f"<td>{figs[s]['compiled']}/{figs[s]['ops']} ({_pct(figs[s]['comp@1'])})</td>"
                        f"<td><b>{figs[s]['correct']}/{figs[s]['ops']} ({_pct(figs[s]['pass@1'])})</b></td>"
                        f"<td>{_ratio(figs[s]['emu_vs_eager_geomean'])}</td>"
                        f"<td>{_ratio(figs[s].get('est_speedup_geomean'))}</td><td>{_roof(figs[s])}</td>"
                        for s in shapes)
        rows.append(f"<tr><th>{e(c)}</th>{cells}</tr>")
    head = "".join(f"<th>{s} Comp@1</th><th>{s} Pass@1</th><th>{s} eager/emu (geo-mean)</th>"
                   f"<th>{s} est. speedup (geo-mean)</th><th>{s} roofline (geo-mean / median)</th>" for s in shapes)
    op_rows = []
    for r in results:
        cells = []
        for s in shapes:
            sr = r["shapes"].get(s, {})
            verdict = "correct" if sr.get("correct") else ("compiled" if sr.get("compiled") else "failed")
            cls = {"correct": "ok", "compiled": "warn", "failed": "bad"}[verdict]
            detail = "" if sr.get("correct") else f"{sr.get('stage', '')}: {sr.get('error', '')}"
            ratio = sr.get("speed_ratio")
            est = sr.get("estimate") or {}
            speedup = f', {est["speedup"]:.2g}x est. eager' if est.get("speedup") else ""
            roof = f", {_roof_op(est)} of the roofline" if est.get("roofline_fraction") is not None else ""
            guess = (f'<div class="est">ESTIMATED on the NPU: {_micro(est["kernel_s"])}, {e(est["bound_pipe"])}-bound'
                     + speedup + e(roof) + "</div>") if est.get("kernel_s") else ""
            cells.append(f'<td class="{cls}">{verdict}{f" ({ratio:.2g}x)" if ratio else ""}{guess}'
                         f'<div class="err">{e(detail)}</div></td>')
        tmpl = (r.get("draft") or {}).get("template", "")
        if r.get("llm"):
            u = r["llm"]
            tmpl += f" · {u['calls']} LLM calls, {u['tokens_in'] + u['tokens_out']} tokens"
        log = r.get("log", "")
        op_rows.append(f"<tr><td>{e(r['category'])}</td><td>{e(r['op'])}</td><td>{e(tmpl)}</td>{''.join(cells)}"
                       f"<td>{r.get('seconds', '')}</td><td><a href=\"{e(log)}\">log</a></td></tr>")
    model = "Estimated NPU times (ESTIMATES, not measurements): " + " ".join(assumptions(costs_for(meta["soc"])))
    notes = "".join(f"<li>{e(x)}</li>" for x in INTEGRITY + [TIMING.format(threads=meta.get("threads", "?")), model])
    return f"""<!doctype html>
<html><head><meta charset="utf-8"><title>AscendCraft bench: {e(meta['suite'])}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em; color: #222; }}
table {{ border-collapse: collapse; margin: 1em 0; }}
td, th {{ border: 1px solid #ccc; padding: 4px 8px; vertical-align: top; }}
td.ok {{ background: #e5f5e0; }} td.warn {{ background: #fff7bc; }} td.bad {{ background: #fee0d2; }}
.err {{ font-size: 11px; color: #555; max-width: 40em; }} .meta {{ color: #555; }}
.est {{ font-size: 11px; color: #31527a; }}
</style></head><body>
<h1>AscendCraft bench: {e(meta['suite'])}</h1>
<p class="meta">{e(meta['command'])}<br>
{e(meta['started'])} &middot; {meta['seconds']:.0f} s &middot; draft {e(meta['draft'])},
engine {e(meta['engine'])}, backend {e(meta['backend'])}, SoC {e(meta['soc'])}, inputs {e(meta['dtype'])},
seeds {e(str(meta['seeds']))}, {meta['jobs']} parallel op(s){e(_where(meta))}</p>
<h2>Per category</h2>
<table><tr><th>category</th>{head}</tr>{''.join(rows)}</table>
{_chart(summary)}
{_sensitivity_html(summary, meta)}
<h2>Per op</h2>
<table><tr><th>category</th><th>op</th><th>template</th>
{''.join(f'<th>{s}</th>' for s in shapes)}<th>s</th><th></th></tr>
{''.join(op_rows)}</table>
<h2>Method</h2><ul>{notes}</ul>
</body></html>
"""


def _where(meta: dict) -> str:
    """Where the ops ran, when it was not this machine's local pool."""
    ex = meta.get("executor") or {}
    return f", on the Ray cluster at {ex['address']} ({ex['nodes']} nodes)" if ex.get("kind") == "ray" else ""


def _seconds(x) -> str:
    if x is None:
        return ""
    return f"{x * 1e3:.3g} ms" if x < 1 else f"{x:.3g} s"


def _micro(x) -> str:
    return "" if x is None else f"{x * 1e6:.3g} us"


def _roof(figs: dict) -> str:
    g, m = figs.get("roofline_geomean"), figs.get("roofline_median")
    return "" if g is None else f"{_pct(g)} / {_pct(m)}"


def _roof_op(est: dict) -> str:
    f = est.get("roofline_fraction")
    return "" if f is None else f"{_pct(f)} ({est.get('roofline_bound', '')})"


def _sensitivity_lines(summary: dict, meta: dict) -> list[str]:
    """One line per uncertain cost parameter: the estimated Fast_1 (and geo-mean speedup) with it halved and
    doubled, beside today's; the parameters that move Fast_1 most first. Values as the run recorded them (a
    results document older than that record: today's table)."""
    params = meta.get("costs") or costs_for(meta["soc"]).table()
    out = []
    for shape, table in (summary.get("sensitivity") or {}).items():
        if not table:
            continue
        base = summary["overall"][shape]
        fast, geo = base.get("est_fast>1.0", 0.0), base.get("est_speedup_geomean")
        out += ["", f"**Sensitivity ({shape} shape; ESTIMATES):** estimated Fast_1 {_pct(fast)}, geo-mean speedup "
                f"{_ratio(geo)} with the table as it is; with one parameter halved / doubled (the others unchanged):",
                ""]

        def move(name):   # how far Fast_1, then the geo-mean, moves (the geo-mean to the report's 3 digits)
            vs = table[name].values()
            return (max(abs(v["est_fast>1.0"] - fast) for v in vs),
                    max(abs(float(_ratio(v["est_speedup_geomean"]) or 0) - float(_ratio(geo) or 0)) for v in vs))
        still = sorted(n for n in table if move(n) == (0, 0))
        for name in sorted((n for n in table if n not in still), key=lambda n: tuple(-m for m in move(n)) + (n,)):
            p = params.get(name)
            what = f"{p['value']:g} {p['unit']}, {p['kind']}" if p else "?"
            cells = "; ".join(f"x{f}: Fast_1 {_pct(v['est_fast>1.0'])}, geo-mean {_ratio(v['est_speedup_geomean'])}"
                              for f, v in table[name].items())
            out.append(f"- `{name}` ({what}): {cells}")
        if still:
            out.append(f"- no visible change: {', '.join(f'`{n}`' for n in still)}")
    return out


def _sensitivity_html(summary: dict, meta: dict) -> str:
    """The markdown's sensitivity lines as HTML: a paragraph per shape and its list."""
    out, items = [], []
    for line in _sensitivity_lines(summary, meta) + [""]:
        if line.startswith("- "):
            items.append(f"<li>{html.escape(line[2:]).replace('`', '')}</li>")
            continue
        if items:
            out.append(f"<ul>{''.join(items)}</ul>")
            items = []
        if line:
            out.append(f"<p>{html.escape(line).replace('**', '')}</p>")
    return ("<h2>Sensitivity of the estimate</h2>" + "".join(out)) if out else ""


def render_markdown(doc: dict) -> str:
    """Per category and per op: verdicts, and the emulator's kernel time beside PyTorch eager's."""
    meta, summary, results = doc["meta"], doc["summary"], doc["results"]
    shapes = summary["shapes"]
    out = [f"# AscendCraft bench: {meta['suite']}", "",
           f"`{meta['command']}` ({meta['started']}, {meta['seconds']:.0f} s; draft {meta['draft']}, engine "
           f"{meta['engine']}, backend {meta['backend']}, SoC {meta['soc']}, inputs {meta['dtype']}, "
           f"seeds {meta['seeds']}, {meta.get('threads', '?')} CPU threads{_where(meta)})", "",
           "**Estimated NPU times are ESTIMATES** (the pipe model of `ascendcraft_lab/perf` over the emulator's "
           "trace of seed 0; est. eager = each aten op of the reference as one roofline kernel plus a launch). "
           "The model assumes:", ""]
    out += [f"- {a}" for a in assumptions(costs_for(meta["soc"]))]
    out += ["", "## Per category", "",
            "| category | " + " | ".join(f"{s} Comp@1 | {s} Pass@1 | {s} eager/emu | {s} est. speedup | "
                                         f"{s} est. Fast_1 | {s} roofline (geo-mean / median)" for s in shapes) + " |",
            "|---" * (1 + 6 * len(shapes)) + "|"]
    for c, figs in list(summary["categories"].items()) + [("**overall**", summary["overall"])]:
        cells = " | ".join(f"{figs[s]['compiled']}/{figs[s]['ops']} | {figs[s]['correct']}/{figs[s]['ops']} "
                           f"({_pct(figs[s]['pass@1'])}) | {_ratio(figs[s]['emu_vs_eager_geomean'])} | "
                           f"{_ratio(figs[s].get('est_speedup_geomean'))} | {_pct(figs[s].get('est_fast>1.0', 0.0))} | "
                           f"{_roof(figs[s])}" for s in shapes)
        out.append(f"| {c} | {cells} |")
    out += _sensitivity_lines(summary, meta)
    out += ["", "## Per op", "",
            "Emulator kernel time (all blocks on the CPU, median over the seeds) against PyTorch eager on the "
            "same CPU; ratio = eager / emulator (NOT an NPU speed). Then the ESTIMATED NPU kernel time, its bound "
            "pipe, the ESTIMATED speedup vs ESTIMATED eager on the same SoC, and the roofline fraction: the kernel's "
            "own floor on the whole chip (its GM bytes at the HBM bandwidth, its vector / cube work spread over every "
            "core, whichever is longest) over its estimated time on the cores (launch aside).", "",
            "| category | op | template | "
            + " | ".join(f"{s} | {s} emulator | {s} eager | {s} ratio | {s} est. time | {s} bound | {s} est. speedup | "
                         f"{s} roofline" for s in shapes) + " |",
            "|---" * (3 + 8 * len(shapes)) + "|"]
    for r in results:
        cells = []
        for s in shapes:
            sr = r["shapes"].get(s, {})
            verdict = "correct" if sr.get("correct") else f"FAIL ({sr.get('stage', '?')})"
            t = sr.get("timing") or {}
            est = sr.get("estimate") or {}
            cells.append(f"{verdict} | {_seconds(t.get('emulator_kernel_s'))} | {_seconds(t.get('torch_eager_s'))} | "
                         f"{_ratio(sr.get('speed_ratio'))} | {_micro(est.get('kernel_s'))} | "
                         f"{est.get('bound_pipe', '')} | {_ratio(est.get('speedup'))} | {_roof_op(est)}")
        tmpl = (r.get("draft") or {}).get("template", "")
        out.append(f"| {r['category']} | {r['op']} | {tmpl} | {' | '.join(cells)} |")
    failures = [(r, s, r["shapes"][s]) for r in results for s in shapes
                if s in r["shapes"] and not r["shapes"][s].get("correct")]
    if failures:
        out += ["", "## Failures", ""]
        out += [f"- {r['category']}/{r['op']} ({s}): {sr.get('stage', '')}: {sr.get('error', '')}"
                for r, s, sr in failures]
    return "\n".join(out) + "\n"
