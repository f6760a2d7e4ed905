"""A reference file's traced graph, from the reference child process (`reference.run_jobs`).

The reference is user code, so it never runs in this process: `reference.run_jobs` runs
`reference/child.py` in an isolated Python and reads back JSON and `.npy` files; the drafter
asks it for a `trace` job. `run_jobs` is re-exported here for the bench and the tests.
"""
from __future__ import annotations

from ..reference import ReferenceError, run_jobs

__all__ = ["run_jobs", "trace_reference"]


def trace_reference(path, *, overrides: dict | None = None, seed: int = 0, cast_inputs: str | None = None,
                    timeout: float = 300) -> dict:
    """The reference's forward as a JSON-able graph (see reference/child.py); raises ReferenceError."""
    result = run_jobs([{"mode": "trace", "path": str(path), "overrides": overrides or {}, "seed": seed,
                        "cast_inputs": cast_inputs}], timeout=timeout)[0]
    if isinstance(result, ReferenceError):
        raise result
    return result["graph"]
