"""Rank tiling candidates by the ESTIMATED kernel time (issue 21), opt-in.

Each candidate of `passes.tiling_report.tiling_candidates` (tile lengths x buffers per queue) runs
traced on the emulator on the reference's inputs: the tile fields are overridden in the tiling
struct (one build serves every tile length) and BUFFER_NUM is rewritten for the single-buffered
ones (a second build). A candidate counts only when its run is verified correct; the pipe model
(`perf`) turns each trace into a time. Nothing here changes the project: the ranking is what the
tiling explanation says, with the winner and its margin.
"""
from __future__ import annotations

from pathlib import Path

from ..backends.emulator.verify import check_emulator
from ..dsl import ir
from ..passes.bundle import Bundle
from ..passes.init import with_buffer_num
from ..passes.plan import plan_for
from ..passes.spec import LowerOptions
from ..passes.tiling_report import TilingCandidate
from ..perf import estimate_trace
from ..procs import scratch_dir


def rank_tilings(program: ir.Program, project: Bundle, ref, soc: str,
                 candidates: list[TilingCandidate]) -> list[dict]:
    """Every candidate with its ESTIMATED time (or why it has none), fastest first; JSON-ready."""
    plan = plan_for(program, LowerOptions(soc=soc))
    variants = {}
    results = []
    with scratch_dir("ascendcraft-rank-") as tmp:
        for i, cand in enumerate(candidates):
            entry = {"label": cand.label, "fields": dict(cand.fields), "buffers": cand.buffers,
                     "ub_bytes": cand.ub_bytes, "draft": cand.draft, "seconds": None, "mte2_v_overlap": None,
                     "status": "ok"}
            results.append(entry)
            try:
                bundle = variants.get(cand.buffers)
                if bundle is None:
                    bundle = variants[cand.buffers] = with_buffer_num(project, plan, cand.buffers)
                trace = Path(tmp) / f"{i}.trace"
                verdict, _ = check_emulator(program, bundle, ref, soc=soc, trace=trace, tiling=dict(cand.fields))
                if not verdict.correct:
                    entry["status"] = f"not ranked: {verdict.message.split(';')[0]} on the emulator"
                    continue
                launches = estimate_trace(trace, soc)
            except (OSError, ValueError) as exc:
                entry["status"] = f"not ranked: {exc}"
                continue
            if not launches:
                entry["status"] = "not ranked: the run launched no kernel"
                continue
            est = launches[-1]
            entry["seconds"] = est.kernel_s
            vec = [b for b in est.blocks if not b.cube]
            busy_v = sum(b.busy.get("V", 0.0) for b in vec)
            entry["mte2_v_overlap"] = sum(b.mte2_v_overlap for b in vec) / busy_v if busy_v > 0 else 0.0
    return sorted(results, key=lambda r: (r["seconds"] is None, r["seconds"] or 0.0, not r["draft"]))
