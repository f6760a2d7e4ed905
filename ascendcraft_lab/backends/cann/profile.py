"""Profile a kernel on the NPU with torch_npu.profiler, and read `kernel_details.csv` into a view.

`profile_on_npu` is NOT YET RUN ON HARDWARE by the project (it follows the Ascend PyTorch
Profiler guide); it runs the profiled calls in a child process with a timeout, into a folder private
to the run. `parse_kernel_details` and the renderers are tested with recorded CSVs.

`kernel_details.csv` (ASCEND_PROFILER_OUTPUT/ of a torch_npu profile) has one row per kernel
launch. The columns this parser reads, by header name (the set varies by version and options):
`Name`, `Type`, `Accelerator Core`, `Start Time(us)`, `Duration(us)`, `Wait Time(us)`,
`Block Dim` (`Block Num` in some versions), and with `aic_metrics=PipeUtilization` the pipe
ratios: `aiv_vec_ratio`, `aiv_scalar_ratio`, `aiv_mte2_ratio`, `aiv_mte3_ratio` (vector cores),
`aic_mac_ratio`, `aic_scalar_ratio`, `aic_mte1_ratio`, `aic_mte2_ratio`, `aic_fixpipe_ratio`
(cube cores), or the same names without the `aiv_`/`aic_` prefix on chips with one core type.
A ratio is the fraction of the kernel's cycles a pipe was busy (0..1); "N/A" means not measured.
"""
from __future__ import annotations

import argparse
import csv
import html
import io
import json
import statistics
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ... import procs
from ...atomic import write_text

PIPES = ("vec", "mac", "scalar", "mte1", "mte2", "mte3", "fixpipe")
PIPE_MEANING = {
    "vec": "vector unit", "mac": "cube unit (matmul)", "scalar": "scalar unit",
    "mte1": "L1 -> L0 moves", "mte2": "GM -> UB/L1 copy-in", "mte3": "UB -> GM copy-out", "fixpipe": "L0C -> GM/L1 out",
}
_NAME_COLS = ("Name", "Op Name")
_TIME_COLS = {"start": ("Start Time(us)", "Task Start Time(us)"), "duration": ("Duration(us)", "Task Duration(us)"),
              "wait": ("Wait Time(us)", "Task Wait Time(us)")}
_BLOCK_COLS = ("Block Dim", "Block Num")


@dataclass(frozen=True)
class KernelRecord:
    name: str
    type: str
    core: str
    start_us: float | None
    duration_us: float | None
    wait_us: float | None
    block_dim: int | None
    pipes: dict = field(default_factory=dict, hash=False)    # "aiv_vec" / "aic_mac" / "vec" -> ratio 0..1


