"""`ascendcraft bench --executor ray`: every op is one Ray task on a cluster (the only module that imports Ray).

The driver (this machine) connects to a cluster (`--address auto`: the one `ray start` made here;
`HOST:PORT` of a head; `ray://HOST:PORT` through Ray Client; `local`: a one-machine Ray started
for the run) and ships this package to it as the job's runtime environment (`py_modules`: the
emulator's headers and the suite travel with it), so a node needs Python, the package's
dependencies and g++, never the driver's files. Each op is a task asking for one CPU (and, with
`--backend cann`, one `NPU`, a resource the NPU hosts declare); the task gets the op's job and
its reference file with its sidecars (the object store), writes them to a scratch folder on its
node and runs the same worker process the local pool runs (`executor.run_worker`, with the op's
time limit), then returns the op's folder packed. The driver unpacks it into the op's folder
here (paths of the node's scratch folder put back to this machine's), and the result joins
`results.json` and the reports as the local pool's do.

A task lost with its node (or its worker process killed under it) is submitted once more; lost
again, the op's result says so (stage `lost`, never a verdict on the kernel) and `--resume` runs
it again. Ctrl-C cancels every task (each stops its worker's process group), waits
`WORKER_GRACE_S` for them, then kills what is left. An NPUKernelBench op's case counter reaches
the bar through a small actor the tasks report to. Compiled kernels are cached where the node's
worker runs them, per node (its `ASCENDCRAFT_CACHE_DIR`, else ~/.cache/ascendcraft).
"""
from __future__ import annotations

import io
import json
import logging
import os
import platform
import signal
import tarfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from .. import procs
from ..reference import reference_format, sidecars
from .executor import WORKER_GRACE_S, Stop, op_job, op_result, run_worker
from .suite import SuiteOp

ATTEMPTS = 2                 # a task lost with its node is run once more, then reported as lost
CANCEL_WAIT_S = WORKER_GRACE_S + 10.0   # a cancelled task's time to stop its worker before it is killed
ENV_FORWARDED = ("ASCENDCRAFT_MODEL",)  # settings of the run the nodes need (never a key: each node has its own)
INSTALL_HINT = "pip install 'ascendcraft-lab[ray]'"


class ExecutorError(Exception):
    """The Ray executor cannot run: Ray missing, no cluster, no node for the backend. One line."""


def _ray():
    try:
        import ray
    except ImportError:
        raise ExecutorError(f"--executor ray needs Ray on this machine and on the cluster's nodes: {INSTALL_HINT}") \
            from None
    return ray


def package_root() -> Path:
    """The folder holding this package (what the runtime environment ships)."""
    return Path(__file__).resolve().parents[2]


# ------------------------------------------------------------------------------------------- on a node
def run_op_task(job: dict, files: dict, timeout: float, board=None) -> dict:
    """The Ray task: one op on this node, the same worker process as the local pool's; its folder packed."""
    ray = _ray()
    stop = Stop()
    with procs.scratch_dir("acbench-ray-") as work:
        refdir, opdir = work / "reference", work / "op"
        refdir.mkdir()
        opdir.mkdir()
        for name, data in files.items():
            (refdir / name).write_bytes(data)
        here = dict(job, path=str(refdir / Path(job["path"]).name), opdir=str(opdir))
        (opdir / "job.json").write_text(json.dumps(here, indent=1))
        env = dict(os.environ)     # the worker imports this copy of the package, the one Ray shipped
        env["PYTHONPATH"] = os.pathsep.join([str(package_root())] + [p for p in [env.get("PYTHONPATH")] if p])
        t0 = time.perf_counter()
        why = run_worker(opdir / "job.json", timeout, stop, env=env, cwd=work,
                         tick=_Reporter(opdir / "progress.json", f"{job['category']}/{job['op']}", board))
        (opdir / "job.json").unlink()
        return {"why": why or "", "seconds": time.perf_counter() - t0, "files": _pack(opdir),
                "opdir": str(opdir), "refdir": str(refdir),
                "node": {"ip": ray.util.get_node_ip_address(), "host": platform.node()}}


class _Reporter:
    """Sends the worker's case counter (progress.json) to the driver's board when it changes."""

    def __init__(self, path: Path, name: str, board):
        self.path, self.name, self.board, self.last = path, name, board, None

    def __call__(self) -> None:
        if self.board is None:
            return
        try:
            now = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return
        if now != self.last:
            self.last = now
            self.board.report.remote(self.name, int(now.get("done", 0)), int(now.get("total", 0)))


def _pack(folder: Path) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for f in sorted(folder.iterdir()):
            tar.add(f, arcname=f.name)
    return buf.getvalue()


class ProgressBoard:
    """The case counters of the running NPUKernelBench ops, for the driver's bar (a Ray actor)."""

    def __init__(self):
        self.counts: dict[str, tuple[int, int]] = {}

    def report(self, name: str, done: int, total: int) -> None:
        self.counts[name] = (done, total)

    def snapshot(self) -> dict:
        return dict(self.counts)


