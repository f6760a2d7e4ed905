"""Who runs a bench run's ops: the job an op becomes, the worker process that runs it, and the
executors that schedule the jobs.

Every executor runs an op the same way: `op_job` writes what the op needs to know (`job`), one
worker process (`python -m ascendcraft_lab.bench.worker JOB.json`, started by `run_worker` with
the op's time limit) runs draft -> lower -> compile -> verify into the op's folder, and
`op_result` reads the `result.json` it wrote, or makes the op's crash result when it wrote none.
Only where the worker runs differs:

- `LocalPool` (the default): threads here, at most `--jobs` worker processes at a time.
- `RayExecutor` (`ray_executor.py`, `--executor ray`): one Ray task per op on a cluster, which
  runs the same `run_worker` on its node; Ray is imported there only.

An executor's `results(ops)` yields `(op, result)` as ops finish, in any order; `stop()` (on
Ctrl-C or SIGTERM) stops every worker with whatever it started, and `results` then ends;
`close()` releases the executor. `describe()` is what the run's metadata records of it.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Callable, Iterator

from .. import procs
from .suite import SuiteOp

WORKER_GRACE_S = 5.0     # a stopped worker's time to stop its own children and remove its temporary files
POLL_S = 0.25            # how often a waiting executor looks at its worker (and at an interrupt)
TORCH_SYMBOLS = ("torch::", "at::", "ATen/", "Python.h", "pybind11", "c10::", "PyObject")


class Stop:
    """What an interrupt needs: a flag the workers' threads see, and the workers to kill."""

    def __init__(self):
        self.event = threading.Event()
        self.live: set[subprocess.Popen] = set()
        self.lock = threading.Lock()

    def kill_all(self) -> None:
        self.event.set()
        with self.lock:
            live = list(self.live)
        procs.stop_groups(live, grace=WORKER_GRACE_S)


def shape_list(op: SuiteOp, shapes: list[str]) -> list[dict]:
    out = []
    for s in shapes:
        if s == "reference":
            out.append({"label": "reference", "overrides": {}})
        elif op.tail:
            out.append({"label": "tail", "overrides": op.tail})
    return out


def op_job(op: SuiteOp, args, shapes: list[str], out: Path) -> tuple[dict, dict]:
    """The op's job (what the worker reads) and its result's fields known before it runs; the op's
    folder is made, and a result.json of an earlier run in it removed."""
    opdir = out / "ops" / op.category / op.op
    opdir.mkdir(parents=True, exist_ok=True)
    (opdir / "result.json").unlink(missing_ok=True)
    job = {"op": op.op, "category": op.category, "path": str(op.path), "opdir": str(opdir),
           "shapes": shape_list(op, shapes), "draft": args.draft, "engine": args.engine, "backend": args.backend,
           "soc": args.soc, "dtype": "float16" if args.dtype == "f16" else "float32", "seeds": list(range(args.seeds)),
           "timing": not args.no_timing}
    base = {"op": op.op, "category": op.category, "path": str(op.path), "draft": None,
            "log": str((opdir / "log.txt").relative_to(out)), "shapes": {}}
    if op.error:
        base["shapes"] = {s["label"]: {"compiled": False, "correct": False, "stage": "suite", "error": op.error}
                          for s in job["shapes"]}
    return job, base


TIMED_OUT = "the op did not finish within"      # how run_worker's answer for an op stopped at --timeout begins


def run_worker(job_file: Path, timeout: float, stop: Stop, *, env: dict | None = None, cwd: Path | None = None,
               tick: Callable[[], None] | None = None) -> str | None:
    """Run the worker process on `job_file` until it exits, `timeout` s pass or `stop` is set.

    Returns "" when it exited cleanly, why it did not (a crash, the time limit), or None when the
    run was stopped. Its whole process group is killed however this returns (an interrupt here
    too); `tick` runs every POLL_S s while it works (the Ray executor reports progress there)."""
    with tempfile.TemporaryFile() as output:      # a file, not a pipe: nothing the worker prints can stall it
        with stop.lock:
            if stop.event.is_set():
                return None
            try:
                proc = procs.spawn([sys.executable, "-m", "ascendcraft_lab.bench.worker", str(job_file)],
                                   env=env, cwd=cwd, stdout=output, stderr=subprocess.STDOUT)
            except OSError as e:
                return f"the worker process could not start: {e}"
            stop.live.add(proc)
        deadline = time.monotonic() + timeout
        try:
            while proc.poll() is None and time.monotonic() < deadline and not stop.event.is_set():
                if tick:
                    tick()
                try:
                    proc.wait(timeout=POLL_S)
                except subprocess.TimeoutExpired:
                    pass
        finally:
            running = proc.poll() is None
            procs.kill_group(proc, grace=WORKER_GRACE_S)      # and whatever it left running
            with stop.lock:
                stop.live.discard(proc)
        if stop.event.is_set():
            return None
        if running:
            return f"{TIMED_OUT} {timeout:g} s (--timeout) and was stopped"
        if proc.returncode != 0:
            output.seek(0)
            return f"the worker process exited with code {proc.returncode}" + _last_line(output.read().decode(
                "utf-8", errors="replace"))
        return ""


