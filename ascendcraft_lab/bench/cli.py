"""`ascendcraft bench SUITE_DIR`: every reference of a suite through draft -> lower -> compile -> verify.

    ascendcraft bench SUITE_DIR [--engine rule|llm] [--draft drafter|llm] [--backend emulator|cann]
                      [--jobs N] [-o OUT] [--shapes reference,tail] [--dtype f32|f16] [--only OP ...] [--resume]

Each op runs in its own worker process (`bench.worker`), at most `--jobs` at a time, with a
progress bar on stderr. OUT gets `results.json`, `report.html` and `ops/<category>/<op>/`
(the draft, the AscendC project per shape, `log.txt`, `result.json`).

`results.json` always describes this run: it is rewritten after every op (`state` running,
then complete). Ctrl-C (or SIGTERM) stops at once: the workers are killed with everything
they started, and `results.json` keeps the ops that finished, marked `interrupted`, with the
ops still to do; `--resume` runs those and completes the same document.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
import os
import platform
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from .. import procs
from ..atomic import write_text
from ..soc import DEFAULT_SOC
from .metrics import summarise
from .report import render_html, render_markdown, write_json
from .suite import SuiteOp, discover

TORCH_SYMBOLS = ("torch::", "at::", "ATen/", "Python.h", "pybind11", "c10::", "PyObject")
WORKER_GRACE_S = 5.0     # a stopped worker's time to stop its own children and remove its temporary files
CONFIG_KEYS = ("suite", "draft", "engine", "backend", "dtype", "seeds", "shapes", "soc", "timing")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, not {text}")
    return value


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="ascendcraft bench", description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("suite", help="a folder of reference files, one sub-folder per category (or one category folder)")
    ap.add_argument("--engine", choices=("rule", "llm"), default="rule", help="the lowering passes' engine")
    ap.add_argument("--draft", choices=("drafter", "llm"), default="drafter", help="who writes the DSL draft")
    ap.add_argument("--backend", choices=("emulator", "cann"), default="emulator")
    ap.add_argument("--model", default=None, help="LLM model for --draft llm / --engine llm (default: $ASCENDCRAFT_MODEL)")
    ap.add_argument("--jobs", type=_positive_int, default=max(1, min(2, os.cpu_count() or 1)), help="ops run in parallel")
    ap.add_argument("-o", "--out", default=None, help="output folder (default bench-out/<suite>)")
    ap.add_argument("--shapes", default="reference,tail", help="reference, tail or both (comma-separated)")
    ap.add_argument("--dtype", choices=("f32", "f16"), default="f32",
                    help="f16 casts the references' floating-point inputs to half (tolerance 1e-2)")
    ap.add_argument("--soc", default=None, help=f"SoC from the SoC table (default {DEFAULT_SOC})")
    ap.add_argument("--seeds", type=_positive_int, default=5, help="random input sets per shape (MultiKernelBench: 5)")
    ap.add_argument("--only", nargs="+", default=None, metavar="OP", help="only these ops (op, category/op or category)")
    ap.add_argument("--timeout", type=_seconds, default=1800, help="seconds one op may take before it is stopped")
    ap.add_argument("--no-timing", action="store_true", help="skip the PyTorch eager timing")
    ap.add_argument("--resume", action="store_true", help="continue the interrupted run in OUT (same settings)")
    return ap


class _Stop:
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


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    shapes = [s.strip() for s in args.shapes.split(",") if s.strip()]
    if not shapes or any(s not in ("reference", "tail") for s in shapes):
        print("ascendcraft bench: --shapes takes reference, tail or reference,tail", file=sys.stderr)
        return 2
    if args.model:   # the workers build their LLM clients from the environment
        os.environ["ASCENDCRAFT_MODEL"] = args.model
    refusal = _refusal(args)
    if refusal:
        print(f"ascendcraft bench: {refusal}", file=sys.stderr)
        return 2
    suite = Path(args.suite)
    if not suite.exists():
        print(f"ascendcraft bench: {suite} does not exist", file=sys.stderr)
        return 2
    ops = discover(suite, args.only)
    if not ops:
        everything = discover(suite)
        if args.only and everything:
            names = ", ".join(op.name for op in everything[:8]) + (" ..." if len(everything) > 8 else "")
            print(f"ascendcraft bench: no op of {suite} matches --only {' '.join(args.only)} (its ops: {names})",
                  file=sys.stderr)
        else:
            print(f"ascendcraft bench: no reference files under {suite}", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else Path("bench-out") / (suite.resolve().name + ("-f16" if args.dtype == "f16" else ""))
    if out.exists() and not out.is_dir():
        print(f"ascendcraft bench: -o {out} is a file; give a folder for the results", file=sys.stderr)
        return 2
    config = {"suite": str(suite.resolve()), "draft": args.draft, "engine": args.engine, "backend": args.backend,
              "dtype": "float16" if args.dtype == "f16" else "float32", "seeds": list(range(args.seeds)),
              "shapes": shapes, "soc": _soc_name(args.soc), "timing": not args.no_timing}
    done: dict[str, dict] = {}
    if args.resume:
        previous, why = _previous_run(out, config)
        if why:
            print(f"ascendcraft bench: cannot resume: {why}", file=sys.stderr)
            return 2
        done = {f"{r['category']}/{r['op']}": r for r in previous["results"]}
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"ascendcraft bench: cannot create {out}: {exc.strerror}", file=sys.stderr)
        return 2
    started = _dt.datetime.now().isoformat(timespec="seconds")
    t0 = time.perf_counter()
    todo = [op for op in ops if op.name not in done]
    progress = Progress(len(ops), [out / "ops" / op.category / op.op / "progress.json" for op in ops])
    progress.n = len(ops) - len(todo)
    results: list[dict] = list(done.values())
    order = {op.name: i for i, op in enumerate(ops)}

    def document(state: str) -> dict:
        ordered = sorted(results, key=lambda r: order.get(f"{r['category']}/{r['op']}", len(order)))
        meta = {"suite": str(suite), "command": "ascendcraft bench " + " ".join(argv if argv is not None else sys.argv[1:]),
                "started": started, "seconds": time.perf_counter() - t0, "draft": args.draft, "engine": args.engine,
                "backend": args.backend, "soc": config["soc"], "dtype": config["dtype"],
                "seeds": config["seeds"], "jobs": args.jobs, "threads": os.cpu_count() or 1,
                "host": f"{platform.machine()} {platform.processor() or ''}".strip(), "python": platform.python_version(),
                "config": config}
        if "llm" in (args.draft, args.engine):
            meta["model"] = os.environ.get("ASCENDCRAFT_MODEL", "")
            meta["llm"] = {k: sum((r.get("llm") or {}).get(k, 0) for r in ordered)
                           for k in ("calls", "cached", "requests", "tokens_in", "tokens_out")}
        finished = {f"{r['category']}/{r['op']}" for r in ordered}
        return {"state": state, "interrupted": state == "interrupted", "meta": meta,
                "summary": summarise(ordered, shapes), "results": ordered,
                "pending": [op.name for op in ops if op.name not in finished]}

    stop = _Stop()
    write_json(out / "results.json", document("running"))     # never an older run's results beside this one's
    pool = ThreadPoolExecutor(max_workers=max(1, args.jobs))
    try:
        futures = {pool.submit(run_one, op, args, shapes, out, stop): op for op in todo}
        for fut in as_completed(futures):
            op = futures[fut]
            r = fut.result()
            if r is None:            # stopped before it finished
                continue
            results.append(r)
            progress.done(op.name, _status(r, shapes))
            write_json(out / "results.json", document("running"))
    except KeyboardInterrupt as exc:
        with procs.shielded():       # a second Ctrl-C cannot cut the clean-up short
            stop.kill_all()
            pool.shutdown(wait=True, cancel_futures=True)
            progress.close()
            doc = document("interrupted")
            _write_reports(out, doc)
        print(f"ascendcraft bench: interrupted after {len(results)} of {len(ops)} ops; {out / 'results.json'} "
              f"holds the finished ones (state interrupted); continue with --resume", file=sys.stderr)
        return 128 + exc.signum if isinstance(exc, procs.Terminated) else 130
    pool.shutdown(wait=True)
    progress.close()
    doc = document("complete")
    _write_reports(out, doc)
    print(render_table(doc["summary"]), file=sys.stdout)
    meta = doc["meta"]
    if "llm" in meta:
        u = meta["llm"]
        print(f"LLM ({meta['model'] or 'default model'}): {u['calls']} calls ({u['cached']} from the cache), "
              f"{u['tokens_in']} tokens in, {u['tokens_out']} out")
    print(f"\n{len(ops)} ops in {meta['seconds']:.0f} s; results {out / 'results.json'}, report {out / 'report.html'} (and report.md)")
    return 0


def _write_reports(out: Path, doc: dict) -> None:
    write_json(out / "results.json", doc)
    write_text(out / "report.html", render_html(doc))
    write_text(out / "report.md", render_markdown(doc))


def _previous_run(out: Path, config: dict) -> tuple[dict | None, str]:
    """The run in OUT to resume, or why there is none to resume."""
    path = out / "results.json"
    try:
        doc = json.loads(path.read_text())
    except FileNotFoundError:
        return None, f"{path} does not exist (start the run without --resume)"
    except (OSError, ValueError) as exc:
        return None, f"{path} is unreadable ({exc})"
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
        return None, f"{path} is not a bench results document"
    old = (doc.get("meta") or {}).get("config") or {}
    differ = [k for k in CONFIG_KEYS if old.get(k) != config.get(k)]
    if differ:
        return None, f"{path} was made with other settings ({', '.join(differ)}); resume with the same options"
    return doc, ""


def _soc_name(soc):
    from ..soc import get_soc
    return get_soc(soc).name


def _refusal(args) -> str:
    try:
        _soc_name(args.soc)
    except ValueError as e:
        return str(e)
    if args.draft == "llm":
        from ..drafter.llm import available
        if not available():
            return "the LLM drafter is not available (ascendcraft_lab.engines.llm.draft is not installed)"
    if args.engine == "llm" or args.draft == "llm":
        try:
            from ..engines.llm.engine import LlmEngineError, client_from_environment
        except ImportError:
            return "the LLM engine is not available (ascendcraft_lab.engines.llm is not installed)"
        try:
            client_from_environment()
        except LlmEngineError as e:
            return str(e).splitlines()[0]
    if args.backend == "cann":
        from ..backends.cann import refuse_reason
        reason = refuse_reason("run")
        if reason:
            return reason
    return ""


def _status(r: dict, shapes: list[str]) -> str:
    parts = []
    for s in shapes:
        if s not in r["shapes"]:
            continue
        sr = r["shapes"].get(s, {})
        cases = sr.get("cases") or {}
        count = f" {cases['passed']['dtype-aware']}/{cases['total']} cases" if cases.get("total") else ""
        parts.append(f"{s} " + ("ok" if sr.get("correct") else f"FAIL({sr.get('stage', '?')})") + count)
    return ", ".join(parts)


def run_one(op: SuiteOp, args, shapes: list[str], out: Path, stop: _Stop | None = None) -> dict | None:
    """One op in a worker process; a result dict comes back, or None when the run was stopped."""
    stop = stop or _Stop()
    if stop.event.is_set():
        return None
    opdir = out / "ops" / op.category / op.op
    opdir.mkdir(parents=True, exist_ok=True)
    (opdir / "result.json").unlink(missing_ok=True)
    shape_list = []
    for s in shapes:
        if s == "reference":
            shape_list.append({"label": "reference", "overrides": {}})
        elif op.tail:
            shape_list.append({"label": "tail", "overrides": op.tail})
    job = {"op": op.op, "category": op.category, "path": str(op.path), "opdir": str(opdir), "shapes": shape_list,
           "draft": args.draft, "engine": args.engine, "backend": args.backend, "soc": args.soc,
           "dtype": "float16" if args.dtype == "f16" else "float32", "seeds": list(range(args.seeds)),
           "timing": not args.no_timing}
    base = {"op": op.op, "category": op.category, "path": str(op.path), "draft": None,
            "log": str((opdir / "log.txt").relative_to(out)), "shapes": {}}
    if op.error:
        base["shapes"] = {s["label"]: {"compiled": False, "correct": False, "stage": "suite", "error": op.error}
                          for s in shape_list}
        return base
    (opdir / "job.json").write_text(json.dumps(job, indent=1))
    t0 = time.perf_counter()
    why = ""
    try:
        with stop.lock:
            if stop.event.is_set():
                return None
            proc = procs.spawn([sys.executable, "-m", "ascendcraft_lab.bench.worker", str(opdir / "job.json")],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            stop.live.add(proc)
        try:
            output, _ = proc.communicate(timeout=args.timeout)
            if proc.returncode != 0:
                why = f"the worker process exited with code {proc.returncode}" + _last_line(output)
        except subprocess.TimeoutExpired:
            procs.kill_group(proc, grace=WORKER_GRACE_S)
            proc.communicate()
            why = f"the op did not finish within {args.timeout:g} s and was stopped"
        finally:
            procs.kill_group(proc, grace=WORKER_GRACE_S)      # and whatever it left running
            with stop.lock:
                stop.live.discard(proc)
    except OSError as e:
        why = f"the worker process could not start: {e}"
    if stop.event.is_set():
        return None
    result_file = opdir / "result.json"
    if result_file.is_file() and not why:
        r = json.loads(result_file.read_text())
    else:
        r = dict(base)
        r["shapes"] = {s["label"]: {"compiled": False, "correct": False, "stage": "crash",
                                    "error": why or "the worker wrote no result"} for s in shape_list}
        r["seconds"] = round(time.perf_counter() - t0, 2)
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


def render_table(summary: dict) -> str:
    # a shape no op ran (the tail of an NPUKernelBench suite, whose cases are its shapes) has no column
    shapes = [s for s in summary["shapes"] if summary["overall"][s]["ops"]] or summary["shapes"]
    w = max([12] + [len(c) + 2 for c in summary["categories"]])
    head = f"{'category':<{w}}" + "".join(f"{s + ' Comp@1':>22}{s + ' Pass@1':>22}" for s in shapes)
    lines = [head, "-" * len(head)]
    for c, figs in list(summary["categories"].items()) + [("overall", summary["overall"])]:
        row = f"{c:<{w}}"
        for s in shapes:
            f = figs[s]
            comp = "%d/%d (%.1f%%)" % (f["compiled"], f["ops"], 100 * f["comp@1"])
            ok = "%d/%d (%.1f%%)" % (f["correct"], f["ops"], 100 * f["pass@1"])
            row += f"{comp:>22}{ok:>22}"
        lines.append(row)
    cases = summary.get("cases")
    if cases:
        lines.append(f"cases: {cases['dtype-aware']}/{cases['total']} pass the dtype-aware rule, {cases['mkb']}/{cases['total']} "
                     f"MultiKernelBench's (atol=rtol=1e-4); ops correct on every case: {cases['ops']} (MultiKernelBench's "
                     f"rule: {cases['ops_mkb']})")
        lines.append("cases per dtype: " + ", ".join(f"{d} {v['dtype-aware']}/{v['cases']} (mkb {v['mkb']})"
                                                     for d, v in cases["per_dtype"].items()))
    geo = [(s, summary["overall"][s]["emu_vs_eager_geomean"]) for s in shapes]
    if any(g for _, g in geo):
        lines.append("emulator vs PyTorch eager on this CPU (informational, NOT an NPU speed): geo-mean eager/emu "
                     + ", ".join(f"{s} {g:.3g}" for s, g in geo if g))
    return "\n".join(lines)


class Progress:
    """A one-line progress bar on stderr (one line per op when stderr is not a terminal).

    NPUKernelBench ops count their cases too: a worker rewrites `progress.json` (cases done of
    total) after each case, and on a terminal the bar redraws every second with the sum."""

    def __init__(self, total: int, case_files: list[Path] | None = None):
        self.total, self.n, self.t0 = total, 0, time.perf_counter()
        self.tty = sys.stderr.isatty()
        self.lock = threading.Lock()
        self.case_files = list(case_files or [])
        self.last = ""
        self._stop = threading.Event()
        self._draw("")
        if self.tty and self.case_files:
            threading.Thread(target=self._tick, daemon=True).start()

    def _tick(self) -> None:
        while not self._stop.wait(1.0):
            with self.lock:
                self._draw(self.last)

    def cases(self) -> tuple[int, int]:
        done = total = 0
        for f in self.case_files:
            try:
                d = json.loads(f.read_text())
            except (OSError, ValueError):
                continue
            done, total = done + int(d.get("done", 0)), total + int(d.get("total", 0))
        return done, total

    def _draw(self, last: str) -> None:
        width = 30
        filled = int(width * self.n / max(self.total, 1))
        el = time.perf_counter() - self.t0
        done, total = self.cases()
        cases = f", {done}/{total} cases" if total else ""
        text = f"[{'#' * filled}{'.' * (width - filled)}] {self.n}/{self.total} ops{cases}  {el:5.0f} s  {last}"
        if self.tty:
            sys.stderr.write("\r" + text[:150].ljust(150))
        elif last:
            sys.stderr.write(text + "\n")
        sys.stderr.flush()

    def done(self, name: str, status: str) -> None:
        with self.lock:
            self.n += 1
            self.last = f"{name}: {status}"
            self._draw(self.last)

    def close(self) -> None:
        self._stop.set()
        if self.tty:
            sys.stderr.write("\n")
            sys.stderr.flush()
