"""Explainable tiling: why the host pass chose its tile and core split.

For concrete shapes it lists the UB footprint of every buffer (times its copies) against
the SoC's usable UB, and the candidates that were not taken: a tile twice as long (does it
still fit?), and the core split (are cores idle, how many rows does each get?).

A cube kernel is explained by its base tiles instead: the L1 / L0A / L0B / L0C table (each
buffer in whole fractals, times its copies, against the SoC's memory), what the padding of
short tiles costs the cube, the blocks over the cube cores, and each base tile doubled and
halved: which memory it would overflow, or what it would cost in GM traffic and rounds.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..dsl import cube, ir
from ..dsl.buffers import capacity_limit, ub_buffers
from ..dsl.errors import human_bytes
from ..dsl.host import HostEvaluator, bind_dims, evaluate_host
from ..soc import Soc


@dataclass
class TilingReport:
    soc: str
    launch: dict
    budget: int
    total: int
    buffers: list[dict] = field(default_factory=list)    # name, role, copies, elements, bytes
    candidates: list[str] = field(default_factory=list)  # rejected or accepted alternatives, one line each
    levels: list[dict] = field(default_factory=list)     # the cube: per memory level, used and budget bytes
    ranking: list[dict] = field(default_factory=list)    # candidates by ESTIMATED time, fastest first (opt-in)

    def to_json(self) -> dict:
        return dict(self.__dict__)

    def text(self) -> str:
        lines = [f"tiling on {self.soc}: " + ", ".join(f"{k}={v}" for k, v in self.launch.items())]
        for b in self.buffers:
            what = f"{b['elements']} elements" if b["elements"] is not None else human_bytes(b["bytes"])
            lines.append(f"  {b['name']:<12} {b['role']:<8} {b['copies']} x {what} = "
                         f"{human_bytes(b['bytes'] * b['copies'])}")
        if self.total or not self.levels:
            lines.append(f"  UB used {human_bytes(self.total)} of {human_bytes(self.budget)} "
                         f"({100 * self.total / self.budget:.0f} %)")
        for lv in self.levels:
            lines.append(f"  {lv['level']} used {human_bytes(lv['used'])} of {human_bytes(lv['budget'])} "
                         f"({100 * lv['used'] / lv['budget']:.0f} %)")
        lines.extend(f"  {ln}" for ln in self.alternatives())
        return "\n".join(lines)

    def alternatives(self) -> list[str]:
        """The candidates not taken and, after a ranking, every candidate's estimate and the winner."""
        lines = [f"- {c}" for c in self.candidates]
        if self.ranking:
            lines.append("ranked by the ESTIMATED kernel time "
                         "(pipe model of traced emulator runs on the reference's inputs):")
            lines.extend(f"  {ln}" for ln in ranking_lines(self.ranking))
            lines.append(f"=> {ranking_summary(self.ranking)}")
        return lines


