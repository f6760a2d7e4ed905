"""A kernel's estimated profile beside the estimated eager time of its reference, as text and JSON.

Used by `ascendcraft profile SESSION`, the bench report and the notebook's Profile view. Every
number is labelled an ESTIMATE: it comes from the pipe model (`model.py`) and the cost table
(`costs.py`), not from an NPU.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .eager import EagerEstimate
from .model import Estimate

PIPE_ORDER = ("MTE2", "V", "MTE3", "S", "MTE1", "M", "FIX")


@dataclass
class Profile:
    kernel: Estimate
    eager: EagerEstimate | None = None
    name: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def speedup(self) -> float | None:
        """Estimated eager time / estimated kernel time (> 1: the kernel is estimated faster)."""
        if self.eager is None or not self.eager.ops or self.kernel.kernel_s <= 0:
            return None
        return self.eager.seconds / self.kernel.kernel_s

    def to_dict(self, *, blocks: int = 4) -> dict:
        return {"estimate": True, "name": self.name, "notes": self.notes, "kernel": self.kernel.to_dict(blocks=blocks),
                "eager": self.eager.to_dict() if self.eager else None, "speedup": self.speedup}

    def text(self, *, blocks: int = 8, timelines: int = 2) -> str:
        k = self.kernel
        of = f" of {self.name}" if self.name else ""
        lines = [f"ESTIMATED profile{of} on {k.soc} (pipe model of the emulator's trace; not a measurement)",
                 f"  kernel       {_us(k.kernel_s)} estimated ({_us(k.launch_s)} launch + {_us(k.device_s)} on "
                 f"{len(k.blocks)} block(s), {k.cores_used} core(s) busy)",
                 f"  bound pipe   {k.bound_pipe}; overlap of pipes {k.overlap:.0%} of the block time",
                 f"  GM traffic   {_bytes(k.gm_bytes)} at {k.achieved_bandwidth / 1e9:.0f} GB/s = "
                 f"{k.roofline['bandwidth_fraction']:.0%} of the chip's bandwidth; "
                 f"roofline: {k.roofline['bound']}-bound "
                 f"(floors: memory {_us(k.roofline['gm_floor_s'])}, vector {_us(k.roofline['vector_floor_s'])}, "
                 f"cube {_us(k.roofline['cube_floor_s'])})"]
        if self.eager is not None:
            lines.append(f"  eager        {_us(self.eager.seconds)} estimated for {len(self.eager.ops)} aten op(s) "
                         f"(each at its roofline + {_us(self.eager.launch_s)} launch)")
            if self.speedup is not None:
                lines.append(f"  speedup      {self.speedup:.2f}x ESTIMATED (estimated eager / estimated kernel)")
        lines += [f"  note         {n}" for n in self.notes]
        pipes = [p for p in PIPE_ORDER if any(p in b.busy for b in k.blocks)]
        lines.append("  per block (busy fraction of each pipe; ESTIMATED):")
        lines.append("    block  core  time        bound  overlap  " + "  ".join(f"{p:>5}" for p in pipes))
        for b in k.blocks[:blocks]:
            frac = b.busy_fraction
            lines.append(f"    {b.label:>5}  {b.core:>4}  {_us(b.elapsed):>10}  {b.bound_pipe:>5}  {b.overlap:>7.0%}  "
                         + "  ".join(f"{frac.get(p, 0.0):>5.0%}" for p in pipes)
                         + ("  (trace cut)" if b.truncated else ""))
        if len(k.blocks) > blocks:
            lines.append(f"    ... {len(k.blocks) - blocks} more block(s)")
        for b in [b for b in k.blocks if b.spans][:timelines]:
            lines += ["  " + ln for ln in timeline_text(b)]
        lines.append("  assumptions:")
        lines += [f"    - {a}" for a in k.assumptions]
        return "\n".join(lines)


    def summary(self) -> list[str]:
        """The profile in a few lines, for a newcomer: the estimated kernel time, the pipe that
        bounds it, how close it is to its roofline, the estimated eager time, and what to try
        next. Blocks that look alike are one line; every number is said to be an ESTIMATE."""
        k = self.kernel
        floor_name = k.roofline["bound"]
        floor = k.roofline[f"{'gm' if floor_name == 'memory' else floor_name}_floor_s"]
        busy = _pipe_share(k)
        of = f" of {self.name}" if self.name else ""
        lines = [f"ESTIMATED profile{of} on {k.soc} (pipe model of the emulator's trace; not measured on an NPU)",
                 f"  kernel     {_us(k.kernel_s)} = {_us(k.launch_s)} launch + {_us(k.device_s)} on "
                 f"{k.cores_used} core(s); {_blocks_line(k.blocks)}",
                 f"  bound by   {k.bound_pipe} ({PIPE_ROLE.get(k.bound_pipe, k.bound_pipe)}), busy "
                 f"{busy.get(k.bound_pipe, 0.0):.0%} of the block time; pipes overlap {k.overlap:.0%}",
                 f"  roofline   at {_fraction(floor, k.device_s)} of it (the {floor_name} floor, {_us(floor)}, "
                 f"over the {_us(k.device_s)} on the cores), {k.roofline['fraction']:.0%} of the whole chip's "
                 f"({k.roofline['chip_bound']}, {_us(k.roofline['floor_s'])}); "
                 f"GM traffic {_bytes(k.gm_bytes)} at {k.roofline['bandwidth_fraction']:.0%} of the chip's bandwidth"]
        if self.eager is not None and self.speedup is not None:
            lines.append(f"  vs eager   {_us(self.eager.seconds)} estimated for {len(self.eager.ops)} aten op(s): "
                         f"speedup {self.speedup:.2f}x ESTIMATED (the kernel is estimated "
                         f"{'faster' if self.speedup >= 1 else 'slower'})")
        lines += [f"  note       {n}" for n in self.notes]
        tips = self.next_steps()
        lines += [f"  try next   {t}" if i == 0 else f"             {t}" for i, t in enumerate(tips)]
        return lines

    def next_steps(self) -> list[str]:
        """What to try next, read off the estimate (suggestions; the model's assumptions apply)."""
        k = self.kernel
        tips = []
        if k.device_s > 0 and k.launch_s > k.device_s:
            tips.append(f"the launch ({_us(k.launch_s)}) costs more than the work: a larger problem, or this kernel "
                        "fused with its neighbours, is where time is won")
        tips.append(_PIPE_TIP.get(k.bound_pipe, f"the {k.bound_pipe} pipe bounds it: give it less to do"))
        if k.overlap < 0.5 and k.bound_pipe in ("MTE2", "V", "MTE3"):
            tips.append(f"pipes overlap only {k.overlap:.0%}: copies and compute mostly wait for each other; queues "
                        "of depth 2 (double buffering) and no scalar read of a vector result inside the tile loop "
                        "let them run together")
        return tips

    def html(self, *, blocks: int = 3) -> str:
        """The summary and a pipe timeline of the first blocks, as one self-contained HTML fragment."""
        import html as h
        shown = [b for b in self.kernel.blocks if b.spans][:blocks]
        svg = timeline_svg(shown) if shown else ""
        # The timeline is drawn wide (1 px per ~1/600 of the block time) in a scrolling box: scroll to zoom in.
        return (f'<div class="acl-profile"><pre style="white-space:pre-wrap">{h.escape(self.text(timelines=0))}</pre>'
                f'<div style="overflow-x:auto;max-width:100%">{svg}</div></div>')

    def _repr_html_(self) -> str:
        return self.html()

    def timeline(self, *, blocks: int = 3) -> dict:
        """The pipe timelines of the first blocks the model kept spans of, as data (`timeline_data`)."""
        return timeline_data([b for b in self.kernel.blocks if b.spans][:blocks])


def timeline_text(b, width: int = 64) -> list[str]:
    """One row per pipe of one block: '#' where the pipe is busy for most of the column."""
    end = max((s.end for s in b.spans), default=0.0)
    t0 = b.start
    span = max(end - t0, 1e-12)
    pipes = [p for p in PIPE_ORDER if any(s.pipe == p for s in b.spans)]
    out = [f"timeline of block {b.label} ({_us(span)}, one column = {_us(span / width)}; ESTIMATED):"]
    for p in pipes:
        busy = [0.0] * width
        for s in b.spans:
            if s.pipe != p:
                continue
            a, z = (s.start - t0) / span * width, (s.end - t0) / span * width
            for col in range(int(a), min(width, int(z) + 1)):
                busy[col] += max(0.0, min(z, col + 1) - max(a, col))
        out.append(f"  {p:<5}|" + "".join("#" if x >= 0.5 else ("." if x > 0 else " ") for x in busy) + "|")
    return out


_COLOURS = {"MTE2": "#3182bd", "V": "#e6550d", "MTE3": "#31a354", "S": "#969696", "MTE1": "#756bb1", "M": "#d62728",
            "FIX": "#8c6d31"}


def timeline_data(blocks) -> dict:
    """The pipe timelines of a few blocks as data: per block, per pipe that ran, its spans
    [start s, end s, API, kernel line] on one time axis (what the SVG here and the JupyterLab
    extension's Profile timeline draw)."""
    out = []
    for b in blocks:
        pipes = [{"pipe": p,
                  "spans": [[s.start, s.end, s.api, s.line] for s in b.spans if s.pipe == p and s.end > s.start]}
                 for p in PIPE_ORDER if any(s.pipe == p for s in b.spans)]
        out.append({"label": b.label, "elapsed": b.elapsed, "pipes": pipes})
    end = max((s.end for b in blocks for s in b.spans), default=0.0)
    return {"estimate": True, "end": end, "blocks": out}


def timeline_svg(blocks, width: int = 1800) -> str:
    """Pipe timelines of a few blocks on one time axis (the spans the model scheduled), as inline SVG."""
    import html as h
    data = timeline_data(blocks)
    rows = [(b["label"], p) for b in data["blocks"] for p in b["pipes"]]
    t_end = data["end"]
    left, row_h, top = 110, 16, 18
    scale = (width - left - 10) / max(t_end, 1e-12)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{top + row_h * len(rows) + 24}" '
             f'font-family="monospace" font-size="11" role="img" aria-label="ESTIMATED pipe timeline">',
             f'<text x="4" y="12">ESTIMATED pipe timeline (0 .. {h.escape(_us(t_end))})</text>']
    for i, (label, p) in enumerate(rows):
        y = top + i * row_h
        parts.append(f'<text x="4" y="{y + 11}">block {label} {p["pipe"]}</text>')
        for start, end, api, line in p["spans"]:
            w = max(0.5, (end - start) * scale)
            parts.append(f'<rect x="{left + start * scale:.2f}" y="{y + 2}" width="{w:.2f}" '
                         f'height="{row_h - 4}" fill="{_COLOURS.get(p["pipe"], "#444")}">'
                         f'<title>{h.escape(api)} line {line}: '
                         f'{h.escape(_us(start))} .. {h.escape(_us(end))}</title></rect>')
    parts.append("</svg>")
    return "".join(parts)