@dataclass
class ProfileReport:
    """The launches of one kernel (or all, when no name matched) and their averages."""
    kernel: str
    records: list[KernelRecord]
    all_names: list[str] = field(default_factory=list)

    @property
    def launches(self) -> int:
        return len(self.records)

    @property
    def kernel_time_us(self) -> float | None:
        """Mean duration of one launch."""
        d = [r.duration_us for r in self.records if r.duration_us is not None]
        return statistics.fmean(d) if d else None

    @property
    def block_dim(self) -> int | None:
        dims = [r.block_dim for r in self.records if r.block_dim is not None]
        return max(set(dims), key=dims.count) if dims else None

    @property
    def pipe_utilisation(self) -> dict[str, float]:
        """Mean busy fraction per pipe over the launches, in PIPES order (vector core first)."""
        keys: dict[str, list[float]] = {}
        for r in self.records:
            for k, v in r.pipes.items():
                keys.setdefault(k, []).append(v)
        columns = [(pre, p) for pre in ("aiv_", "", "aic_") for p in PIPES]
        order = {f"{prefix}{p}": i for i, (prefix, p) in enumerate(columns)}
        return {k: statistics.fmean(v) for k, v in sorted(keys.items(), key=lambda kv: order.get(kv[0], 99))}

    @property
    def bottleneck(self) -> str | None:
        u = self.pipe_utilisation
        return max(u, key=u.get) if u else None

    def to_json(self) -> dict:
        return {"kernel": self.kernel, "launches": self.launches, "kernel_time_us": self.kernel_time_us,
                "block_dim": self.block_dim, "pipe_utilisation": self.pipe_utilisation, "bottleneck": self.bottleneck}

    def text(self, width: int = 40) -> str:
        """A small text bar chart of pipe utilisation under a one-line summary."""
        t = self.kernel_time_us
        head = (f"{self.kernel}: {self.launches} launch(es), "
                + (f"{t:.2f} us per launch" if t is not None else "no duration")
                + (f", block dim {self.block_dim}" if self.block_dim is not None else ""))
        u = self.pipe_utilisation
        if not u:
            return head + "\n  (no pipe ratios: profile with aic_metrics=PipeUtilization)"
        label_w = max(len(_label(k)) for k in u)
        lines = [head]
        for k, v in u.items():
            n = round(max(0.0, min(v, 1.0)) * width)
            lines.append(f"  {_label(k):<{label_w}} |{'#' * n}{' ' * (width - n)}| {v * 100:5.1f}%")
        lines.append(f"  busiest: {_label(self.bottleneck)} ({PIPE_MEANING.get(_pipe(self.bottleneck), '')})")
        return "\n".join(lines)

    def html(self) -> str:
        """The same chart as HTML (inline styles only, so it renders in a notebook and in a report)."""
        t = self.kernel_time_us
        rows = []
        for k, v in self.pipe_utilisation.items():
            pct = max(0.0, min(v, 1.0)) * 100
            rows.append(
                f'<tr><td style="padding-right:8px">{html.escape(_label(k))}</td>'
                f'<td style="width:240px"><div style="background:#eee;width:100%">'
                f'<div style="background:#c7000b;height:12px;width:{pct:.1f}%"></div></div></td>'
                f'<td style="text-align:right;padding-left:8px">{v * 100:.1f}%</td>'
                f'<td style="color:#666;padding-left:8px">{html.escape(PIPE_MEANING.get(_pipe(k), ""))}</td></tr>')
        summary = (f"<b>{html.escape(self.kernel)}</b>: {self.launches} launch(es)"
                   + (f", {t:.2f} &micro;s per launch" if t is not None else "")
                   + (f", block dim {self.block_dim}" if self.block_dim is not None else ""))
        body = "".join(rows) or '<tr><td>no pipe ratios (profile with aic_metrics=PipeUtilization)</td></tr>'
        return f'<div class="ascendcraft-profile"><div>{summary}</div><table>{body}</table></div>'

    def _repr_html_(self) -> str:
        return self.html()


def _pipe(key: str | None) -> str:
    return (key or "").removeprefix("aiv_").removeprefix("aic_")


def _label(key: str | None) -> str:
    if key is None:
        return ""
    core = "vector core" if key.startswith("aiv_") else "cube core" if key.startswith("aic_") else ""
    return f"{_pipe(key)} ({core})" if core else _pipe(key)


def _num(row: dict, names) -> float | None:
    for n in names:
        v = (row.get(n) or "").strip()
        if v and v.upper() != "N/A":
            try:
                return float(v)
            except ValueError:
                return None
    return None


def parse_records(text: str) -> list[KernelRecord]:
    """Every row of a kernel_details.csv text (any column order; unknown columns ignored)."""
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    header = [h.strip() for h in (reader.fieldnames or [])]
    if not any(n in header for n in _NAME_COLS):
        raise ValueError(f"not a kernel_details.csv: no Name column (columns: {', '.join(header[:8])}...)")
    ratio_cols = [h for h in header if h.endswith("_ratio") and _pipe(h[:-len("_ratio")]) in PIPES]
    out = []
    for raw in reader:
        row = {(k or "").strip(): v for k, v in raw.items()}
        block = _num(row, _BLOCK_COLS)
        pipes = {}
        for col in ratio_cols:
            v = _num(row, (col,))
            if v is not None:
                pipes[col[:-len("_ratio")]] = v
        out.append(KernelRecord(
            name=(next((row[n] for n in _NAME_COLS if row.get(n)), "") or "").strip(),
            type=(row.get("Type") or row.get("OP Type") or "").strip(),
            core=(row.get("Accelerator Core") or row.get("Task Type") or "").strip(),
            start_us=_num(row, _TIME_COLS["start"]), duration_us=_num(row, _TIME_COLS["duration"]),
            wait_us=_num(row, _TIME_COLS["wait"]), block_dim=int(block) if block is not None else None,
            pipes=pipes))
    return out


