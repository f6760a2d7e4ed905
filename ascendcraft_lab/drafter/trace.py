"""Running a reference file in a child process: its traced graph, its outputs, its eager time.

The reference is user code, so it never runs in this process: `run_jobs` writes a job list,
starts `python -I _child.py` (isolated: it imports nothing from this package) and reads back
JSON and `.npy` files. Several jobs share one child (one torch import). Every failure is a
`ReferenceError` whose text is one line naming the file, the stage and the cause.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from ..reference import ReferenceError, ReferenceRun

CHILD = Path(__file__).with_name("_child.py")


def run_jobs(jobs: list[dict], *, timeout: float = 300) -> list[dict | ReferenceError]:
    """Run `jobs` ({mode: trace|run|time, path, overrides, seed, cast_inputs, ...}) in one child.

    Returns per job a dict (`graph` for trace, a ReferenceRun as `run`, `timing` for time) or
    the ReferenceError it raised.
    """
    results: list = [None] * len(jobs)
    for i, job in enumerate(jobs):
        if not Path(job["path"]).is_file():
            results[i] = ReferenceError(f"reference {Path(job['path']).name} does not exist ({job['path']})",
                                        str(job["path"]), None, "open")
    todo = [i for i, r in enumerate(results) if r is None]
    if not todo:
        return results
    with tempfile.TemporaryDirectory(prefix="ascendcraft-child-") as tmp:
        tmpd = Path(tmp)
        spec = []
        for i in todo:
            job = dict(jobs[i])
            job["path"] = str(Path(job["path"]).resolve())
            job["overrides"] = {k: (list(v) if isinstance(v, tuple) else v) for k, v in (job.get("overrides") or {}).items()}
            job["out"] = str(tmpd / f"job{i}")
            spec.append(job)
        (tmpd / "jobs.json").write_text(json.dumps(spec))
        proc_error = None
        try:
            proc = subprocess.run([sys.executable, "-I", str(CHILD), str(tmpd / "jobs.json")],
                                  capture_output=True, text=True, timeout=timeout, cwd=tmp)
            if proc.returncode != 0:
                tail = (proc.stderr or "").strip().splitlines()
                proc_error = f"the reference process exited with code {proc.returncode}" + (f" ({tail[-1]})" if tail else "")
        except subprocess.TimeoutExpired:
            proc_error = f"did not finish within {timeout:g} s"
        for i, job in zip(todo, spec):
            results[i] = _collect(Path(job["out"]), job, proc_error)
    return results


def _collect(out: Path, job: dict, proc_error: str | None):
    path = job["path"]
    name = Path(path).name
    err = out / "error.json"
    if err.is_file():
        e = json.loads(err.read_text())
        at = f" (line {e['line']})" if e.get("line") else ""
        return ReferenceError(f"reference {name} failed {e['where']}{at}: {e['message']}", path, e.get("line"),
                              e["where"])
    mode = job["mode"]
    if mode == "trace" and (out / "graph.json").is_file():
        return {"graph": json.loads((out / "graph.json").read_text())}
    if mode == "time" and (out / "timing.json").is_file():
        return {"timing": json.loads((out / "timing.json").read_text())}
    if mode == "run" and (out / "meta.json").is_file():
        return {"run": _reference_run(out, job)}
    why = proc_error or "the reference process stopped before finishing"
    return ReferenceError(f"reference {name} {why}" if why.startswith("did not") else f"reference {name} failed: {why}",
                          path, None, "process")


def _reference_run(out: Path, job: dict) -> ReferenceRun:
    meta = json.loads((out / "meta.json").read_text())

    def value(item):
        if item["kind"] == "array":
            return np.load(out / item["file"], allow_pickle=False)
        return item["value"]

    return ReferenceRun(
        path=job["path"],
        inputs=[value(x) for x in meta["inputs"]],
        init_inputs=[value(x) for x in meta["init_inputs"]],
        outputs=[np.asarray(value(x)) for x in meta["outputs"]],
        parameters={k: value(v) for k, v in meta["parameters"].items()},
        buffers={k: value(v) for k, v in meta["buffers"].items()},
        training=bool(meta["training"]),
        input_dtypes=[x.get("torch_dtype") for x in meta["inputs"]],
        output_dtypes=[x.get("torch_dtype") for x in meta["outputs"]],
        overrides=dict(job.get("overrides") or {}),
        seed=int(job.get("seed", 0)),
    )


def trace_reference(path, *, overrides: dict | None = None, seed: int = 0, cast_inputs: str | None = None,
                    timeout: float = 300) -> dict:
    """The reference's forward as a JSON-able graph (see _child.py); raises ReferenceError."""
    result = run_jobs([{"mode": "trace", "path": str(path), "overrides": overrides or {}, "seed": seed,
                        "cast_inputs": cast_inputs}], timeout=timeout)[0]
    if isinstance(result, ReferenceError):
        raise result
    return result["graph"]