PIPE_ROLE = {"MTE2": "copies in from GM", "V": "the vector unit", "MTE3": "copies out to GM", "S": "the scalar unit",
             "MTE1": "L1 -> L0 copies", "M": "the cube unit", "FIX": "L0C -> GM (Fixpipe)"}
_PIPE_TIP = {
    "MTE2": "read fewer bytes from GM: keep a loaded tile for every use instead of loading it again, "
            "and larger tiles (fewer copies, each paying its set-up)",
    "MTE3": "write fewer, larger stores to GM (larger tiles; no store of intermediates)",
    "V": "fewer vector instructions per element: reuse a result instead of computing it again, fuse elementwise steps",
    "S": "less scalar work per element: larger tiles (fewer loop turns), vector ops instead of per-element scalars",
    "MTE1": "fewer L1 -> L0 loads: larger base tiles reuse each loaded fractal for more of the product",
    "M": "the cube is the bound, as a matmul's should be: larger base tiles keep it fed with fewer stalls",
    "FIX": "fewer Fixpipe writes: a larger base_m x base_n block per write",
}


def _pipe_share(k) -> dict[str, float]:
    """Each pipe's busy time over all blocks as a fraction of the blocks' time."""
    total = sum(b.elapsed for b in k.blocks)
    share: dict[str, float] = {}
    for b in k.blocks:
        for p, t in b.busy.items():
            share[p] = share.get(p, 0.0) + t
    return {p: (t / total if total > 0 else 0.0) for p, t in share.items()}


def _blocks_line(blocks) -> str:
    """The blocks in one phrase: how many, and the spread of their times (alike ones are not listed)."""
    if not blocks:
        return "no block traced"
    times = sorted(b.elapsed for b in blocks)
    spread = _us(times[0]) if times[-1] - times[0] <= 0.02 * times[-1] else f"{_us(times[0])} .. {_us(times[-1])}"
    cube = sum(1 for b in blocks if b.cube)
    kinds = f" ({cube} cube, {len(blocks) - cube} vector)" if 0 < cube < len(blocks) else ""
    return f"{len(blocks)} block(s){kinds} of {spread} each"


def _fraction(floor: float, actual: float) -> str:
    return f"{floor / actual:.0%}" if actual > 0 else "-"


def _us(s: float) -> str:
    return f"{s * 1e6:.2f} us" if s < 1e-3 else f"{s * 1e3:.3f} ms"


def _bytes(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"