def parse_kernel_details(source: str | Path, kernel: str | None = None) -> ProfileReport:
    """A report for the launches whose Name contains `kernel` (case-insensitive); all rows when
    `kernel` is None. `source` is a path to kernel_details.csv (or a folder holding one) or CSV text."""
    text = _read(source)
    records = parse_records(text)
    names = list(dict.fromkeys(r.name for r in records))
    if kernel:
        picked = [r for r in records if kernel.lower() in r.name.lower()]
        if not picked:
            raise ValueError(f"no launch of `{kernel}` in the profile (kernels: {', '.join(names[:10]) or 'none'})")
        return ProfileReport(kernel, picked, names)
    return ProfileReport("all kernels", records, names)


def _read(source: str | Path) -> str:
    if isinstance(source, Path) or "\n" not in str(source):
        p = Path(source)
        if not p.exists():
            raise ValueError(f"{p} does not exist")
        if p.is_dir():
            found = newest_kernel_details(p)
            if found is None:
                raise ValueError(f"no kernel_details.csv under {p}")
            p = found
        data = p.read_bytes().removeprefix(b"\xef\xbb\xbf")     # a UTF-8 BOM, as spreadsheets save it
        bad = data.find(b"\0")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            bad = exc.start if bad < 0 else min(bad, exc.start)
        if bad >= 0:         # raw bytes are no columns: say what the file is not, and where
            raise ValueError(f"{p} is not a CSV text file (byte 0x{data[bad]:02x} at offset {bad}): give the "
                             "kernel_details.csv the NPU profiler wrote (under ASCEND_PROFILER_OUTPUT/), "
                             "or the folder holding it")
        return text
    return str(source)


PROFILE_TIMEOUT = 900.0      # seconds: a profiled run with warm-ups takes a few; only a hung kernel reaches this


class ProfileError(RuntimeError):
    """The profiled run did not produce a profile; the message says why in one line."""


def newest_kernel_details(folder: str | Path) -> Path | None:
    """The most recently written kernel_details.csv under `folder` (by modification time: torch_npu names its
    output folders after the host and process id, so sorting the names says nothing about their age)."""
    found = list(Path(folder).rglob("kernel_details.csv"))
    return max(found, key=lambda f: (f.stat().st_mtime_ns, str(f))) if found else None


def profile_on_npu(library: str, reference: str, entry: str, out_dir: str | Path, *, scalars=0,
                   param_names: tuple[str, ...] = (), overrides: dict | None = None, seed: int = 0,
                   steps: int = 5, soc: str | None = None, timeout: float = PROFILE_TIMEOUT, toolchain=None,
                   python: str = sys.executable) -> ProfileReport:
    """Profile `steps` calls of the op with AI-core pipe utilisation on (needs torch_npu and an NPU), in a
    child Python stopped after `timeout` seconds: a kernel that hangs costs that long, not the caller.

    The child (`profile_child`) writes torch_npu's output into a scratch folder private to this run, so
    no earlier run's profile can be read back; its kernel_details.csv is copied to
    `out_dir/kernel_details.csv` (atomically) and read. Raises ProfileError with one line when the run
    timed out, crashed or wrote no profile, and device.DeviceRefusal when the device's core count is not
    the session SoC's (run.device_preflight)."""
    from .detect import refuse_reason
    from .device import DeviceRefusal
    from .run import parse_child_output
    reason = refuse_reason("profile", toolchain)
    if reason:
        raise ProfileError(reason)
    with procs.scratch_dir("ascendcraft-profile-") as private:
        cmd = [python, "-m", "ascendcraft_lab.backends.cann.profile", "--library", str(library), "--reference",
               str(reference), "--entry", entry, "--out", str(private), "--scalars", json.dumps(scalars),
               "--overrides", json.dumps(dict(overrides or {})), "--seed", str(seed), "--steps", str(steps)]
        cmd += ["--soc", soc] if soc else []
        cmd += [a for name in param_names for a in ("--param", name)]
        try:
            proc = procs.run(cmd, timeout=timeout)       # its own process group: stopped whole on timeout
        except subprocess.TimeoutExpired:
            raise ProfileError(f"the profiled run did not finish in {timeout:g} s and was stopped (a kernel that "
                               "hangs, e.g. a cross-core wait that is never released)") from None
        data = parse_child_output(proc.stdout, proc.stderr, proc.returncode)
        if data["status"] == "refused":
            raise DeviceRefusal(data["message"])
        if data["status"] != "ok":
            raise ProfileError(data["message"])
        found = newest_kernel_details(private)
        if found is None:
            raise ProfileError(f"torch_npu wrote no kernel_details.csv (the profiled run exited {proc.returncode})")
        target = Path(out_dir) / "kernel_details.csv"
        write_text(target, found.read_text(encoding="utf-8", errors="replace"))
    return parse_kernel_details(target, entry)