# ------------------------------------------------------------------------------------------- the driver
@dataclass
class _Attempt:
    op: SuiteOp
    job: dict
    base: dict
    number: int = 1
    lost: list = field(default_factory=list)      # why each earlier attempt was lost


class RayExecutor:
    """One Ray task per op on the cluster at `address`; results come back as the tasks finish."""

    def __init__(self, args, shapes: list[str], out: Path, address: str | None, note: Callable[[str], None] = print):
        ray = self.ray = _ray()
        self.args, self.shapes, self.out, self.note = args, shapes, out, note
        self.cap = args.jobs             # None: as many ops at once as the cluster has room for
        self.running: dict = {}          # task ref -> _Attempt
        self.stopping = False
        self.board = None
        env = {k: os.environ[k] for k in ENV_FORWARDED if os.environ.get(k)}
        runtime_env = {"py_modules": [str(package_root() / "ascendcraft_lab")],
                       "excludes": ["__pycache__", "*.pyc", "labextension"], **({"env_vars": env} if env else {})}
        main = threading.current_thread() is threading.main_thread()
        handler = signal.getsignal(signal.SIGTERM) if main else None
        address = address or os.environ.get("RAY_ADDRESS") or "auto"     # never a new local Ray unasked
        try:
            ray.init(address=address, runtime_env=runtime_env, logging_level=logging.WARNING, log_to_driver=False,
                     include_dashboard=False if address == "local" else None)
        except Exception as e:  # noqa: BLE001 - Ray raises ConnectionError, RuntimeError, ValueError ... for one cause
            raise ExecutorError(f"cannot connect to a Ray cluster at {address}: {_first_line(e)} (start one with "
                                f"`ray start --head`, or give --address HOST:PORT, ray://HOST:PORT or local)") from None
        finally:
            if handler is not None:   # ray.init makes SIGTERM exit at once; the bench's handler stops the workers first
                signal.signal(signal.SIGTERM, handler)
        self.address = address
        resources = ray.cluster_resources()
        self.nodes = sum(1 for n in ray.nodes() if n.get("Alive"))
        self.cpus, self.npus = int(resources.get("CPU", 0)), int(resources.get("NPU", 0))
        if args.backend == "cann" and self.npus < 1:
            self.close()
            raise ExecutorError(f"no node of the Ray cluster at {self.address} declares an NPU resource; start the NPU "
                                "hosts with `ray start --address HEAD:PORT --resources '{\"NPU\": 8}'` (8: its NPUs)")
        self.remote = ray.remote(run_op_task)
        self.task_resources = {"NPU": 1} if args.backend == "cann" else {}
        what = f"{self.npus} NPUs" if args.backend == "cann" else f"{self.cpus} CPUs"
        note(f"ascendcraft bench: Ray cluster at {self.address}: {self.nodes} node(s), {what}; one task per op")

    def describe(self) -> dict:
        return {"kind": "ray", "address": self.address, "nodes": self.nodes, "cpus": self.cpus, "npus": self.npus,
                "jobs": self.cap}

    @property
    def parallel(self) -> int:
        """At most this many ops run at once (the cluster's room for them, or --jobs)."""
        room = self.npus if self.args.backend == "cann" else self.cpus
        return min(room, self.cap) if self.cap else room

    # -- submitting and collecting
    def _submit(self, a: _Attempt) -> None:
        files = {f.name: f.read_bytes() for f in [a.op.path, *sidecars(a.op.path)]}
        board = self._board() if reference_format(a.op.path) == "NPUKernelBench" else None
        ref = self.remote.options(num_cpus=1, resources=self.task_resources, max_retries=0,
                                  name=f"bench {a.op.name}").remote(a.job, files, self.args.timeout, board)
        self.running[ref] = a

    def _board(self):
        if self.board is None:        # next to the driver, so a worker node's loss does not take it along
            from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
            here = NodeAffinitySchedulingStrategy(self.ray.get_runtime_context().get_node_id(), soft=True)
            self.board = self.ray.remote(ProgressBoard).options(num_cpus=0, max_restarts=-1,
                                                                scheduling_strategy=here).remote()
        return self.board

    def results(self, ops: list[SuiteOp]) -> Iterator[tuple[SuiteOp, dict]]:
        queue = []
        for op in ops:
            job, base = op_job(op, self.args, self.shapes, self.out)
            if op.error:
                yield op, base
                continue
            (Path(job["opdir"]) / "job.json").write_text(json.dumps(job, indent=1))
            queue.append(_Attempt(op, job, base))
        ray = self.ray
        while queue or self.running:
            while queue and (not self.cap or len(self.running) < self.cap):
                a = queue.pop(0)
                try:
                    self._submit(a)
                except OSError as e:    # the reference went away since the suite was read: that op's failure
                    yield a.op, op_result(a.job, a.base, f"its reference could not be read: {e}", 0.0)
            if not self.running:
                continue
            ready, _ = ray.wait(list(self.running), num_returns=1, timeout=1.0)
            if ready:                   # and whatever else has finished by now
                rest = [r for r in self.running if r not in ready]
                ready += ray.wait(rest, num_returns=len(rest), timeout=0)[0] if rest else []
            self._show_cases()
            for ref in ready:
                a = self.running.pop(ref)
                r = self._collect(ref, a)
                if r is not None:
                    yield a.op, r

    def _collect(self, ref, a: _Attempt) -> dict | None:
        """The op's result from its finished task; None when it was cancelled or is run again."""
        ex = self.ray.exceptions
        try:
            payload = self.ray.get(ref)
        except ex.TaskCancelledError:
            return None
        except ex.RayTaskError as e:     # the task's own code failed: that op's crash, not the node's
            return op_result(a.job, a.base, f"the Ray task failed: {_first_line(e)}", 0.0)
        except ex.RayError as e:         # the node died, or the worker process under the task
            if self.stopping:
                return None
            a.lost.append(f"{type(e).__name__}: {_first_line(e)}")
            if a.number < ATTEMPTS:
                self.note(f"ascendcraft bench: {a.op.name} was lost with its Ray node ({a.lost[-1]}); "
                          f"running it once more")
                a.number += 1
                self._submit(a)
                return None
            return self._lost(a)
        return self._unpack(a, payload)

    def _unpack(self, a: _Attempt, payload: dict) -> dict:
        opdir = Path(a.job["opdir"])
        with tarfile.open(fileobj=io.BytesIO(payload["files"]), mode="r:gz") as tar:
            if hasattr(tarfile, "data_filter"):      # Python 3.11.4+: refuse links and paths out of the folder
                tar.extractall(opdir, filter="data")
            else:
                tar.extractall(opdir)
        moves = [(payload["opdir"], str(opdir)), (payload["refdir"], str(a.op.path.parent))]
        log = opdir / "log.txt"
        if log.is_file():
            text = _moved(log.read_text(errors="replace"), moves)
            ran = f"ray node {payload['node']['ip']} ({payload['node']['host']}), attempt {a.number}"
            lost = "".join(f"; attempt {i + 1} was lost: {why}" for i, why in enumerate(a.lost))
            log.write_text(f"bench: ran on {ran}{lost}\n{text}")
        result = opdir / "result.json"
        if result.is_file():
            result.write_text(json.dumps(_moved(json.loads(result.read_text()), moves), indent=1))
        r = op_result(a.job, a.base, payload["why"], payload["seconds"])
        r.setdefault("worker", {})["ray"] = {"node": payload["node"]["ip"], "host": payload["node"]["host"],
                                             "attempt": a.number, "lost": list(a.lost)}
        return r

    def _lost(self, a: _Attempt) -> dict:
        why = (f"lost with its Ray node on all {ATTEMPTS} attempts ({'; '.join(a.lost)}); not a verdict on the "
               "kernel: --resume runs it again")
        (Path(a.job["opdir"]) / "log.txt").write_text(f"bench: {why}\n")
        r = dict(a.base, lost=list(a.lost), seconds=0.0)
        r["shapes"] = {s["label"]: {"compiled": False, "correct": False, "stage": "lost", "error": why}
                       for s in a.job["shapes"]}
        return r

    def _show_cases(self) -> None:
        """The board's case counters as the ops' progress.json here, which the bar reads."""
        if self.board is None:
            return
        try:
            counts = self.ray.get(self.board.snapshot.remote(), timeout=5)
        except Exception:  # noqa: BLE001 - a board lost with its node only stops the counter until it restarts
            return
        for name, (done, total) in counts.items():
            path = self.out / "ops" / name / "progress.json"
            if path.parent.is_dir():
                tmp = path.with_suffix(".tmp")
                tmp.write_text(json.dumps({"done": done, "total": total}))
                tmp.replace(path)

    # -- stopping
    def stop(self) -> None:
        """Cancel every task (each stops its worker's process group), then kill those still running."""
        self.stopping = True
        refs = list(self.running)
        for ref in refs:
            self.ray.cancel(ref)
        left = self.ray.wait(refs, num_returns=len(refs), timeout=CANCEL_WAIT_S)[1] if refs else []
        for ref in left:        # only those still running: Ray does not expect a finished task cancelled again
            try:
                self.ray.cancel(ref, force=True)
            except Exception:  # noqa: BLE001 - it finished meanwhile
                pass
        self.running.clear()

    def close(self) -> None:
        if self.ray.is_initialized():
            self.ray.shutdown()


def _first_line(exc: BaseException) -> str:
    lines = [l.strip() for l in str(exc).splitlines() if l.strip()]
    text = lines[0] if lines else type(exc).__name__
    return text if len(text) <= 300 else text[:297] + "..."


def _moved(value, moves: list[tuple[str, str]]):
    """`value` (a string, or a JSON value's strings) with each node path replaced by this machine's."""
    if isinstance(value, str):
        for there, here in moves:
            value = value.replace(there, here)
        return value
    if isinstance(value, list):
        return [_moved(v, moves) for v in value]
    if isinstance(value, dict):
        return {k: _moved(v, moves) for k, v in value.items()}
    return value