def op_result(job: dict, base: dict, why: str, seconds: float) -> dict:
    """The op's result: the worker's result.json, or (`why` it failed, or no result.json) its crash."""
    opdir = Path(job["opdir"])
    result_file = opdir / "result.json"
    if result_file.is_file() and not why:
        r = json.loads(result_file.read_text())
    else:
        r = dict(base)
        stage = "timeout" if why.startswith(TIMED_OUT) else "crash"      # a slow op is not a crashed one
        r["shapes"] = {s["label"]: {"compiled": False, "correct": False, "stage": stage,
                                    "error": why or "the worker wrote no result"} for s in job["shapes"]}
        r["seconds"] = round(seconds, 2)
        with open(opdir / "log.txt", "a", encoding="utf-8") as fh:
            fh.write(f"\nbench: {why or 'the worker wrote no result'}\n")
    r["log"] = base["log"]
    _check_torch_free(r, opdir)
    return r


def _last_line(text: str) -> str:
    lines = [l for l in (text or "").strip().splitlines() if l.strip()]
    return f" ({lines[-1][:200]})" if lines else ""


def _check_torch_free(r: dict, opdir: Path) -> None:
    """The kernel sources must not reach for PyTorch (they cannot link it; this makes it explicit)."""
    for label, sr in r["shapes"].items():
        kdir = opdir / label / "ascendc" / "kernel"
        hits = []
        for f in sorted(kdir.glob("*")) if kdir.is_dir() else []:
            text = f.read_text(errors="replace")
            hits += [f"{f.name}: {sym}" for sym in TORCH_SYMBOLS if sym in text]
        sr["kernel_calls_torch"] = bool(hits)
        if hits and sr.get("correct"):
            sr.update(correct=False, stage="integrity", error=f"the kernel source refers to PyTorch ({hits[0]})")


def run_local(op: SuiteOp, args, shapes: list[str], out: Path, stop: Stop | None = None) -> dict | None:
    """One op in a worker process on this machine; its result, or None when the run was stopped."""
    stop = stop or Stop()
    if stop.event.is_set():
        return None
    job, base = op_job(op, args, shapes, out)
    if op.error:
        return base
    opdir = Path(job["opdir"])
    (opdir / "job.json").write_text(json.dumps(job, indent=1))
    t0 = time.perf_counter()
    why = run_worker(opdir / "job.json", args.timeout, stop)
    if why is None or stop.event.is_set():
        return None
    return op_result(job, base, why, time.perf_counter() - t0)


class LocalPool:
    """At most `jobs` ops at a time, each in a worker process on this machine."""

    def __init__(self, args, shapes: list[str], out: Path, jobs: int):
        self.args, self.shapes, self.out, self.jobs = args, shapes, out, jobs
        self.stopper = Stop()
        self.pool = ThreadPoolExecutor(max_workers=max(1, jobs))

    def describe(self) -> dict:
        return {"kind": "local", "jobs": self.jobs}

    def results(self, ops: list[SuiteOp]) -> Iterator[tuple[SuiteOp, dict]]:
        futures = {self.pool.submit(run_local, op, self.args, self.shapes, self.out, self.stopper): op for op in ops}
        for fut in as_completed(futures):
            r = fut.result()
            if r is not None:            # None: stopped before it finished
                yield futures[fut], r

    def stop(self) -> None:
        self.stopper.kill_all()
        self.pool.shutdown(wait=True, cancel_futures=True)

    def close(self) -> None:
        self.pool.shutdown(wait=True)