def profile_child(library: str, reference: str, entry: str, out_dir: str | Path, *, scalars=0,
                  param_names: tuple[str, ...] = (), overrides: dict | None = None, seed: int = 0,
                  steps: int = 5, soc: str | None = None) -> dict:
    """The profiled run itself, in the child (needs torch_npu and an NPU). Not yet run on hardware by the
    project. Follows the Ascend PyTorch Profiler guide: `torch_npu.profiler.profile(activities=[NPU],
    experimental_config=_ExperimentalConfig(profiler_level=Level1, aic_metrics=AiCMetrics.PipeUtilization),
    on_trace_ready=tensorboard_trace_handler(out_dir))`. `scalars` binds the op's scalars (a plan of
    reference/scalars.py, or a count by position). Like a check, it first compares the device's core
    count with `soc`'s (run.device_preflight) and returns status `refused` when they differ."""
    import torch
    import torch_npu
    from .run import _load_module, device_preflight
    from .signature import bind_op_args
    torch.npu.set_device(0)
    cores, refusal = device_preflight(soc)
    if refusal:
        return {"status": "refused", "message": refusal, "cores": cores}
    torch.ops.load_library(library)
    op = getattr(torch.ops.ascendcraft, entry)
    ref = _load_module(reference, dict(overrides or {}))
    device = torch.device("npu:0")
    init_inputs = list(ref.get_init_inputs())
    torch.manual_seed(seed)
    model = ref.Model(*init_inputs).to(device)
    named = {**dict(model.named_buffers()), **dict(model.named_parameters())}
    torch.manual_seed(seed)
    inputs = [v.to(device) if isinstance(v, torch.Tensor) else v for v in ref.get_inputs()]
    args = bind_op_args(inputs, [v for v in init_inputs if isinstance(v, (bool, int, float))],
                        [named[n] for n in param_names], scalars, model)
    config = torch_npu.profiler._ExperimentalConfig(profiler_level=torch_npu.profiler.ProfilerLevel.Level1,
                                                    aic_metrics=torch_npu.profiler.AiCMetrics.PipeUtilization)
    with torch.no_grad(), torch_npu.profiler.profile(
            activities=[torch_npu.profiler.ProfilerActivity.NPU],
            schedule=torch_npu.profiler.schedule(wait=0, warmup=1, active=steps, repeat=1),
            on_trace_ready=torch_npu.profiler.tensorboard_trace_handler(str(out_dir)),
            experimental_config=config) as prof:
        for _ in range(steps + 1):
            op(*args)
            torch.npu.synchronize()
            prof.step()
    return {"status": "ok", "cores": cores}


def child_main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ascendcraft_lab.backends.cann.profile")
    ap.add_argument("--library", required=True)
    ap.add_argument("--reference", required=True)
    ap.add_argument("--entry", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--scalars", type=json.loads, default=0)
    ap.add_argument("--param", action="append", default=[])
    ap.add_argument("--overrides", type=json.loads, default={})
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--soc", default=None)
    a = ap.parse_args(argv)
    result = profile_child(a.library, a.reference, a.entry, a.out, scalars=a.scalars, param_names=tuple(a.param),
                           overrides=a.overrides, seed=a.seed, steps=a.steps, soc=a.soc)
    print(json.dumps(result), flush=True)
    return 0 if result["status"] == "ok" else 2


if __name__ == "__main__":
    procs.die_with_parent()
    sys.exit(child_main())
