"""Explainable tiling: why the host pass chose its tile and core split.

For concrete shapes it lists the UB footprint of every buffer (times its copies) against
the SoC's usable UB, and the candidates that were not taken: a tile twice as long (does it
still fit?), and the core split (are cores idle, how many rows does each get?).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..dsl import ir
from ..dsl.buffers import ub_buffers
from ..dsl.errors import human_bytes
from ..dsl.host import bind_dims, evaluate_host
from ..soc import Soc


@dataclass
class TilingReport:
    soc: str
    launch: dict
    budget: int
    total: int
    buffers: list[dict] = field(default_factory=list)    # name, role, copies, elements, bytes
    candidates: list[str] = field(default_factory=list)  # rejected or accepted alternatives, one line each

    def to_json(self) -> dict:
        return dict(self.__dict__)

    def text(self) -> str:
        lines = [f"tiling on {self.soc}: " + ", ".join(f"{k}={v}" for k, v in self.launch.items())]
        for b in self.buffers:
            what = f"{b['elements']} elements" if b["elements"] is not None else human_bytes(b["bytes"])
            lines.append(f"  {b['name']:<12} {b['role']:<8} {b['copies']} x {what} = {human_bytes(b['bytes'] * b['copies'])}")
        lines.append(f"  UB used {human_bytes(self.total)} of {human_bytes(self.budget)} ({100 * self.total / self.budget:.0f} %)")
        lines.extend(f"  - {c}" for c in self.candidates)
        return "\n".join(lines)


def tiling_report(program: ir.Program, shapes: dict, scalars: dict, soc: Soc) -> TilingReport:
    launch = evaluate_host(program, shapes, scalars, soc)
    env: dict = dict(bind_dims(program, shapes))
    env.update(scalars)
    tp = program.tiling_param
    if tp is not None:
        env.update({f"{tp.name}.{k}": v for k, v in launch.items()})
    plan = ub_buffers(program)
    usage = plan.usage(env, soc)
    buffers = [{"name": b.name, "role": b.role, "copies": b.nbuf, "elements": elems, "bytes": nbytes}
               for b, elems, nbytes in usage.items]
    if usage.scratch_bytes:
        tiles = max(plan.scratch_tiles, 1)   # temporaries of the most demanding statement
        buffers.append({"name": "scratch", "role": "VECCALC", "copies": tiles,
                        "elements": None, "bytes": usage.scratch_bytes // tiles})
    if usage.sync_bytes:        # SyncAll's UB work area, for the widest launch that may sync
        buffers.append({"name": "syncWork", "role": "VECCALC", "copies": 1, "elements": None, "bytes": usage.sync_bytes})
    total = usage.total()
    report = TilingReport(soc.name, dict(launch), soc.ub_usable, total, buffers)
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
            report.candidates.append(f"{name}={doubled[key]}: UB {human_bytes(bigger)} of {human_bytes(soc.ub_usable)} — {verdict}")
    cores = int(launch["cores"])
    if cores < soc.vector_cores:
        report.candidates.append(f"cores={soc.vector_cores} (all vector cores): not taken — only {cores} units of "
                                 f"parallel work, {soc.vector_cores - cores} cores would idle")
    else:
        report.candidates.append(f"cores={cores}: every vector core of {soc.name} is busy")
    return report


def _covers(program: ir.Program, env: dict, field_name: str) -> bool:
    """Whether a tile field already equals the extent it tiles (a bigger tile changes nothing)."""
    tp = program.tiling_param
    value = env.get(f"{tp.name}.{field_name}") if tp else None
    return value is not None and any(value == v for k, v in env.items() if "." not in k and isinstance(v, int))
