"""`ascendcraft bench SUITE_DIR`: every reference of a suite through draft -> lower -> compile -> verify.

    ascendcraft bench SUITE_DIR [--engine rule|llm] [--draft drafter|llm] [--backend emulator|cann]
                      [--jobs N] [-o OUT] [--shapes reference,tail] [--dtype f32|f16] [--only OP ...] [--resume]
                      [--executor local|ray [--address auto|HOST:PORT|ray://HOST:PORT|local]]

Each op runs in its own worker process (`bench.worker`), with a progress bar on stderr: on this
machine, at most `--jobs` at a time (the local pool), or with `--executor ray` as one Ray task
per op on a cluster's nodes (`bench/ray_executor.py`; `bench/executor.py` has both). OUT gets
`results.json`, `report.html` and `ops/<category>/<op>/` (the draft, the AscendC project per
shape, `log.txt`, `result.json`).

`results.json` always describes this run: it is rewritten after every op (`state` running,
then complete). Ctrl-C (or SIGTERM) stops at once: the workers are killed with everything
they started, and `results.json` keeps the ops that finished, marked `interrupted`, with the
ops still to do; `--resume` runs those and completes the same document. On Ray, an op lost
with its node twice is reported as lost (state `incomplete`, exit 1), and `--resume` runs it again.
"""
from __future__ import annotations

import argparse
import contextlib
import datetime as _dt
import fcntl
import json
import os
import platform
import sys
import threading
import time
from pathlib import Path

from .. import procs
from ..args import seconds
from ..atomic import current_umask, write_text
from ..perf import costs_for
from ..session import SessionFolder
from ..soc import DEFAULT_SOC
from .executor import LocalPool
from .metrics import summarise
from .report import render_html, render_markdown, write_json
from .suite import discover

LOCK_FILE = ".bench.lock"        # held while a run writes its folder
CONFIG_KEYS = ("suite", "draft", "engine", "backend", "dtype", "seeds", "shapes", "soc", "timing")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="ascendcraft bench", description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("suite", help="a folder of reference files, one sub-folder per category (or one category folder)")
    ap.add_argument("--engine", choices=("rule", "llm"), default="rule", help="the lowering passes' engine")
    ap.add_argument("--draft", choices=("drafter", "llm"), default="drafter", help="who writes the DSL draft")
    ap.add_argument("--backend", choices=("emulator", "cann"), default="emulator")
    ap.add_argument("--model", default=None,
                    help="LLM model for --draft llm / --engine llm (default: $ASCENDCRAFT_MODEL)")
    ap.add_argument("--jobs", type=_positive_int, default=None,
                    help="ops run in parallel (local default: 2, or 1 on one core; ray default: as many as the "
                         "cluster has CPUs, or NPUs with --backend cann)")
    ap.add_argument("-o", "--out", default=None, help="output folder (default bench-out/<suite>)")
    ap.add_argument("--shapes", default="reference,tail", help="reference, tail or both (comma-separated)")
    ap.add_argument("--dtype", choices=("f32", "f16"), default="f32",
                    help="f16 casts the references' floating-point inputs to half (tolerance 1e-2)")
    ap.add_argument("--soc", default=None, help=f"SoC from the SoC table (default {DEFAULT_SOC})")
    ap.add_argument("--seeds", type=_positive_int, default=5, help="random input sets per shape (MultiKernelBench: 5)")
    ap.add_argument("--only", nargs="+", default=None, metavar="OP",
                    help="only these ops (op, category/op or category)")
    ap.add_argument("--timeout", type=seconds, default=1800, help="seconds one op may take before it is stopped")
    ap.add_argument("--no-timing", action="store_true", help="skip the PyTorch eager timing")
    ap.add_argument("--resume", action="store_true", help="continue the interrupted run in OUT (same settings)")
    ap.add_argument("--executor", choices=("local", "ray"), default="local",
                    help="where the ops run: worker processes here, or one Ray task per op on a cluster")
    ap.add_argument("--address", default=None, help="with --executor ray: the cluster (auto: the one `ray start` made "
                    "here, the default unless RAY_ADDRESS is set; HOST:PORT of its head; ray://HOST:PORT through Ray "
                    "Client; local: a one-machine Ray started for this run)")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    shapes = [s.strip() for s in args.shapes.split(",") if s.strip()]
    if not shapes or any(s not in ("reference", "tail") for s in shapes):
        print("ascendcraft bench: --shapes takes reference, tail or reference,tail", file=sys.stderr)
        return 2
    if args.address is not None and args.executor != "ray":
        print("ascendcraft bench: --address is for --executor ray", file=sys.stderr)
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
    out = (Path(args.out) if args.out
           else Path("bench-out") / (suite.resolve().name + ("-f16" if args.dtype == "f16" else "")))
    if out.exists() and not out.is_dir():
        print(f"ascendcraft bench: -o {out} is a file; give a folder for the results", file=sys.stderr)
        return 2
    if SessionFolder(out).exists():
        print(f"ascendcraft bench: -o {out} is a session folder (it holds ascendcraft.json); give another folder "
              "for the results", file=sys.stderr)
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
        done = finished_ops(previous)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"ascendcraft bench: cannot create {out}: {exc.strerror}", file=sys.stderr)
        return 2
    with _one_bench(out) as holder:
        if holder is not None:
            print(f"ascendcraft bench: -o {out} is in use by another bench ({holder}): two runs would write one "
                  "results.json\n  = help: wait for it to finish, or give this run another folder with -o",
                  file=sys.stderr)
            return 2
        if args.resume:          # read again under the lock: a run that just ended may have finished more ops
            previous, why = _previous_run(out, config)
            done = finished_ops(previous) if not why else done
        return _run(args, argv, suite, ops, out, shapes, config, done)


