"""A real Ray cluster on this machine's loopback, for the Ray executor's tests and its benchmark.

Each node is its own `ray start --block` process group, as on a real cluster host: a head with no
CPUs (so every task runs on a worker node, never beside the driver) and worker nodes added and
killed at will. Every node has its own loopback address (127.0.0.2 for the head, 127.0.0.3, ...
for the workers: Ray rewrites 127.0.0.1 to the machine's network address, other loopback addresses
it keeps), its own ports, and the cluster one short temporary folder (Ray's socket paths must stay
under 108 bytes), so two clusters on one machine never meet. The nodes get no PYTHONPATH and a
working folder outside the repository: a worker can reach the driver's package only through the
runtime environment the executor ships.

`stop()` (and leaving the `with` block, however it is left) kills every node's process group,
SIGTERM then SIGKILL, and removes the folder; each `ray start` also dies with the process that
started it (PR_SET_PDEATHSIG), and Ray's own processes die with their `ray start`.
"""
from __future__ import annotations

import ctypes
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

RAY = Path(sys.executable).with_name("ray")
READY = "Ray runtime started"
START_ATTEMPTS = 3      # a node whose agents start too slowly on a loaded machine is started again
START_TIMEOUT_S = 240.0


class ClusterError(RuntimeError):
    pass


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_parent() -> None:
    ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)      # PR_SET_PDEATHSIG


@dataclass
class Node:
    name: str
    ip: str
    proc: subprocess.Popen
    log: Path
    resources: dict = field(default_factory=dict)

    def alive(self) -> bool:
        return self.proc.poll() is None


class LocalCluster:
    """`with LocalCluster() as c: c.add_worker(num_cpus=2); ... c.address ...`"""

    def __init__(self, client: bool = False):
        self.client_port = _free_port() if client else None     # a Ray Client server (ray://) on the head
        self.root = Path(tempfile.mkdtemp(prefix="acr-ray-", dir="/tmp"))
        self.port = _free_port()
        self.nodes: list[Node] = []
        self._next_ip = 3
        self.env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and not k.startswith("RAY_")}
        self.env["RAY_USAGE_STATS_ENABLED"] = "0"
        # A raylet gives its agents (Python processes importing Ray) 15 s to report their ports, and a
        # node starts four or five such processes at once. `import ray` imports jsonschema, which builds
        # rfc3987_syntax's Earley grammar when that package is installed (jupyter's format extras bring
        # it): 2.5 s of CPU per process, enough to miss the 15 s on two busy cores. The nodes'
        # sitecustomize hides that package (Ray validates no IRIs); it holds nothing of the project.
        site = self.root / "site"
        site.mkdir()
        (site / "sitecustomize.py").write_text("import sys\nsys.modules.setdefault('rfc3987_syntax', None)\n")
        self.env["PYTHONPATH"] = str(site)
        self.head: Node | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.2:{self.port}"

    @property
    def client_address(self) -> str:
        return f"ray://127.0.0.2:{self.client_port}"

    def __enter__(self) -> "LocalCluster":
        head = ["--head", f"--port={self.port}", "--num-cpus=0", f"--temp-dir={self.root}", "--include-dashboard=false"]
        if self.client_port:
            head.append(f"--ray-client-server-port={self.client_port}")
        try:
            self.head = self._start("head", "127.0.0.2", head)
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def add_worker(self, num_cpus: int = 2, resources: dict | None = None) -> Node:
        ip = f"127.0.0.{self._next_ip}"
        self._next_ip += 1
        args = [f"--address={self.address}", f"--num-cpus={num_cpus}"]
        if resources:
            import json
            args.append(f"--resources={json.dumps(resources)}")
        node = self._start(f"worker{self._next_ip - 3}", ip, args)
        node.resources = dict(resources or {}, CPU=num_cpus)
        return node

    def _start(self, name: str, ip: str, args: list[str]) -> Node:
        last = ""
        for attempt in range(1, START_ATTEMPTS + 1):
            log = self.root / f"{name}-{attempt}.log"
            ports = [f"--node-manager-port={_free_port()}", f"--object-manager-port={_free_port()}",
                     f"--metrics-export-port={_free_port()}", f"--dashboard-agent-listen-port={_free_port()}",
                     f"--dashboard-agent-grpc-port={_free_port()}", f"--runtime-env-agent-port={_free_port()}",
                     "--min-worker-port=0", "--max-worker-port=0"]
            with open(log, "w") as fh:
                proc = subprocess.Popen([str(RAY), "start", "--block", f"--node-ip-address={ip}",
                                         "--disable-usage-stats", "--include-log-monitor=false", *args, *ports],
                                        stdin=subprocess.DEVNULL, stdout=fh, stderr=subprocess.STDOUT, env=self.env,
                                        cwd=self.root, start_new_session=True, preexec_fn=_die_with_parent)
            node = Node(name, ip, proc, log)
            self.nodes.append(node)
            deadline = time.monotonic() + START_TIMEOUT_S
            while time.monotonic() < deadline and node.alive() and READY not in log.read_text(errors="replace"):
                time.sleep(0.5)
            if node.alive() and READY in log.read_text(errors="replace"):
                return node
            last = log.read_text(errors="replace")[-2000:]
            self.kill(node)
        raise ClusterError(f"the Ray {name} node did not start in {START_ATTEMPTS} attempts; last log:\n{last}")

    def kill(self, node: Node, graceful: bool = False) -> None:
        """Stop a node's whole process group: as a lost host (SIGKILL at once) or graceful (SIGTERM first)."""
        if graceful:
            _signal(node.proc, signal.SIGTERM)
            try:
                node.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                pass
        _signal(node.proc, signal.SIGKILL)
        try:
            node.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass

    def stop(self) -> None:
        for node in reversed(self.nodes):      # workers before the head
            self.kill(node, graceful=node.alive())
        self.nodes.clear()
        shutil.rmtree(self.root, ignore_errors=True)

    def leftovers(self) -> list[str]:
        """Processes still running from this cluster's folder (none once `stop()` returned)."""
        out = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout
        return [line.strip() for line in out.splitlines()[1:] if str(self.root) in line]


def _signal(proc: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass
