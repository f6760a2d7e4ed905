"""Loading a PyTorch reference safely: the user's code runs in a child process.

A reference file defines `class Model(nn.Module)`, `get_init_inputs()` and either
`get_inputs()` (KernelBench format: one input set, drawn again for every seed; usually
module-level shape constants such as `batch_size = 16; dim = 16384`) or `get_input_groups()`
(NPUKernelBench format: a list of input sets, the cases, usually built from a JSON-lines file
beside the reference — one line per case, `{"inputs": [{"name", "type": "tensor" | "attr" |
"tensor_list", "dtype", "shape" | "value", ...}, ...]}`). `load_cases` gives every input set
of either format as one `CaseSet`: the cases of get_input_groups(), or one run of get_inputs()
per seed. `load_reference` runs one input set: it
in a child Python (the venv's interpreter), with constant overrides applied to the module's
source before it executes, `torch.manual_seed(seed)` before the inputs and before the model is
built, and the forward pass under `torch.no_grad()`. Arrays come back through `.npy` files in a
temporary directory (removed however the call ends). The child runs in its own process group
with stdin closed: a timeout or an interrupt stops it and everything it started, and it stops
itself if this process dies. Every failure is a `ReferenceError` with one sentence naming the file and
the cause — never a raw traceback. The child (`child.py`) also traces the forward for
the drafter and times PyTorch eager for the bench (`run_jobs`).

Arrays of cases come back memory-mapped (copy on write) from the child's files, so a case set of
several GiB costs only the pages a comparison touches.
"""
from __future__ import annotations

import ast
import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import numpy as np

from .. import procs
from . import warm
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
    buffers: dict = field(default_factory=dict)      # Model.named_buffers() and plain tensor attributes, as numpy
    training: bool = True
    input_dtypes: list = field(default_factory=list)   # torch dtype name per input (None for scalars)
    output_dtypes: list = field(default_factory=list)
    overrides: dict = field(default_factory=dict)
    seed: int = 0
    case: int | None = None          # the input group of get_input_groups() (None: get_inputs())
    notes: list = field(default_factory=list)   # one-line notes from the child (a torch_npu stand-in)
    forward_args: list = field(default_factory=list)   # forward's parameter name per input (None: unnamed)
    init_args: list = field(default_factory=list)      # Model.__init__'s parameter name per init input
    attrs: dict = field(default_factory=dict)          # the Model's attributes: a number, or {"kind": type}

    @property
    def label(self) -> str:
        """`case 3` (NPUKernelBench) or `seed 2` (KernelBench): how reports name this input set."""
        return f"case {self.case}" if self.case is not None else f"seed {self.seed}"

    def describe(self) -> str:
        """What the input set is, in one short line: tensor dtypes and shapes, then the other arguments."""
        parts = []
        for v, dt in zip(self.inputs, self.input_dtypes or [None] * len(self.inputs)):
            parts.append(_describe(v, dt))
        return ", ".join(parts)

    @property
    def dtypes(self) -> tuple:
        """The torch dtype names of the tensor inputs, in order (what picks a dtype-generic kernel's variant)."""
        return tuple(dt or str(v.dtype) for v, dt in zip(self.inputs, self.input_dtypes or [None] * len(self.inputs))
                     if isinstance(v, np.ndarray))

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


def _describe(v, dtype=None) -> str:
    if isinstance(v, np.ndarray):
        return f"{dtype or v.dtype} {list(v.shape)}"
    if isinstance(v, list) and v and all(isinstance(x, np.ndarray) for x in v):
        return "[" + ", ".join(_describe(x) for x in v) + "]"
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


@dataclass
class CaseSet:
    """Every input set of a reference: the cases of get_input_groups(), or a run of get_inputs() per seed.

    `cases` holds, in order, a ReferenceRun or the ReferenceError of that case (a case whose
    forward fails is that case's failure). `notes` are one-line notes about the whole reference."""

    path: str
    format: str                       # "NPUKernelBench" (get_input_groups) | "KernelBench" (get_inputs)
    cases: list
    notes: list = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.cases)

    def __iter__(self):
        return iter(self.cases)

    @property
    def first(self):
        """The first case that ran (what a draft and the tiling explanation are made from), or its error."""
        return next((c for c in self.cases if isinstance(c, ReferenceRun)), self.cases[0] if self.cases else None)