@contextlib.contextmanager
def _one_bench(out: Path):
    """Hold `out/.bench.lock` for the block (yields None), or yield who holds it: one bench per folder."""
    path = out / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666 & ~current_umask())
    except OSError:
        yield None                         # a folder we cannot write: the run fails there, with its own message
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            held = os.pread(fd, 200, 0).decode(errors="replace").strip()
            yield held or "another process"
            return
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"pid {os.getpid()}, started {_dt.datetime.now():%H:%M:%S}".encode(), 0)
        yield None
    finally:
        os.close(fd)                       # closing releases the lock


def _run(args, argv, suite: Path, ops: list, out: Path, shapes: list[str], config: dict, done: dict) -> int:
    """The run itself, holding the folder's lock."""
    started = _dt.datetime.now().isoformat(timespec="seconds")
    t0 = time.perf_counter()
    todo = [op for op in ops if op.name not in done]
    progress = Progress(len(ops), [out / "ops" / op.category / op.op / "progress.json" for op in ops])
    progress.n = len(ops) - len(todo)
    results: list[dict] = list(done.values())
    order = {op.name: i for i, op in enumerate(ops)}

    def document(state: str) -> dict:
        ordered = sorted(results, key=lambda r: order.get(f"{r['category']}/{r['op']}", len(order)))
        meta = {"suite": str(suite),
                "command": "ascendcraft bench " + " ".join(argv if argv is not None else sys.argv[1:]),
                "started": started, "seconds": time.perf_counter() - t0, "draft": args.draft, "engine": args.engine,
                "backend": args.backend, "soc": config["soc"], "dtype": config["dtype"],
                "seeds": config["seeds"], "jobs": jobs, "threads": os.cpu_count() or 1,
                "host": f"{platform.machine()} {platform.processor() or ''}".strip(),
                "python": platform.python_version(),
                "config": config, "costs": costs_for(config["soc"]).table()}
        if executor is not None:
            meta["executor"] = executor.describe()
        if "llm" in (args.draft, args.engine):
            meta["model"] = os.environ.get("ASCENDCRAFT_MODEL", "")
            meta["llm"] = {k: sum((r.get("llm") or {}).get(k, 0) for r in ordered)
                           for k in ("calls", "cached", "requests", "tokens_in", "tokens_out")}
        finished = {f"{r['category']}/{r['op']}" for r in ordered}
        lost = [f"{r['category']}/{r['op']}" for r in ordered if r.get("lost")]
        if state == "complete" and lost:
            state = "incomplete"
        return {"state": state, "interrupted": state == "interrupted", "meta": meta,
                "summary": summarise(ordered, shapes), "results": ordered,
                "pending": [op.name for op in ops if op.name not in finished], "lost": lost}

    executor = None
    jobs = args.jobs or max(1, min(2, os.cpu_count() or 1))
    try:
        if args.executor == "ray":
            executor = _ray_executor(args, shapes, out, progress)
            if executor is None:
                progress.close()
                return 2
            jobs = executor.parallel
        else:
            executor = LocalPool(args, shapes, out, jobs)
        write_json(out / "results.json", document("running"))     # never an older run's results beside this one's
        for op, r in executor.results(todo):
            results.append(r)
            progress.done(op.name, _status(r, shapes))
            write_json(out / "results.json", document("running"))
    except KeyboardInterrupt as exc:
        with procs.shielded():       # a second Ctrl-C cannot cut the clean-up short
            if executor is not None:
                executor.stop()
                executor.close()
            progress.close()
            doc = document("interrupted")
            _write_reports(out, doc)
        print(f"ascendcraft bench: interrupted after {len(results)} of {len(ops)} ops; {out / 'results.json'} "
              f"holds the finished ones (state interrupted); continue with --resume", file=sys.stderr)
        return 128 + exc.signum if isinstance(exc, procs.Terminated) else 130
    except BaseException:
        if executor is not None:
            with procs.shielded():
                executor.stop()
                executor.close()
        raise
    executor.close()
    progress.close()
    doc = document("complete")
    _write_reports(out, doc)
    print(render_table(doc["summary"]), file=sys.stdout)
    meta = doc["meta"]
    if "llm" in meta:
        u = meta["llm"]
        print(f"LLM ({meta['model'] or 'default model'}): {u['calls']} calls ({u['cached']} from the cache), "
              f"{u['tokens_in']} tokens in, {u['tokens_out']} out")
    print(f"\n{len(ops)} ops in {meta['seconds']:.0f} s; results {out / 'results.json'}, "
          f"report {out / 'report.html'} (and report.md)")
    if doc["lost"]:
        print(f"ascendcraft bench: {len(doc['lost'])} op(s) lost with their Ray node on every attempt "
              f"({', '.join(doc['lost'][:5])}{' ...' if len(doc['lost']) > 5 else ''}): reported as lost, not as "
              f"failed kernels; run them again with --resume", file=sys.stderr)
        return 1
    return 0


