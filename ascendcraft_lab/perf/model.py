"""The pipe model: schedule a traced run's instructions on the AI core's pipes and estimate its time.

Each block is one core's program in the order its scalar unit issues it. The scalar unit pays an
issue cost per instruction and hands it to the in-order queue of its pipe (MTE2, V, MTE3, and for
the cube MTE1, M, FIX); an instruction starts when its pipe is free and every wait the kernel
declared before it has been met. The waits are the kernel's own:

- a queue's ``EnQue`` marks its buffer ready when its producer pipe (by the queue's position:
  VECIN -> MTE2, VECOUT -> V, ...; if that pipe did not run since ``AllocTensor``, every pipe that
  did) finishes; ``DeQue`` makes the consumer pipe (VECIN -> V, VECOUT -> MTE3, ...) wait for
  that; ``FreeTensor`` marks the buffer free when the consumer pipe (likewise) finishes, and the
  next ``AllocTensor`` of that buffer makes the producer pipe wait. So
  one buffer per queue serialises copy-in and compute, and two let them overlap, exactly as far
  as the queues allow;
- ``SetFlag<A_B>`` records when pipe A's issued work is done, ``WaitFlag<A_B>`` holds pipe B
  (or the scalar unit) until then (first set, first waited);
- ``PipeBarrier<PIPE_ALL>`` drains every pipe; ``SyncAll`` waits for every block;
- ``CrossCoreSetFlag<mode, pipe>`` (a mixed launch's hand-over between cube and vector cores)
  records when the pipe's issued work is done; once the set reaches whom its mode names (mode 0:
  every core of the setter's kind; 1: both vector cores of an AI core; 2: from a cube core, its two
  vector cores, from the vector cores, once both set it, their cube core), the latest of the sets
  releases one ``CrossCoreWaitFlag`` of each of them, which holds that core until then. So the
  phases of a kernel that `sync_all()` splits between cube and vector cores run one after the other.

GM copies share the chip's bandwidth: each of the running cores gets ``gm_bandwidth / active``
(at most ``core_gm_bandwidth``), and a core's MTE2, MTE3 and Fixpipe (L0C -> GM) take turns on its share, so the
whole never moves more than the HBM can. Everything is an ESTIMATE from `costs.py`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..soc import get_soc
from . import trace as tr
from .costs import Costs, costs_for

GM_PIPES = (tr.PIPES.index("MTE2"), tr.PIPES.index("MTE3"))
S, V, M, MTE1, MTE2, MTE3, FIX = (tr.PIPES.index(p) for p in ("S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX"))
WORK_PIPES = (MTE2, V, MTE3, MTE1, M, FIX)

# TPosition (base.h) -> the pipe that fills a buffer there, and the pipe that reads it.
_POS = ("GM", "A1", "A2", "B1", "B2", "C1", "C2", "CO1", "CO2", "VECIN", "VECOUT", "VECCALC", "SPM", "TSCM")
_PRODUCER = {"A1": MTE2, "B1": MTE2, "C1": MTE2, "A2": MTE1, "B2": MTE1, "C2": MTE1, "CO1": M, "CO2": FIX,
             "VECIN": MTE2, "VECOUT": V, "VECCALC": V, "TSCM": MTE2}
_CONSUMER = {"A1": MTE1, "B1": MTE1, "C1": MTE1, "A2": M, "B2": M, "C2": M, "CO1": FIX, "CO2": MTE3,
             "VECIN": V, "VECOUT": MTE3, "VECCALC": V, "TSCM": MTE1}
# HardEvent (base.h) -> (source pipe, destination pipe).
_EVENTS = ("MTE2_MTE1 MTE1_MTE2 MTE1_M M_MTE1 MTE2_V V_MTE2 MTE3_V V_MTE3 M_V V_M V_V MTE3_MTE1 MTE1_MTE3 MTE1_V "
           "MTE2_M M_MTE2 V_MTE1 M_FIX FIX_M MTE3_MTE2 MTE2_MTE3 S_V V_S S_MTE2 MTE2_S S_MTE3 MTE3_S MTE2_FIX "
           "FIX_MTE2 FIX_S M_S FIX_MTE3 MTE1_FIX FIX_MTE1 FIX_FIX").split()
_EVENT_PIPES = [tuple(tr.PIPES.index(p) for p in e.split("_")) for e in _EVENTS]
PIPE_ALL = 6
# pipe_t (base.h) -> the trace's pipe, for the pipe a CrossCoreSetFlag waits for.
_PIPE_T = {0: S, 1: V, 2: M, 3: MTE1, 4: MTE2, 5: MTE3, 10: FIX}


def _pos(v: int) -> str:
    return _POS[v] if v < len(_POS) else "VECCALC"


@dataclass
class Span:
    pipe: str
    start: float   # seconds from the block's start
    end: float
    api: str
    line: int


@dataclass
class BlockEstimate:
    index: int
    cube: bool
    core: int
    start: float
    elapsed: float
    busy: dict[str, float]          # seconds each pipe was occupied
    overhead: float                 # fixed per-instruction costs (issue, set-up, sync), seconds
    gm_bytes: int
    instructions: int
    overlap: float                  # fraction of the block's time with two or more work pipes busy
    mte2_v_overlap: float           # seconds MTE2 and V were busy together
    spans: list[Span] = field(default_factory=list)
    truncated: bool = False

    @property
    def busy_fraction(self) -> dict[str, float]:
        return {p: (t / self.elapsed if self.elapsed > 0 else 0.0) for p, t in self.busy.items()}

    @property
    def bound_pipe(self) -> str:
        return max(self.busy, key=lambda p: self.busy[p]) if self.busy else "-"

    @property
    def label(self) -> str:
        """The block as reports name it: its GetBlockIdx, with `c` for a cube core (AIC) of a mixed launch."""
        return f"{self.index}{'c' if self.cube else ''}"


@dataclass
class Estimate:
    """What the model says about one traced kernel launch. Every time is an ESTIMATE."""
    soc: str
    kernel_s: float                 # launch overhead + the last core's finish
    launch_s: float
    blocks: list[BlockEstimate]
    cores_used: int
    gm_bytes: int
    vector_cycles: float
    cube_cycles: float
    roofline: dict
    assumptions: list[str]

    @property
    def device_s(self) -> float:
        return self.kernel_s - self.launch_s

    @property
    def bound_pipe(self) -> str:
        total: dict[str, float] = {}
        for b in self.blocks:
            for p, t in b.busy.items():
                total[p] = total.get(p, 0.0) + t
        return max(total, key=lambda p: total[p]) if total else "-"

    @property
    def overlap(self) -> float:
        t = sum(b.elapsed for b in self.blocks)
        return sum(b.overlap * b.elapsed for b in self.blocks) / t if t > 0 else 0.0

    @property
    def achieved_bandwidth(self) -> float:
        return self.gm_bytes / self.device_s if self.device_s > 0 else 0.0

    def to_dict(self, *, blocks: int = 4, spans: int = 400) -> dict:
        return {
            "estimate": True,
            "soc": self.soc, "kernel_s": self.kernel_s, "launch_s": self.launch_s, "device_s": self.device_s,
            "cores_used": self.cores_used, "gm_bytes": self.gm_bytes, "achieved_bandwidth": self.achieved_bandwidth,
            "bound_pipe": self.bound_pipe, "overlap": self.overlap, "roofline": self.roofline,
            "assumptions": self.assumptions,
            "blocks": [{"index": b.index, "label": b.label, "cube": b.cube, "core": b.core,
                        "start": b.start, "elapsed": b.elapsed, "busy": b.busy,
                        "busy_fraction": b.busy_fraction, "bound_pipe": b.bound_pipe, "overlap": b.overlap,
                        "overhead": b.overhead, "gm_bytes": b.gm_bytes, "instructions": b.instructions,
                        "truncated": b.truncated,
                        "spans": [[s.pipe, s.start, s.end, s.api, s.line] for s in b.spans[:spans]]}
                       for b in self.blocks[:blocks]],
            "blocks_total": len(self.blocks),
        }


class _Core:
    """One block's pipes while the model runs its events."""

    def __init__(self, block: tr.Block, costs: Costs, bw: float, keep_spans: bool):
        self.block, self.c, self.bw, self.keep = block, costs, bw, keep_spans
        self.hz = costs.clock_hz.value
        self.s = 0.0                              # the scalar unit's clock
        self.free = [0.0] * len(tr.PIPES)         # when each pipe's last issued instruction ends
        self.gate = [0.0] * len(tr.PIPES)         # the earliest a pipe's next instruction may start
        self.gm = _Channel()                      # this core's share of the HBM
        self.busy = [0.0] * len(tr.PIPES)
        self.intervals: list[list[tuple[float, float]]] = [[] for _ in tr.PIPES]
        self.spans: list[Span] = []
        self.overhead = 0.0
        self.gm_bytes = 0
        self.instructions = 0
        self.flags: dict[tuple[int, int], list[float]] = {}
        self.ready: dict[tuple[int, int], float] = {}
        self.freed: dict[tuple[int, int], float] = {}
        self.since: dict[tuple[int, int], list[int]] = {}  # instruction counts per pipe when a buffer was taken
        self.count = [0] * len(tr.PIPES)
        self.pos = 0
        self.cross: _CrossFlags | None = None

    def cyc(self, n: float) -> float:
        return n / self.hz

    def _charge_scalar(self, seconds: float) -> None:
        self.s = max(self.s, self.gate[S]) + seconds
        self.busy[S] += seconds
        self.overhead += seconds

    def _pipes_since(self, key) -> list[int]:
        then = self.since.get(key)
        if then is None:
            return []
        return [p for p in WORK_PIPES if self.count[p] > then[p]]

    def _writers(self, key, expected: int) -> list[int]:
        """The pipes that touched a buffer since it was taken: the queue position's pipe when it
        ran (the trace has no addresses, so other pipes issued meanwhile are not blamed), else
        every pipe that ran since, else the position's pipe."""
        pipes = self._pipes_since(key)
        return [expected] if expected in pipes or not pipes else pipes

    def run(self) -> str:
        """Run events up to the next SyncAll ("sync"), a CrossCoreWaitFlag no set has released yet
        ("wait", the wait not taken), or the end ("end")."""
        ev = self.block.events
        c = self.c
        while self.pos < len(ev):
            e = ev[self.pos]
            self.pos += 1
            k = e.kind
            if k == tr.INSTR:
                self._instr(e)
            elif k == tr.SCALAR:
                self._charge_scalar(self.cyc(c.scalar_gm_cycles.value if e.a else c.scalar_ub_cycles.value))
            elif k in (tr.ALLOC, tr.ENQUE, tr.DEQUE, tr.FREE):
                self._charge_scalar(self.cyc(c.sync_cycles.value))
                key = (e.a, e.b & 0xFF)
                src, dst = _pos((e.b >> 8) & 0xFF), _pos((e.b >> 16) & 0xFF)
                if k == tr.ALLOC:
                    p = _PRODUCER.get(src, V)
                    self.gate[p] = max(self.gate[p], self.freed.pop(key, 0.0))
                    self.since[key] = list(self.count)
                elif k == tr.ENQUE:
                    pipes = self._writers(key, _PRODUCER.get(src, V))
                    self.ready[key] = max([self.free[p] for p in pipes] + [self.s])
                elif k == tr.DEQUE:
                    p = _CONSUMER.get(dst, V)
                    self.gate[p] = max(self.gate[p], self.ready.pop(key, 0.0))
                    self.since[key] = list(self.count)
                else:
                    pipes = self._writers(key, _CONSUMER.get(dst, V))
                    self.freed[key] = max([self.free[p] for p in pipes] + [self.s])
            elif k in (tr.SET_FLAG, tr.WAIT_FLAG):
                self._charge_scalar(self.cyc(c.sync_cycles.value))
                if e.a >= len(_EVENT_PIPES):
                    continue
                src, dst = _EVENT_PIPES[e.a]
                key = (e.a, e.b)
                if k == tr.SET_FLAG:
                    self.flags.setdefault(key, []).append(self.s if src == S else max(self.free[src], self.s))
                elif self.flags.get(key):
                    t = self.flags[key].pop(0)
                    if dst == S:
                        self.s = max(self.s, t)
                    else:
                        self.gate[dst] = max(self.gate[dst], t)
            elif k == tr.BARRIER:
                self._charge_scalar(self.cyc(c.sync_cycles.value))
                if e.a == PIPE_ALL:
                    self.drain()
            elif k == tr.SYNC_ALL:
                self._charge_scalar(self.cyc(c.sync_cycles.value))
                return "sync"
            elif k == tr.CROSS_SET:
                self._charge_scalar(self.cyc(c.sync_cycles.value))
                p = _PIPE_T.get(e.b >> 8, S)
                if self.cross is not None:
                    self.cross.set(self.block, e.a, e.b & 0xFF, max(self.free[p], self.s))
            elif k == tr.CROSS_WAIT:
                t = self.cross.take(self.block, e.a) if self.cross is not None else 0.0
                if t is None:
                    self.pos -= 1
                    return "wait"
                self._charge_scalar(self.cyc(c.sync_cycles.value))
                self.resume_at(t)
        return "end"

    def waiting_for(self) -> int:
        return self.block.events[self.pos].a

    def drain(self) -> float:
        t = max(self.free + [self.s])
        self.s = t
        self.gate = [max(g, t) for g in self.gate]
        return t

    def resume_at(self, t: float) -> None:
        self.s = max(self.s, t)
        self.gate = [max(g, t) for g in self.gate]

    def _instr(self, e: tr.Event) -> None:
        c, p = self.c, e.pipe
        issue = self.cyc(c.issue_cycles.value)
        self._charge_scalar(issue)
        start = max(self.s, self.free[p], self.gate[p])
        if p in GM_PIPES or (p == FIX and e.api == "Fixpipe"):   # the emulator's Fixpipe always writes GM
            blocks = max(1, e.b)
            setup = self.cyc(c.copy_setup_cycles.value + c.block_setup_cycles.value * (blocks - 1))
            horizon = max(self.s, min(self.free[MTE2], self.free[MTE3], self.free[FIX]))
            end = self.gm.book(start + setup, e.a / self.bw, horizon)
            self.gm_bytes += e.a
            self.overhead += setup
        elif p == V:
            setup = self.cyc(c.vector_start_cycles.value)
            end = start + setup + self.cyc(e.a * c.repeat_cycles(e.api, e.dtype))
            self.overhead += setup
        elif p == M:
            m, n, kk = e.a & 0xFFFF, (e.a >> 16) & 0xFFFF, e.a >> 32
            fractals = math.ceil(m / 16) * math.ceil(n / 16) * math.ceil(kk / 16)
            cyc = c.cube_fractal_cycles.get(e.dtype, c.cube_fractal_cycles["float16"]).value
            end = start + self.cyc(fractals * cyc)
        elif p == S:
            end = start
        else:  # MTE1 / FIX: on-chip moves
            setup = self.cyc(c.vector_start_cycles.value)
            end = start + setup + self.cyc(e.a / c.local_bandwidth.value)
            self.overhead += setup
        self.free[p] = end
        self.busy[p] += end - start
        self.intervals[p].append((start, end))
        self.count[p] += 1
        self.instructions += 1
        if self.keep:
            self.spans.append(Span(tr.PIPES[p], start, end, e.api, e.line))

    def result(self, core: int, start: float) -> BlockEstimate:
        end = max(self.free + [self.s])
        busy = {tr.PIPES[p]: self.busy[p] for p in (S,) + WORK_PIPES if self.busy[p] > 0 or p in (S, MTE2, V, MTE3)}
        overlap = _multi_busy([self.intervals[p] for p in WORK_PIPES])
        both = _intersection(self.intervals[MTE2], self.intervals[V])
        spans = [Span(s.pipe, s.start + start, s.end + start, s.api, s.line) for s in self.spans]
        return BlockEstimate(self.block.index, self.block.cube, core, start, end, busy, self.overhead, self.gm_bytes,
                             self.instructions, overlap / end if end > 0 else 0.0, both, spans, self.block.truncated)


