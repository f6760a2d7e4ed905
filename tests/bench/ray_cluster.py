"""A real Ray cluster on this machine's loopback, for the Ray executor's tests and its benchmark.

Each node is its own `ray start --block` process, as on a cluster host: a head with no CPUs (so
every task runs on a worker node, never beside the driver) and worker nodes added and killed at
will. Each has its own loopback address (127.0.0.2 for the head, 127.0.0.3, ... for the workers:
Ray turns 127.0.0.1 into the machine's network address, other loopback addresses it keeps) and
its own ports, and the cluster one short temporary folder (Ray's socket paths must stay under 108
bytes), so two clusters on one machine never meet. The nodes get no PYTHONPATH of ours and work
outside the repository. A worker node can also be started with folders `hidden`: it runs in a
mount namespace of its own where each of them is an empty tmpfs (`unshare`, when this machine
allows it), so nothing there, the driver's package or its suite, is readable from that node:
what its tasks need must come through Ray.

Every process of a node (Ray's own, its task workers, what they start) carries the node's marker
in its environment: `kill(node)` stops all of them at once, like a host that died, and `stop()`
(also on leaving the `with` block, however it is left) kills every node and anything left with
the cluster's marker, then removes the folder. Each `ray start` also dies with the process that
started it (PR_SET_PDEATHSIG).
"""
from __future__ import annotations

import ctypes
import json
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
MARK = "ACR_TEST_RAY_NODE"
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


def can_hide() -> bool:
    """Whether a process may get a mount namespace of its own here (root, or a kernel that lets users)."""
    probe = subprocess.run(["unshare", "--mount", "--propagation", "private", "true"], capture_output=True) \
        if shutil.which("unshare") else None
    return probe is not None and probe.returncode == 0


@dataclass
class Node:
    name: str
    ip: str
    mark: str
    proc: subprocess.Popen
    log: Path
    resources: dict = field(default_factory=dict)

    def alive(self) -> bool:
        return self.proc.poll() is None


class LocalCluster:
    """`with LocalCluster() as c: c.add_worker(num_cpus=2); ... c.address ...`"""

    def __init__(self, client: bool = False):
        self.root = Path(tempfile.mkdtemp(prefix="acr-ray-", dir="/tmp"))
        self.port = _free_port()
        self.client_port = _free_port() if client else None     # a Ray Client server (ray://) on the head
        self.nodes: list[Node] = []
        self._next_ip = 3
        self.env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and not k.startswith("RAY_")}
        self.env["RAY_USAGE_STATS_ENABLED"] = "0"
        # A raylet gives its agents (Python processes importing Ray) 15 s to report their ports, and a
        # node starts several such processes at once. `import ray` imports jsonschema, which builds
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

    def add_worker(self, num_cpus: int = 2, resources: dict | None = None, hidden: list[Path] = ()) -> Node:
        """A worker node; with `hidden`, in a mount namespace where those folders are empty."""
        ip = f"127.0.0.{self._next_ip}"
        self._next_ip += 1
        args = [f"--address={self.address}", f"--num-cpus={num_cpus}"]
        if resources:
            args.append(f"--resources={json.dumps(resources)}")
        node = self._start(f"worker{self._next_ip - 3}", ip, args, hidden)
        node.resources = dict(resources or {}, CPU=num_cpus)
        return node

    def _start(self, name: str, ip: str, args: list[str], hidden: list[Path] = ()) -> Node:
        last = ""
        for attempt in range(1, START_ATTEMPTS + 1):
            log = self.root / f"{name}-{attempt}.log"
            ports = [f"--node-manager-port={_free_port()}", f"--object-manager-port={_free_port()}",
                     f"--metrics-export-port={_free_port()}", f"--dashboard-agent-listen-port={_free_port()}",
                     f"--dashboard-agent-grpc-port={_free_port()}", f"--runtime-env-agent-port={_free_port()}",
                     "--min-worker-port=0", "--max-worker-port=0"]
            cmd = [str(RAY), "start", "--block", f"--node-ip-address={ip}", "--disable-usage-stats",
                   "--include-log-monitor=false", *args, *ports]
            if hidden:       # sh mounts an empty tmpfs over each folder, then becomes `ray start`
                mounts = " && ".join(f'mount -t tmpfs acr-hidden "${i + 1}"' for i in range(len(hidden)))
                cmd = ["unshare", "--mount", "--propagation", "private", "sh", "-c", f'{mounts} && shift {len(hidden)}'
                       ' && exec "$@"', "sh", *map(str, hidden), *cmd]
            mark = f"{self.root}:{name}"
            with open(log, "w") as fh:
                proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=fh, stderr=subprocess.STDOUT,
                                        env={**self.env, MARK: mark}, cwd=self.root, start_new_session=True,
                                        preexec_fn=_die_with_parent)
            node = Node(name, ip, mark, proc, log)
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
        """Stop every process of a node: as a host that died (SIGKILL at once), or `graceful`ly (SIGTERM first)."""
        if graceful:
            _signal_group(node.proc, signal.SIGTERM)
            try:
                node.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                pass
        _signal_group(node.proc, signal.SIGKILL)
        _kill_marked(f"{MARK}={node.mark}".encode())
        try:
            node.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass

    def stop(self) -> None:
        for node in reversed(self.nodes):      # workers before the head
            self.kill(node, graceful=node.alive())
        self.nodes.clear()
        deadline = time.monotonic() + 10
        while self.leftovers() and time.monotonic() < deadline:
            _kill_marked(f"{MARK}={self.root}:".encode(), prefix=True)
            time.sleep(0.2)
        shutil.rmtree(self.root, ignore_errors=True)

    def leftovers(self) -> list[str]:
        """Command lines of processes still carrying this cluster's marker (none once `stop()` returned)."""
        return [cmd for _, cmd in _marked(f"{MARK}={self.root}:".encode(), prefix=True)]


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _marked(needle: bytes, prefix: bool = False) -> list[tuple[int, str]]:
    """Live processes whose environment has `needle` (a NAME=VALUE entry, or its start with `prefix`)."""
    found = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit() or int(d.name) == os.getpid():
            continue
        try:
            env = (d / "environ").read_bytes().split(b"\0")
            if not any(e.startswith(needle) if prefix else e == needle for e in env):
                continue
            if (d / "stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                continue
            found.append((int(d.name), (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")))
        except (OSError, IndexError):
            continue
    return found


def _kill_marked(needle: bytes, prefix: bool = False) -> None:
    for pid, _ in _marked(needle, prefix):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