def _ray_executor(args, shapes: list[str], out: Path, progress: "Progress"):
    """The Ray executor, connected; None (after saying why) when it cannot run."""
    from .ray_executor import ExecutorError, RayExecutor      # Ray is imported there, and only for this
    try:
        return RayExecutor(args, shapes, out, args.address, note=progress.note)
    except ExecutorError as e:
        progress.note(f"ascendcraft bench: {e}")
        return None


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


def finished_ops(doc: dict) -> dict[str, dict]:
    """The ops of an earlier run that `--resume` keeps: every result but an op lost with its Ray
    node, which has no verdict yet and runs again."""
    return {f"{r['category']}/{r['op']}": r for r in doc["results"] if not r.get("lost")}


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
    if args.backend == "cann" and args.executor == "local":   # on Ray, the NPU hosts are checked as they run
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
        lines.append(f"cases: {cases['dtype-aware']}/{cases['total']} pass the dtype-aware rule, "
                     f"{cases['mkb']}/{cases['total']} MultiKernelBench's (atol=rtol=1e-4); "
                     f"ops correct on every case: {cases['ops']} (MultiKernelBench's rule: {cases['ops_mkb']})")
        lines.append("cases per dtype: " + ", ".join(f"{d} {v['dtype-aware']}/{v['cases']} (mkb {v['mkb']})"
                                                     for d, v in cases["per_dtype"].items()))
    est = [(s, summary["overall"][s]) for s in shapes if summary["overall"][s].get("est_speedup_geomean")]
    if est:
        lines.append("ESTIMATED on the NPU (pipe model, see report.md): " + "; ".join(
            f"{s} Fast_1 {100 * f['est_fast>1.0']:.1f}%, speedup geo-mean {f['est_speedup_geomean']:.3g}, roofline "
            f"geo-mean {100 * (f.get('roofline_geomean') or 0):.0f}% / median "
            f"{100 * (f.get('roofline_median') or 0):.0f}%" for s, f in est))
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

    def note(self, text: str) -> None:
        """A line of its own above the bar (the bar is drawn again below it)."""
        with self.lock:
            if self.tty:
                sys.stderr.write("\r" + " " * 150 + "\r")
            sys.stderr.write(text + "\n")
            self._draw(self.last)

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
