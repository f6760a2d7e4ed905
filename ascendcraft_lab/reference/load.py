"""Loading a PyTorch reference (KernelBench format) safely: the user's code runs in a child process.

A reference file defines `class Model(nn.Module)`, `get_inputs()` and `get_init_inputs()`, and
usually module-level shape constants (`batch_size = 16; dim = 16384`). `load_reference` runs it
in a child Python (the venv's interpreter), with constant overrides applied to the module's
source before it executes, `torch.manual_seed(seed)` before the inputs and before the model is
built, and the forward pass under `torch.no_grad()`. Arrays come back through `.npy` files in a
temporary directory (removed however the call ends). The child runs in its own process group
with stdin closed: a timeout or an interrupt stops it and everything it started, and it stops
itself if this process dies. Every failure is a `ReferenceError` with one sentence naming the file and
the cause — never a raw traceback. The child (`child.py`) also traces the forward for
the drafter and times PyTorch eager for the bench (`run_jobs`).
"""
from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import numpy as np

from .. import procs
from ..dsl.errors import Span, format_diagnostic

CHILD = Path(__file__).with_name("child.py")


class ReferenceError(Exception):   # noqa: A001 - the project's name for it; shadows the weakref builtin here only
    """A reference that cannot be loaded or run: `str(err)` is one sentence; `line` points into the file."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None, stage: str = ""):
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line
        self.stage = stage

    def render(self) -> str:
        """The shared diagnostic format (see dsl.errors.format_diagnostic)."""
        source = None
        if self.path and self.line:
            try:
                source = Path(self.path).read_text(encoding="utf-8", errors="replace")
            except OSError:
                source = None
        span = Span.point(self.line, 1) if self.line else None
        if span is not None and source is not None:
            lines = source.splitlines()
            if 0 < self.line <= len(lines):
                text = lines[self.line - 1]
                start = len(text) - len(text.lstrip()) + 1
                span = Span(self.line, start, self.line, max(len(text.rstrip()) + 1, start + 1))
        return format_diagnostic(self.path, source, span, self.message,
                                 "run the reference on its own (python REF.py) to see the full traceback")


@dataclass
class ReferenceRun:
    path: str
    inputs: list                     # numpy arrays or Python scalars, in get_inputs() order
    init_inputs: list                # get_init_inputs(), same conversion (tuples/lists stay lists)
    outputs: list                    # numpy arrays; a 0-d result is a 0-d array
    parameters: dict = field(default_factory=dict)   # Model.named_parameters() as numpy
    buffers: dict = field(default_factory=dict)      # Model.named_buffers() as numpy
    training: bool = True
    input_dtypes: list = field(default_factory=list)   # torch dtype name per input (None for scalars)
    output_dtypes: list = field(default_factory=list)
    overrides: dict = field(default_factory=dict)
    seed: int = 0

    @property
    def named_tensors(self) -> dict:
        """Parameters and buffers by name (what a DSL `Param[...]` binds to)."""
        return {**self.buffers, **self.parameters}

    @property
    def scalars(self) -> list:
        """Scalars of get_inputs() then of get_init_inputs(), in order (what DSL scalar params bind to)."""
        return [v for v in list(self.inputs) + list(self.init_inputs) if _is_scalar(v)]

    @property
    def tensor_inputs(self) -> list:
        return [v for v in self.inputs if isinstance(v, np.ndarray)]


def _is_scalar(v) -> bool:
    return isinstance(v, (bool, int, float)) and not isinstance(v, np.ndarray)


def load_reference(path, *, overrides: dict | None = None, seed: int = 0, timeout: float = 120) -> ReferenceRun:
    """Run the reference at `path` in a child process and return its inputs, outputs and parameters."""
    result = load_references([(path, overrides)], seed=seed, timeout=timeout)[0]
    if isinstance(result, ReferenceError):
        raise result
    return result


def load_references(requests: Iterable[tuple], *, seed: int = 0, timeout: float = 120) -> list:
    """Several references in ONE child process (one torch import): `[(path, overrides[, seed]), ...]`.

    Returns, per request, a ReferenceRun or the ReferenceError it raised. `timeout` is per
    request; requests still pending when the total runs out get a timeout error.
    """
    requests = [tuple(r) + (seed,) * (3 - len(r)) for r in requests]
    results: list = [None] * len(requests)
    for i, (p, o, _) in enumerate(requests):
        try:
            json.dumps(_jsonable(dict(o or {})))
        except TypeError:
            results[i] = ReferenceError(f"overrides for {Path(p).name} must be plain numbers, strings, lists or tuples",
                                        str(p), None, "overrides")
    todo = [i for i, r in enumerate(results) if r is None]
    jobs = [{"mode": "run", "path": str(requests[i][0]), "overrides": dict(requests[i][1] or {}),
             "seed": int(requests[i][2])} for i in todo]
    for i, answer in zip(todo, run_jobs(jobs, timeout=timeout * max(1, len(todo)))):
        results[i] = answer["run"] if isinstance(answer, dict) else answer
    return results


def _jsonable(o: dict) -> dict:
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in o.items()}


def run_jobs(jobs: list[dict], *, timeout: float = 300) -> list[dict | ReferenceError]:
    """Run `jobs` ({mode: trace|run|time, path, overrides, seed, cast_inputs, ...}) in one child
    (`python -I child.py`: isolated, it imports nothing from this package).

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
    with procs.scratch_dir("ascendcraft-child-") as tmpd:
        spec = []
        for i in todo:
            job = dict(jobs[i])
            job["path"] = str(Path(job["path"]).resolve())
            job["overrides"] = _jsonable(job.get("overrides") or {})
            job["out"] = str(tmpd / f"job{i}")
            spec.append(job)
        (tmpd / "jobs.json").write_text(json.dumps(spec))
        proc_error = None
        try:
            proc = procs.run([sys.executable, "-I", str(CHILD), str(tmpd / "jobs.json")], timeout=timeout, cwd=tmpd)
            if proc.returncode != 0:
                tail = (proc.stderr or "").strip().splitlines()
                proc_error = f"the reference process exited with code {proc.returncode}" + (f" ({tail[-1]})" if tail else "")
        except subprocess.TimeoutExpired:
            proc_error = f"did not finish within {timeout:g} s"
        for i, job in zip(todo, spec):
            results[i] = _collect(Path(job["out"]), job, proc_error, jobs[i].get("overrides"))
    return results


def _collect(out: Path, job: dict, proc_error: str | None, overrides: dict | None = None):
    path = job["path"]
    name = Path(path).name
    err = out / "error.json"
    if err.is_file():
        e = json.loads(err.read_text())
        return ReferenceError(f"reference {name} failed {e['where']}{_at(e.get('line'))}: {e['message']}", path, e.get("line"),
                              e["where"])
    mode = job["mode"]
    if mode == "trace" and (out / "graph.json").is_file():
        return {"graph": json.loads((out / "graph.json").read_text())}
    if mode == "time" and (out / "timing.json").is_file():
        return {"timing": json.loads((out / "timing.json").read_text())}
    if mode == "run" and (out / "meta.json").is_file():
        return {"run": _reference_run(out, job, overrides)}
    why = proc_error or "the reference process stopped before finishing"
    return ReferenceError(f"reference {name} {why}" if why.startswith("did not") else f"reference {name} failed: {why}",
                          path, None, "process")


def _reference_run(out: Path, job: dict, overrides: dict | None) -> ReferenceRun:
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
        overrides=dict(overrides if overrides is not None else job.get("overrides") or {}),
        seed=int(job.get("seed", 0)),
    )


def _at(line) -> str:
    return f" (line {line})" if line else ""