def tiling_report(program: ir.Program, shapes: dict, scalars: dict, soc: Soc) -> TilingReport:
    launch = evaluate_host(program, shapes, scalars, soc)
    env: dict = dict(bind_dims(program, shapes))
    env.update(scalars)
    tp = program.tiling_param
    if tp is not None:
        env.update({f"{tp.name}.{k}": v for k, v in launch.items()})
    plan = ub_buffers(program)
    usage = plan.usage(env, soc)
    order = ("A1", "B1", "A2", "B2", "CO1")          # the cube's buffers in pipeline order, after UB's
    items = sorted(usage.items, key=lambda it: order.index(it[0].role) + 1 if it[0].role in order else 0)
    buffers = [{"name": b.name, "role": b.role, "copies": b.nbuf, "elements": elems, "bytes": nbytes}
               for b, elems, nbytes in items]
    if usage.scratch_bytes:
        tiles = max(plan.scratch_tiles, 1)   # temporaries of the most demanding statement
        buffers.append({"name": "scratch", "role": "VECCALC", "copies": tiles,
                        "elements": None, "bytes": usage.scratch_bytes // tiles})
    if usage.sync_bytes:        # SyncAll's UB work area, for the widest launch that may sync
        buffers.append({"name": "syncWork", "role": "VECCALC", "copies": 1, "elements": None,
                        "bytes": usage.sync_bytes})
    total = usage.total()
    report = TilingReport(soc.name, dict(launch), soc.ub_usable, total, buffers)
    if plan.uses_cube:
        _cube_report(report, program, plan, env, launch, soc)
        return report
    # Candidate: every tile-sized buffer twice as long.
    tile_fields = [f.name for f in program.host.launch.fields if "tile" in f.name]
    for name in tile_fields:
        doubled = dict(env)
        key = f"{tp.name}.{name}" if tp is not None else name
        if key in doubled and isinstance(doubled[key], int):
            doubled[key] = doubled[key] * 2
            bigger = plan.usage(doubled, soc).total()
            verdict = "does not fit" if bigger > soc.ub_usable else "would fit, but the tile already covers the data" \
                if _covers(program, env, name) else "would fit: raise `live` headroom or the tile"
            report.candidates.append(f"{name}={doubled[key]}: UB {human_bytes(bigger)} of "
                                     f"{human_bytes(soc.ub_usable)} — {verdict}")
    cores = int(launch["cores"])
    if cores < soc.vector_cores:
        report.candidates.append(f"cores={soc.vector_cores} (all vector cores): not taken — only {cores} units of "
                                 f"parallel work, {soc.vector_cores - cores} cores would idle")
    else:
        report.candidates.append(f"cores={cores}: every vector core of {soc.name} is busy")
    return report


def _cube_report(report: TilingReport, program: ir.Program, plan, env: dict, launch: dict, soc: Soc) -> None:
    usage = plan.usage(env, soc)
    for level in cube.CUBE_LEVELS:
        used = usage.total(level)
        if used:
            report.levels.append({"level": level.value, "used": used, "budget": capacity_limit(level, soc)})
    tp = program.tiling_param
    axes = cube_axes(program)
    ev = HostEvaluator(soc, env)
    fields: dict[str, set[str]] = {}          # tiling field -> the matrix dims (m, n, k) it steps
    for role, (_, step, _) in axes.items():
        if isinstance(step, ir.Attr) and tp is not None and step.obj.id == tp.name:
            fields.setdefault(step.attr, set()).add(role)
    for name, dims in fields.items():
        key = f"{tp.name}.{name}"
        value = env.get(key)
        if not isinstance(value, int):
            continue
        for factor, word in ((2, "doubled"), (0.5, "halved")):
            trial = dict(env)
            trial[key] = int(value * factor)
            if trial[key] < 1:
                continue
            used = plan.usage(trial, soc)
            over = [f"{lv.value} {human_bytes(used.total(lv))} > {human_bytes(capacity_limit(lv, soc))}"
                    for lv in cube.CUBE_LEVELS if used.total(lv) > capacity_limit(lv, soc)]
            if over:
                verdict = "does not fit: " + ", ".join(over)
            elif factor > 1:
                verdict = "would fit: fewer, larger blocks (less GM re-reading), fewer blocks to spread over the cores"
            else:
                verdict = f"fits, but {_halved_cost(dims)}"
            report.candidates.append(f"{name}={trial[key]} ({word}; steps {'/'.join(sorted(dims))}): {verdict}")
    blocks = _grid_blocks(program, ev)
    cores = int(launch["cores"])
    if blocks is not None:
        rounds = -(-blocks // cores)
        last = blocks - (rounds - 1) * cores
        report.candidates.append(f"{blocks} output block(s) over {cores} of {soc.cube_cores} cube cores: "
                                 f"{rounds} round(s), the last with {last} busy core(s)")
    waste = _padding_waste(axes, ev)
    if waste:
        report.candidates.append(waste)


def cube_axes(program: ir.Program) -> dict[str, tuple[ir.Expr, ir.Expr, int]]:
    """The matrix dims the cube tiles (m, n, k): (extent, step, fractal unit) of the loop whose range
    indexes that axis of an L1 tile."""
    plan = program.plan
    loops: dict[str, tuple[ir.Expr, ir.Expr]] = {}
    for s, _ in ir.walk_stmts(program.kernel.body):
        if isinstance(s, ir.For) and isinstance(s.iter, ir.CoreTiles):
            loops.update({v: (e, st) for v, e, st in zip(s.vars, s.iter.extents, s.iter.steps)})
        elif (isinstance(s, ir.For) and isinstance(s.iter, ir.Tiles)
              and not isinstance(s.iter.extent.type, ir.RangeType)):
            loops[s.var] = (s.iter.extent, s.iter.step)
    out: dict[str, tuple[ir.Expr, ir.Expr, int]] = {}
    for s, _ in ir.walk_stmts(program.kernel.body):
        if not (isinstance(s, ir.Load) and s.level is ir.Level.L1):
            continue
        op = plan.operand(s.target)
        kept = [ix for ix in s.src.index
                if not (isinstance(ix, ir.IndexExpr) and not isinstance(ix.expr.type, ir.RangeType))]
        for axis, (role, ix) in enumerate(zip(op.axis_roles(), kept)):
            if isinstance(ix, ir.IndexExpr) and isinstance(ix.expr, ir.Name) and ix.expr.id in loops:
                out.setdefault(role, (*loops[ix.expr.id], op.l1_axis_unit(axis)))
    return out


def _halved_cost(dims: set[str]) -> str:
    if dims == {"k"}:
        return "twice the K slices: twice the LoadData and Mmad calls per block, each half as long"
    other = "B" if "m" in dims else "A"
    return f"twice the blocks along {'/'.join(sorted(dims))}: {other} is read from GM twice as often"


def _grid_blocks(program: ir.Program, ev: HostEvaluator) -> int | None:
    for s, _ in ir.walk_stmts(program.kernel.body):
        if isinstance(s, ir.For) and isinstance(s.iter, ir.CoreTiles):
            n = 1
            for ext, step in zip(s.iter.extents, s.iter.steps):
                n *= -(-int(ev.eval(ext)) // int(ev.eval(step)))
            return n
    return None


def _padding_waste(axes: dict, ev: HostEvaluator) -> str:
    """What the fractal padding of short tiles costs the cube, of its multiply-adds."""
    if set(axes) != {"m", "n", "k"}:
        return ""
    useful = padded = 1
    for role in "mnk":
        ext, step, unit = axes[role]
        e, st = int(ev.eval(ext)), int(ev.eval(step))
        useful *= e
        padded *= (e // st) * -(-st // unit) * unit + -(-(e % st) // unit) * unit
    if padded <= useful:
        return "no fractal padding: every tile is whole fractals"
    return (f"fractal padding of the short tiles: {100 * (padded - useful) / padded:.1f} % of the cube's "
            "multiply-adds are on zeros")


def _covers(program: ir.Program, env: dict, field_name: str) -> bool:
    """Whether a tile field already equals the extent it tiles (a bigger tile changes nothing)."""
    tp = program.tiling_param
    value = env.get(f"{tp.name}.{field_name}") if tp else None
    return value is not None and any(value == v for k, v in env.items() if "." not in k and isinstance(v, int))


# --------------------------------------------------------------------------- tiling candidates
@dataclass(frozen=True)
class TilingCandidate:
    """One tiling the estimate can rank: the tile fields' values and the buffers per queue."""
    fields: tuple[tuple[str, int], ...]     # (tiling field, elements), the draft's own value or a trial
    buffers: int                            # BUFFER_NUM: copies of every double-buffered queue
    ub_bytes: int                           # what the UB plan allocates for it
    draft: bool = False                     # the tiling the draft's host function chose

    @property
    def label(self) -> str:
        tiles = " / ".join(f"{v}" if len(self.fields) == 1 else f"{k}={v}" for k, v in self.fields)
        return f"tile {tiles} x {self.buffers} buffer{'s' if self.buffers > 1 else ''}"


def tiling_candidates(program: ir.Program, shapes: dict, scalars: dict, soc: Soc) -> list[TilingCandidate]:
    """The tilings worth ranking for these shapes: for each buffer count the plan allows (2, and 1
    when a queue is double-buffered), the longest tile the UB plan fits (no longer than the data
    the tile steps over) and 1/2 and 1/4 of it; the draft's own tiling first. Every tile field
    (a Launch field that steps a `tiles()` loop) scales together, in whole vector repeats of the
    narrowest UB dtype. Empty for the cube (its base tiles are explained, not ranked) and for a
    kernel without a tile field."""
    plan = ub_buffers(program)
    tp = program.tiling_param
    if plan.uses_cube or tp is None:
        return []
    launch = evaluate_host(program, shapes, scalars, soc)
    env: dict = dict(bind_dims(program, shapes))
    env.update(scalars)
    env.update({f"{tp.name}.{k}": v for k, v in launch.items()})
    steps = _tile_extents(program, env, soc)
    draft = {name: int(launch[name]) for name in steps if isinstance(launch.get(name), int) and launch[name] > 0}
    if not draft:
        return []
    ub_dtypes = [b.dtype.nbytes for b in plan.buffers if b.level is ir.Level.UB] or [4]
    unit = max(soc.repeat_bytes // min(ub_dtypes), 1)

    def trial(scale: float) -> dict[str, int]:
        out = {}
        for name, v in draft.items():
            t = int(v * scale) // unit * unit if v * scale >= unit else min(v, unit)
            cap = steps[name]
            out[name] = max(1, min(t, cap) if cap else t)
        return out

    def ub(values: dict[str, int], buffers: int) -> int:
        trial_env = dict(env)
        trial_env.update({f"{tp.name}.{k}": v for k, v in values.items()})
        usage = plan.usage(trial_env, soc)
        return usage.total() - sum((b.nbuf - min(b.nbuf, buffers)) * nbytes for b, _, nbytes in usage.items
                                   if b.level is ir.Level.UB)

    double = any(b.nbuf == 2 for b in plan.buffers if b.level is ir.Level.UB)
    out = [TilingCandidate(tuple(draft.items()), 2 if double else 1, ub(draft, 2 if double else 1), draft=True)]
    seen = {(out[0].fields, out[0].buffers)}
    for buffers in ((2, 1) if double else (1,)):
        # the longest tile that fits: scale up in repeats while the UB holds it and the data is not covered
        lo, hi = 0.0, 16.0
        for _ in range(24):
            mid = (lo + hi) / 2
            if ub(trial(mid), buffers) <= soc.ub_usable:
                lo = mid
            else:
                hi = mid
        if lo <= 0:
            continue
        longest = trial(lo)
        for div in (1, 2, 4):
            values = {k: max(1, (v // div) // unit * unit or min(v, unit)) for k, v in longest.items()}
            key = (tuple(values.items()), buffers)
            nbytes = ub(values, buffers)
            if key in seen or nbytes > soc.ub_usable:
                continue
            seen.add(key)
            out.append(TilingCandidate(key[0], buffers, nbytes))
    return out


def _tile_extents(program: ir.Program, env: dict, soc: Soc) -> dict[str, int]:
    """Tiling fields that step a `tiles(extent, t.field)` loop -> the longest extent they step over
    (0 when it is a range only known in the loop)."""
    tp = program.tiling_param
    ev = HostEvaluator(soc, env)
    out: dict[str, int] = {}
    for s, _ in ir.walk_stmts(program.kernel.body):
        if not (isinstance(s, ir.For) and isinstance(s.iter, ir.Tiles)):
            continue
        step = s.iter.step
        if not (isinstance(step, ir.Attr) and isinstance(step.obj, ir.Name) and step.obj.id == tp.name):
            continue
        extent = 0
        if not isinstance(s.iter.extent.type, ir.RangeType):
            try:
                extent = int(ev.eval(s.iter.extent))
            except Exception:      # an extent only the kernel knows: no cap
                extent = 0
        out[step.attr] = max(out.get(step.attr, 0), extent) if extent and out.get(step.attr, 1) else 0
    return out


def ranking_summary(ranking: list[dict]) -> str:
    """One sentence: the winner and by how much it beats the runner-up (and the draft's own tiling)."""
    timed = [r for r in ranking if r["seconds"] is not None]
    if not timed:
        return "no candidate could be estimated"
    best = timed[0]
    if len(timed) == 1:
        return f"{best['label']} won at est. {_us(best['seconds'])}: the only candidate estimated"
    second = timed[1]
    draft = next((r for r in timed if r["draft"]), None)

    def name(r: dict) -> str:
        return r["label"] + (" (the draft's)" if r is draft else "")
    if second["seconds"] - best["seconds"] < 5e-4 * best["seconds"]:     # the same time to the printed digit
        text = f"{name(best)} won at est. {_us(best['seconds'])}, tied with {name(second)}"
    else:
        text = (f"{name(best)} won at est. {_us(best['seconds'])}, {_margin(second['seconds'], best['seconds'])} "
                f"faster than the runner-up, {name(second)} at {_us(second['seconds'])}")
    if draft is not None and draft is not best:
        if draft is not second:
            text += f" and {_margin(draft['seconds'], best['seconds'])} faster than the draft's {draft['label']}"
        text += ("; to take it, size the tile so in the host function" if best["buffers"] == draft["buffers"] else
                 "; the DSL double-buffers every streamed queue, so this is a finding about the kernel, "
                 "not a choice it offers")
    return text


def ranking_lines(ranking: list[dict]) -> list[str]:
    """The ranking as the tiling explanation prints it, one candidate a line."""
    timed = [r for r in ranking if r["seconds"] is not None]
    best = timed[0]["seconds"] if timed else None
    lines = []
    for r in ranking:
        who = " (the draft's)" if r["draft"] else ""
        if r["seconds"] is None:
            lines.append(f"{r['label']}{who}: {r['status']}")
            continue
        vs = "fastest" if r["seconds"] == best else f"+{_margin(r['seconds'], best)}"
        lines.append(f"{r['label']}{who}: est. {_us(r['seconds'])} ({vs}); MTE2/V overlap "
                     f"{r['mte2_v_overlap']:.0%} of V's busy time")
    return lines


def _margin(slow: float, fast: float) -> str:
    return f"{100 * (slow - fast) / fast:.1f} %" if fast > 0 else "?"


def _us(s: float) -> str:
    return f"{s * 1e6:.2f} us"
