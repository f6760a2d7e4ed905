"""Loading a PyTorch reference (KernelBench format) safely: the user's code runs in a child process.

A reference file defines `class Model(nn.Module)`, `get_inputs()` and `get_init_inputs()`, and
usually module-level shape constants (`batch_size = 16; dim = 16384`). `load_reference` runs it
in a child Python (the venv's interpreter), with constant overrides applied to the module's
source before it executes, `torch.manual_seed(seed)` before the inputs and before the model is
built, and the forward pass under `torch.no_grad()`. Arrays come back through `.npy` files in a
temporary directory. Every failure is a `ReferenceError` with one sentence naming the file and
the cause — never a raw traceback.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import numpy as np


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
        from .dsl.errors import Span, format_diagnostic
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
    jobs = [(str(Path(p).resolve()), dict(o or {}), int(s)) for p, o, s in requests]
    results: list = [None] * len(jobs)
    for i, (p, o, _) in enumerate(jobs):
        if not Path(p).is_file():
            results[i] = ReferenceError(f"reference {Path(p).name} does not exist ({p})", p, None, "open")
        else:
            try:
                json.dumps(o)
            except TypeError:
                results[i] = ReferenceError(f"overrides for {Path(p).name} must be plain numbers, strings, lists or tuples",
                                            p, None, "overrides")
    todo = [i for i, r in enumerate(results) if r is None]
    if not todo:
        return results
    with tempfile.TemporaryDirectory(prefix="ascendcraft-ref-") as tmp:
        tmpd = Path(tmp)
        spec = [{"path": jobs[i][0], "overrides": _jsonable(jobs[i][1]), "seed": jobs[i][2], "out": str(tmpd / f"job{i}")}
                for i in todo]
        (tmpd / "jobs.json").write_text(json.dumps(spec))
        (tmpd / "child.py").write_text(_CHILD)
        proc_error = None
        try:
            proc = subprocess.run([sys.executable, "-I", str(tmpd / "child.py"), str(tmpd / "jobs.json")],
                                  capture_output=True, text=True, timeout=timeout * len(todo), cwd=tmp)
            if proc.returncode != 0:
                tail = (proc.stderr or "").strip().splitlines()
                proc_error = f"the reference process exited with code {proc.returncode}" + (f" ({tail[-1]})" if tail else "")
        except subprocess.TimeoutExpired:
            proc_error = f"did not finish within {timeout:g} s"
        for i in todo:
            results[i] = _collect(Path(spec[todo.index(i)]["out"]), jobs[i], proc_error)
    return results


def _jsonable(o: dict) -> dict:
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in o.items()}


def _collect(out: Path, job, proc_error: str | None):
    path, overrides, seed = job
    name = Path(path).name
    err_file = out / "error.json"
    meta_file = out / "meta.json"
    if err_file.is_file():
        e = json.loads(err_file.read_text())
        return ReferenceError(f"reference {name} failed {e['where']}{_at(e.get('line'))}: {e['message']}",
                              path, e.get("line"), e.get("stage", ""))
    if not meta_file.is_file():
        why = proc_error or "the reference process stopped before finishing"
        return ReferenceError(f"reference {name} {why}" if why.startswith("did not") else f"reference {name} failed: {why}",
                              path, None, "process")
    meta = json.loads(meta_file.read_text())

    def value(item):
        if item["kind"] == "array":
            return np.load(out / item["file"], allow_pickle=False)
        return item["value"]

    return ReferenceRun(
        path=path,
        inputs=[value(x) for x in meta["inputs"]],
        init_inputs=[value(x) for x in meta["init_inputs"]],
        outputs=[np.asarray(value(x)) for x in meta["outputs"]],
        parameters={k: value(v) for k, v in meta["parameters"].items()},
        buffers={k: value(v) for k, v in meta["buffers"].items()},
        training=bool(meta["training"]),
        input_dtypes=[x.get("torch_dtype") for x in meta["inputs"]],
        output_dtypes=[x.get("torch_dtype") for x in meta["outputs"]],
        overrides=dict(overrides),
        seed=seed,
    )


def _at(line) -> str:
    return f" (line {line})" if line else ""


# The child: reads jobs.json, runs each reference, writes meta.json + .npy files or error.json.
# Kept as text so it runs with `python -I` (isolated: no user site, no cwd on sys.path) and
# needs nothing from this package.
_CHILD = r'''
import ast, json, os, random, sys, traceback
from pathlib import Path


def fail(out, where, stage, exc, path):
    line = None
    for fr in traceback.extract_tb(exc.__traceback__):
        if os.path.abspath(fr.filename) == path:
            line = fr.lineno
    if isinstance(exc, SyntaxError) and exc.filename and os.path.abspath(exc.filename) == path:
        line = exc.lineno
    raw = exc.msg if isinstance(exc, SyntaxError) and exc.msg else str(exc)
    msg = raw.strip().splitlines()[0] if raw.strip() else ""
    text = f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__
    if len(text) > 300:
        text = text[:297] + "..."
    (out / "error.json").write_text(json.dumps({"where": where, "stage": stage, "message": text, "line": line}))


def simple_fail(out, where, stage, message, line=None):
    (out / "error.json").write_text(json.dumps({"where": where, "stage": stage, "message": message, "line": line}))


def convert(v, out, stem, np, torch):
    if isinstance(v, torch.Tensor):
        t = v.detach().cpu()
        dtype = str(t.dtype).replace("torch.", "")
        if t.dtype == torch.bfloat16:
            t = t.float()
        if t.is_complex():
            raise TypeError("complex tensors are not supported")
        np.save(out / f"{stem}.npy", t.numpy(), allow_pickle=False)
        return {"kind": "array", "file": f"{stem}.npy", "torch_dtype": dtype}
    if isinstance(v, np.ndarray):
        np.save(out / f"{stem}.npy", v, allow_pickle=False)
        return {"kind": "array", "file": f"{stem}.npy", "torch_dtype": str(v.dtype)}
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, (bool, int, float, str)) or v is None:
        return {"kind": "scalar", "value": v}
    if isinstance(v, (list, tuple)) and all(isinstance(x, (bool, int, float, str)) for x in v):
        return {"kind": "scalar", "value": list(v)}
    return {"kind": "scalar", "value": repr(v)}


def run_job(job, np, torch):
    path = job["path"]
    out = Path(job["out"])
    out.mkdir(parents=True, exist_ok=True)
    try:
        source = Path(path).read_text(encoding="utf-8")
        tree = ast.parse(source, filename=path)
    except SyntaxError as e:
        fail(out, "to parse", "syntax", e, path)
        return
    except Exception as e:
        fail(out, "to open", "open", e, path)
        return
    overrides = dict(job["overrides"])
    seen = set()
    for node in tree.body:
        targets = []
        if isinstance(node, ast.Assign):
            targets = [t for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            targets = [node.target]
        for t in targets:
            if t.id in overrides:
                value = overrides[t.id]
                node.value = ast.copy_location(ast.parse(repr(tuple(value)) if isinstance(value, list) else repr(value), mode="eval").body, node.value)
                seen.add(t.id)
    missing = sorted(set(overrides) - seen)
    if missing:
        simple_fail(out, "to take overrides", "overrides", f"it has no module-level constant {', '.join(missing)}")
        return
    ast.fix_missing_locations(tree)
    mod_name = "ascendcraft_reference_" + str(abs(hash(path)))
    import types
    module = types.ModuleType(mod_name)
    module.__file__ = path
    sys.modules[mod_name] = module
    sys.path.insert(0, str(Path(path).parent))
    try:
        exec(compile(tree, path, "exec"), module.__dict__)
    except BaseException as e:
        fail(out, "on import", "import", e, path)
        return
    finally:
        sys.path.pop(0)
    for name in ("Model", "get_inputs", "get_init_inputs"):
        if not hasattr(module, name):
            what = "class" if name == "Model" else "function"
            simple_fail(out, "the format check", "format", f"it defines no `{name}` {what} (KernelBench format)")
            return
    seed = int(job["seed"])
    stage = "in get_inputs()"
    try:
        torch.manual_seed(seed); np.random.seed(seed); random.seed(seed)
        inputs = list(module.get_inputs())
        stage = "in get_init_inputs()"
        init_inputs = list(module.get_init_inputs())
        stage = "building Model(*get_init_inputs())"
        torch.manual_seed(seed)
        model = module.Model(*init_inputs)
        stage = "in forward"
        with torch.no_grad():
            result = model(*inputs)
    except BaseException as e:
        fail(out, stage, stage.split()[-1], e, path)
        return
    try:
        outs = list(result) if isinstance(result, (tuple, list)) else [result]
        meta = {
            "inputs": [convert(v, out, f"in{i}", np, torch) for i, v in enumerate(inputs)],
            "init_inputs": [convert(v, out, f"init{i}", np, torch) for i, v in enumerate(init_inputs)],
            "outputs": [],
            "parameters": {}, "buffers": {},
            "training": bool(getattr(model, "training", False)),
        }
        for i, v in enumerate(outs):
            if not isinstance(v, torch.Tensor):
                v = torch.tensor(v)
            meta["outputs"].append(convert(v, out, f"out{i}", np, torch))
        if isinstance(model, torch.nn.Module):
            for i, (k, v) in enumerate(model.named_parameters()):
                meta["parameters"][k] = convert(v, out, f"param{i}", np, torch)
            for i, (k, v) in enumerate(model.named_buffers()):
                meta["buffers"][k] = convert(v, out, f"buffer{i}", np, torch)
        (out / "meta.json").write_text(json.dumps(meta))
    except BaseException as e:
        fail(out, "converting its results", "outputs", e, path)


def main():
    jobs = json.loads(Path(sys.argv[1]).read_text())
    import numpy as np
    import torch
    for job in jobs:
        run_job(job, np, torch)


main()
'''
