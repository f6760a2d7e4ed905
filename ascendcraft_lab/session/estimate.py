"""ESTIMATED performance of a session, offline: the profile estimate and the tiling ranking.

Both run the shipped project traced on the emulator (check.py's preconditions: every pass ran
and none failed) and turn the trace into time with the pipe model (perf/). A time means
something only for a correct kernel: the estimate refuses an incorrect one, and the ranking
counts only candidates whose run is verified (ranking.py).
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable, Mapping

from ..backends.emulator.verify import check_emulator
from ..dsl.verifier import verify
from ..drafter.trace import trace_reference
from ..perf import estimate_eager, estimate_trace
from ..perf.report import Profile
from ..procs import scratch_dir
from ..reference import reference_format
from ..passes.tiling_report import tiling_candidates
from ..soc import get_soc
from .check import runnable, shipped_project
from .errors import SessionError, user_errors
from .folder import locked, read_manifest
from .inputs import bind_shapes, cached_reference, variant_of
from .ranking import rank_tilings
from .state import SessionState, bundle_hash, jsonable

Progress = Callable[[str], None]


def estimate(state: SessionState, *, seed: int = 0, overrides: Mapping[str, Any] | None = None,
             reference: str | Path | None = None, progress: Progress | None = None) -> Profile:
    """The ESTIMATED profile, offline: the project runs traced on the emulator (and must be
    correct), the pipe model turns the trace into a time per block and pipe, and the reference's
    traced graph gives an estimated eager time. Recorded in runs/ (backend `model`)."""
    ref_path, overrides, files = runnable(state, "emulator", False, reference, overrides)
    project = shipped_project(state, files)
    if progress:
        progress("running the AscendC project traced on the emulator, then the pipe model")
    t0 = time.perf_counter()
    as_file = None if reference is not None else state.reference_as_file()
    cases = reference_format(ref_path) == "NPUKernelBench"
    notes = []
    with user_errors(state.dsl_name, state.dsl, failing="the estimate"):
        ref = cached_reference(ref_path, overrides, seed, as_file=as_file)   # NPUKernelBench: its first case
        launches = _traced_launches(state, project, ref)
        if cases:
            graph = None
            notes.append("estimated on the reference's first case; "
                         "no eager estimate for an NPUKernelBench reference yet")
        else:
            graph = trace_reference(ref_path, overrides=overrides, seed=seed)
    if not launches:
        raise SessionError("error: the traced run launched no kernel, so there is nothing to estimate")
    eager = estimate_eager(graph, state.soc) if graph else None
    profile = Profile(launches[-1], eager, state.program.kernel.name, notes)
    state.folder.record_run({"backend": "model", "action": "profile", "soc": state.soc, "estimate": True,
                             "profile": jsonable(profile.to_dict()),
                             "summary": profile.text().splitlines()[1].strip(),
                             "seconds": round(time.perf_counter() - t0, 3),
                             "estimated_bundle": bundle_hash(state.final)})
    return profile


def _traced_launches(state: SessionState, project, ref) -> list:
    """The project's launches on the reference's input set, traced and estimated; refused unless correct."""
    with scratch_dir("ascendcraft-trace-") as tmp:
        verdict, run = check_emulator(state.program, project, ref, soc=state.soc, trace=tmp / "run.trace")
        if not verdict.correct:
            raise SessionError(f"error: the kernel is not verified, so its time means nothing: {verdict.message}\n"
                               "  = help: `ascendcraft check` shows what is wrong; profile once it passes")
        return estimate_trace(tmp / "run.trace", state.soc)


def rank_tiling(state: SessionState, *, seed: int = 0, progress: Progress | None = None) -> list[dict]:
    """Rank the tiling candidates (tile lengths x buffers per queue, `tiling_candidates`) by the
    ESTIMATED kernel time: each runs traced and verified on the emulator on the reference's
    inputs. Opt-in (`ascendcraft lower --rank-tiling`, `lab.rank_tiling()`): a few emulator runs.
    The ranking joins the tiling explanation until the next lowering; the project is unchanged."""
    ref_path, overrides, files = runnable(state, "emulator", False, None, None)
    project = shipped_project(state, files)
    as_file = state.reference_as_file()
    with user_errors(state.dsl_name, state.dsl):
        ref = cached_reference(ref_path, overrides, seed, as_file=as_file)
        # a generic kernel's UB plan in this input set's dtypes (as the lowering binds it)
        variant = verify(variant_of(state.program, ref), state.soc) if state.program.generic else state.program
        shapes, scalars = bind_shapes(variant, ref)
        candidates = tiling_candidates(variant, shapes, scalars, get_soc(state.soc))
        if not candidates:
            raise SessionError("error: nothing to rank: the kernel has no tile field stepping a tiles() loop "
                               "(the cube's base tiles are explained, not ranked)")
        if progress:
            progress(f"ranking {len(candidates)} tiling candidates: each runs traced on the emulator")
        ranking = rank_tilings(state.program, project, ref, state.soc, candidates)   # run as verify() runs it
    with locked(state.folder):
        manifest = read_manifest(state.folder)
        if manifest.get("tiling") is not None:
            manifest["tiling"]["ranking"] = jsonable(ranking)
            state.folder.save_manifest(manifest)
    return ranking