def reference_format(path) -> str:
    """"NPUKernelBench" when the file defines get_input_groups() at module level, else "KernelBench"
    (read, never run)."""
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"), filename=str(path))
    except (SyntaxError, OSError, ValueError, RecursionError, MemoryError):
        return "KernelBench"     # the child reports a broken file in its own words
    names = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    names |= {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    return "NPUKernelBench" if "get_input_groups" in names else "KernelBench"


def sidecars(path) -> list[Path]:
    """Files beside a reference that it may read: `<stem>.<ext>` (not Python) and any file whose
    name is a string in its source (a JSON-lines file of cases, typically). A session copies them."""
    path = Path(path)
    try:
        source = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    found = []
    for f in sorted(path.parent.iterdir()) if path.parent.is_dir() else []:
        if not f.is_file() or f == path or f.suffix in (".py", ".pyc"):
            continue
        if f.name.startswith(path.stem + ".") or f"'{f.name}'" in source or f'"{f.name}"' in source:
            found.append(f)
    return found


def load_cases(path, *, overrides: dict | None = None, seeds=(0, 1, 2, 3, 4), timeout: float = 900,
               as_file: str | None = None, cases=None) -> CaseSet:
    """Every input set of the reference at `path` (one child process).

    NPUKernelBench format: the cases of get_input_groups() (seeded once with seeds[0]; `cases`
    limits them to some indices). KernelBench: get_inputs() once per seed. Raises ReferenceError
    when the reference cannot load at all; a case that fails is a ReferenceError in the set."""
    fmt = reference_format(path)
    base = {"path": str(path), "overrides": dict(overrides or {})}
    if as_file:
        base["as_file"] = str(as_file)
    if fmt == "NPUKernelBench":
        job = dict(base, mode="cases", seed=int(seeds[0]) if seeds else 0)
        if cases is not None:
            job["cases"] = [int(i) for i in cases]
        answer = run_jobs([job], timeout=timeout)[0]
        if isinstance(answer, ReferenceError):
            raise answer
        return answer["cases"]
    answers = run_jobs([dict(base, mode="run", seed=int(s)) for s in seeds], timeout=timeout)
    runs = [a["run"] if isinstance(a, dict) else a for a in answers]
    if runs and all(isinstance(r, ReferenceError) for r in runs):
        raise runs[0]
    notes = next((r.notes for r in runs if isinstance(r, ReferenceRun)), [])
    return CaseSet(str(path), fmt, runs, list(notes))


def load_reference(path, *, overrides: dict | None = None, seed: int = 0, timeout: float = 120,
                   as_file: str | None = None) -> ReferenceRun:
    """Run the reference at `path` in a child process and return its inputs, outputs and parameters
    (an NPUKernelBench reference: its first case)."""
    if as_file:
        job = {"mode": "run", "path": str(path), "overrides": dict(overrides or {}), "seed": seed,
               "as_file": str(as_file)}
        result = run_jobs([job], timeout=timeout)[0]
        result = result["run"] if isinstance(result, dict) else result
    else:
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
    (`python -I child.py`: isolated, it imports nothing from this package), forked from a warm
    parent that has imported torch already when one is free (`warm.py`).

    Returns per job a dict (`graph` for trace, a ReferenceRun as `run`, `timing` for time) or
    the ReferenceError it raised.
    """
    results: list = [None] * len(jobs)
    for i, job in enumerate(jobs):
        if not Path(job["path"]).is_file():
            what = "is a directory, not a file" if Path(job["path"]).is_dir() else "does not exist"
            results[i] = ReferenceError(f"reference {Path(job['path']).name} {what} ({job['path']})",
                                        str(job["path"]), None, "open")
    todo = [i for i, r in enumerate(results) if r is None]
    if not todo:
        return results
    with procs.scratch_dir("ascendcraft-child-") as tmpd:
        spec = []
        for i in todo:
            job = dict(jobs[i])
            job["path"] = str(Path(job["path"]).resolve())
            if job.get("as_file"):      # the child runs in tmpd: a relative __file__ would point there
                job["as_file"] = str(Path(job["as_file"]).absolute())
            job["overrides"] = _jsonable(job.get("overrides") or {})
            job["out"] = str(tmpd / f"job{i}")
            spec.append(job)
        (tmpd / "jobs.json").write_text(json.dumps(spec))
        proc_error = None
        try:
            proc = warm.run_child(tmpd / "jobs.json", tmpd, timeout) or \
                procs.run([sys.executable, "-I", str(CHILD), str(tmpd / "jobs.json")], timeout=timeout, cwd=tmpd)
            if proc.returncode < 0:
                proc_error = f"the reference process {procs.killed_by(proc.returncode)}"
            elif proc.returncode != 0:
                tail = (proc.stderr or "").strip().splitlines()
                proc_error = (f"the reference process exited with code {proc.returncode}"
                              + (f" ({tail[-1]})" if tail else ""))
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
        return ReferenceError(f"reference {name} failed {e['where']}{_at(e.get('line'))}: {e['message']}",
                              path, e.get("line"), e["where"])
    mode = job["mode"]
    if mode == "trace" and (out / "graph.json").is_file():
        return {"graph": json.loads((out / "graph.json").read_text())}
    if mode == "time" and (out / "timing.json").is_file():
        return {"timing": json.loads((out / "timing.json").read_text())}
    if mode == "run" and (out / "meta.json").is_file():
        return {"run": _reference_run(out, job, overrides)}
    if mode == "cases" and (out / "cases.json").is_file():
        return {"cases": _case_set(out, job, overrides)}
    why = proc_error or "the reference process stopped before finishing"
    return ReferenceError(f"reference {name} {why}" if why.startswith("did not") else f"reference {name} failed: {why}",
                          path, None, "process")


def _case_set(out: Path, job: dict, overrides: dict | None) -> CaseSet:
    index = json.loads((out / "cases.json").read_text())
    name = Path(job["path"]).name
    cases = []
    for i in index["cases"]:
        d = out / f"case{i}"
        if (d / "error.json").is_file():
            e = json.loads((d / "error.json").read_text())
            cases.append(ReferenceError(f"reference {name} failed on case {i} {e['where']}{_at(e.get('line'))}: "
                                        f"{e['message']}", job["path"], e.get("line"), e["where"]))
        else:
            cases.append(_reference_run(d, dict(job, case=i), overrides, lazy=True))
    return CaseSet(job["path"], "NPUKernelBench", cases, list(index.get("notes") or []))


def _reference_run(out: Path, job: dict, overrides: dict | None, lazy: bool = False) -> ReferenceRun:
    meta = json.loads((out / "meta.json").read_text())

    def value(item):
        if item["kind"] == "array":
            # memory-mapped copy-on-write: a big case costs the pages that are read (the file may
            # be deleted once mapped)
            return np.load(out / item["file"], allow_pickle=False, mmap_mode="c" if lazy else None)
        if item["kind"] == "list":
            return [value(x) for x in item["items"]]
        return item["value"]

    def flat(items):     # a list of tensors among forward's inputs or results: one per tensor, as a draft declares
        return [y for x in items for y in (flat(x["items"]) if x["kind"] == "list" else [x])]

    meta["inputs"], meta["outputs"] = flat(meta["inputs"]), flat(meta["outputs"])
    return ReferenceRun(
        path=job["path"],
        inputs=[value(x) for x in meta["inputs"]],
        init_inputs=[value(x) for x in meta["init_inputs"]],
        outputs=[v if isinstance(v, list) else np.asarray(v) for v in map(value, meta["outputs"])],
        parameters={k: value(v) for k, v in meta["parameters"].items()},
        buffers={k: value(v) for k, v in meta["buffers"].items()},
        training=bool(meta["training"]),
        input_dtypes=[x.get("torch_dtype") for x in meta["inputs"]],
        output_dtypes=[x.get("torch_dtype") for x in meta["outputs"]],
        overrides=dict(overrides if overrides is not None else job.get("overrides") or {}),
        seed=int(job.get("seed", 0)),
        case=meta.get("case", job.get("case")),
        notes=list(meta.get("notes") or []),
        forward_args=list(meta.get("forward_args") or []),
        init_args=list(meta.get("init_args") or []),
        attrs=dict(meta.get("attrs") or {}),
    )


def _at(line) -> str:
    return f" (line {line})" if line else ""