class _CrossFlags:
    """The cross-core flags of a launch, as the emulator's runtime counts them (runtime.cpp
    `cross_core_set`): the sets each mode gathers, and per core and flag the times at which a
    wait may pass (first released, first taken)."""

    def __init__(self, blocks: list[tr.Block]):
        self.cube = {b.index for b in blocks if b.cube}
        self.vec = {b.index for b in blocks if not b.cube}
        self.gather: dict[tuple, list[float]] = {}
        self.released: dict[tuple[bool, int, int], list[float]] = {}

    def _release(self, to, flag: int, t: float) -> None:
        for key in to:
            self.released.setdefault((*key, flag), []).append(t)

    def set(self, block: tr.Block, flag: int, mode: int, t: float) -> None:
        idx = block.index
        if mode == 2 and block.cube:
            self._release([(False, i) for i in (2 * idx, 2 * idx + 1) if i in self.vec], flag, t)
            return
        if mode == 0:
            peers = self.cube if block.cube else self.vec
            key, to = (0, block.cube, flag), [(block.cube, i) for i in sorted(peers)]
        else:  # mode 1, or mode 2 from the vector cores: both of the AI core's vector cores
            peers = {i for i in self.vec if i // 2 == idx // 2}
            key = (mode, idx // 2, flag)
            to = [(False, i) for i in sorted(peers)] if mode == 1 else [(True, idx // 2)]
        times = self.gather.setdefault(key, [])
        times.append(t)
        if len(times) >= len(peers):
            del self.gather[key]
            self._release(to, flag, max(times))

    def ready(self, block: tr.Block, flag: int) -> bool:
        return bool(self.released.get((block.cube, block.index, flag)))

    def take(self, block: tr.Block, flag: int) -> float | None:
        q = self.released.get((block.cube, block.index, flag))
        return q.pop(0) if q else None


class _Channel:
    """A core's share of the GM bandwidth over time: a copy takes the free time after it may start,
    filling gaps that copies issued earlier in program order left (MTE2 and MTE3 run independently
    but never move more together than the share)."""

    def __init__(self):
        self.busy: list[list[float]] = []  # sorted, disjoint [start, end) intervals

    def book(self, t0: float, need: float, horizon: float) -> float:
        """The end of a transfer of `need` seconds that may start at `t0`; no copy will start
        before `horizon` again (the earlier of MTE2's and MTE3's in-order ends), so older
        intervals are dropped."""
        if need <= 0:
            return t0
        if self.busy and self.busy[0][1] < horizon:
            self.busy = [iv for iv in self.busy if iv[1] >= horizon]
        busy, out, t, i = self.busy, [], t0, 0
        while i < len(busy) and busy[i][1] <= t:
            i += 1
        while need > 0:
            gap_end = busy[i][0] if i < len(busy) else math.inf
            if gap_end > t:
                take = min(need, gap_end - t)
                out.append([t, t + take])
                need -= take
                t += take
            if need > 0:
                t = max(t, busy[i][1])
                i += 1
        end = t
        merged: list[list[float]] = []
        for a, b in sorted(busy + out):
            if merged and a <= merged[-1][1] + 1e-15:
                merged[-1][1] = max(merged[-1][1], b)
            else:
                merged.append([a, b])
        self.busy = merged
        return end


def _union(iv: list[tuple[float, float]]) -> list[tuple[float, float]]:
    out: list[list[float]] = []
    for a, b in sorted(iv):
        if b <= a:
            continue
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


def _intersection(x, y) -> float:
    x, y = _union(x), _union(y)
    i = j = 0
    t = 0.0
    while i < len(x) and j < len(y):
        lo, hi = max(x[i][0], y[j][0]), min(x[i][1], y[j][1])
        if hi > lo:
            t += hi - lo
        if x[i][1] < y[j][1]:
            i += 1
        else:
            j += 1
    return t


def _multi_busy(per_pipe) -> float:
    """Seconds during which two or more of the pipes were busy."""
    edges = []
    for iv in per_pipe:
        for a, b in _union(iv):
            edges.append((a, 1))
            edges.append((b, -1))
    edges.sort()
    t, depth, last = 0.0, 0, 0.0
    for x, d in edges:
        if depth >= 2:
            t += x - last
        depth += d
        last = x
    return t


def estimate(launch: tr.Launch, soc: str, *, keep_spans: int = 4, costs: Costs | None = None) -> Estimate:
    """The model's estimate for one traced launch on `soc` (spans kept for the first `keep_spans` blocks),
    with `soc`'s cost table or the `costs` given (a sensitivity run scales one parameter of it)."""
    costs = costs or costs_for(soc)
    chip = get_soc(soc)
    blocks = launch.blocks
    vec = [b for b in blocks if not b.cube]
    cube = [b for b in blocks if b.cube]
    # Cores: AIV blocks on the vector cores, AIC blocks on the cube cores; beyond that, waves.
    n_vec, n_cube = min(len(vec), chip.vector_cores), min(len(cube), chip.cube_cores)
    active = max(1, n_vec + n_cube)
    bw = min(costs.core_gm_bandwidth.value, costs.gm_bandwidth.value / active)
    cores = [_Core(b, costs, bw, i < keep_spans) for i, b in enumerate(blocks)]
    cross = _CrossFlags(blocks)
    for c in cores:
        c.cross = cross
    # Every block runs until it ends or must wait: a CrossCoreWaitFlag goes on once the sets it
    # waits for are made; SyncAll, once nothing else can move, resumes every block there at the
    # latest arrival. (A wait nothing releases is left where it is: the emulator reports the hang.)
    status: dict[int, str] = {}
    runnable = list(cores)
    while runnable:
        for c in runnable:
            status[id(c)] = c.run()
        runnable = [c for c in cores if status[id(c)] == "wait" and cross.ready(c.block, c.waiting_for())]
        if not runnable:
            arrived = [c for c in cores if status[id(c)] == "sync"]
            if arrived:
                t = max(c.drain() for c in arrived)
                for c in arrived:
                    c.resume_at(t)
                runnable = arrived
    # Waves: a core runs its blocks one after another (earliest-free core first).
    results: list[BlockEstimate] = []
    for kind, count in ((False, chip.vector_cores), (True, chip.cube_cores)):
        ends = [0.0] * max(1, count)
        for c in (c for c in cores if c.block.cube == kind):
            core = min(range(len(ends)), key=lambda i: ends[i])
            r = c.result(core, ends[core])
            ends[core] += r.elapsed
            results.append(r)
    results.sort(key=lambda r: (r.cube, r.index))
    finish = max((r.start + r.elapsed for r in results), default=0.0)
    launch_s = costs.launch_s.value
    hz = costs.clock_hz.value
    vcycles = sum(r.busy.get("V", 0.0) for r in results) * hz
    ccycles = sum(r.busy.get("M", 0.0) for r in results) * hz
    gm = sum(r.gm_bytes for r in results)
    roof = {
        "gm_bytes": gm,
        "gm_floor_s": gm / costs.gm_bandwidth.value,                       # the bytes at the chip's full bandwidth
        "vector_floor_s": vcycles / hz / max(1, min(len(vec), chip.vector_cores)) if vec else 0.0,
        "cube_floor_s": ccycles / hz / max(1, min(len(cube), chip.cube_cores)) if cube else 0.0,
        "bandwidth_fraction": (gm / finish) / costs.gm_bandwidth.value if finish > 0 else 0.0,
    }
    floors = {"memory": roof["gm_floor_s"], "vector": roof["vector_floor_s"], "cube": roof["cube_floor_s"]}
    roof["bound"] = max(floors, key=lambda k: floors[k])
    # The chip's roofline: the same work spread over every core of the SoC, not only the ones the kernel used,
    # so a kernel that leaves cores idle shows it. fraction = that floor / the time on the cores (launch aside).
    chip_floors = {"memory": roof["gm_floor_s"], "vector": vcycles / hz / chip.vector_cores,
                   "cube": ccycles / hz / chip.cube_cores}
    roof["chip_bound"] = max(chip_floors, key=lambda k: chip_floors[k])
    roof["floor_s"] = chip_floors[roof["chip_bound"]]
    roof["fraction"] = roof["floor_s"] / finish if finish > 0 else 0.0
    return Estimate(soc, launch_s + finish, launch_s, results, active, gm, vcycles, ccycles, roof,
                    assumptions(costs, mixed=bool(vec) and bool(cube)))


def assumptions(costs: Costs, *, mixed: bool = False) -> list[str]:
    guesses = sum(1 for p in costs.params().values() if p.guess)
    return [
        "ESTIMATES from a pipe model of the emulator's trace, not measurements on an NPU.",
        "Each block's instructions go to in-order pipe queues (MTE2, V, MTE3; MTE1, M, FIX for the cube), "
        "ordered only by the dependencies the kernel declared (queues, flags, barriers, SyncAll); the scalar unit "
        "pays an issue cost per instruction and is never stalled by a full queue.",
        f"GM bandwidth {costs.gm_bandwidth.value / 1e9:.0f} GB/s shared evenly by the running cores (at most "
        f"{costs.core_gm_bandwidth.value / 1e9:.0f} GB/s each); a core's MTE2 and MTE3 share its part; "
        "no L2 cache hits (the trace has no addresses; the bandwidth is fitted to streams larger than the L2).",
        f"Clock {costs.clock_hz.value / 1e9:.2f} GHz; a copy costs {costs.copy_setup_cycles.value:.0f} cycles "
        f"of set-up; a kernel launch {costs.launch_s.value * 1e6:.1f} us, an eager aten op "
        f"{costs.eager_op_s.value * 1e6:.1f} us besides its roofline time (both fitted to public timings).",
        "Scalar work the trace does not see (loop control, address arithmetic beyond the per-instruction issue cost) "
        "is not counted.",
        f"{guesses} of {len(costs.params())} cost parameters are guesses (perf/costs.py says which, and why).",
    ] + (["A mixed launch's cube blocks (AIC, marked c) and vector blocks (AIV) run on their own cores, ordered "
          "only by the cross-core flags the kernel sets and waits for: phases that sync_all() separates run one "
          "after the other (the kernel time is their sum), work between the same flags overlaps."]
         if mixed else [])


def estimate_trace(path, soc: str, *, keep_spans: int = 4) -> list[Estimate]:
    """Every launch of a trace file, estimated."""
    return [estimate(launch, soc, keep_spans=keep_spans) for launch in tr.read_trace(path)]
