"""Draft every reference of the suite folders and the examples with the offline drafter, into a folder.

The guard for refactoring the drafter: a snapshot before and after a change, then `--diff`, shows
every draft that changed. Each reference gives `<folder>/<name>.dsl.py` (the draft, as
`session.draft.draft(..., how="drafter")` makes it: an NPUKernelBench reference drafted for all its
cases) or `<folder>/<name>.refused` (the one-line refusal); `index.tsv` lists reference, template
(or `refused`) and seconds.

    nice python tools/draft_snapshot.py /tmp/drafts-before [--trace-cache /tmp/trace-cache]
    nice python tools/draft_snapshot.py /tmp/drafts-after  [--trace-cache /tmp/trace-cache]
    python tools/draft_snapshot.py --diff /tmp/drafts-before /tmp/drafts-after

The references run in child processes (reference/load.run_jobs, through the warm zygote).
`--trace-cache` keeps each child's answers (keyed by the job and the reference file's bytes), so a
second snapshot drafts in this process only: what a child answers does not depend on the drafter.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("ascendcraft_lab/suite", "ascendcraft_lab/suite_npukb", "ascendcraft_lab/examples")


def references(root: Path = ROOT, folders=FOLDERS) -> list[Path]:
    """Every reference file under `folders` (not a DSL file, not a package's __init__)."""
    out = []
    for f in folders:
        for p in sorted((root / f).rglob("*.py")):
            if p.name == "__init__.py" or p.name.endswith(".dsl.py"):
                continue
            out.append(p)
    return out


def _cached_run_jobs(real, cache: Path):
    """`run_jobs` answering from `cache` when the same jobs on the same reference bytes ran before."""
    def run_jobs(jobs, *, timeout: float = 300):
        key = hashlib.sha256()
        for job in jobs:
            path = Path(job["path"]).resolve()
            where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path       # one key in every checkout
            key.update(json.dumps(dict(job, path=str(where)), sort_keys=True, default=str).encode())
            key.update(path.read_bytes() if path.is_file() else b"")
            for side in sorted(path.parent.glob(path.stem + "*.json")):     # the NPUKernelBench cases beside it
                key.update(side.read_bytes())
        file = cache / (key.hexdigest() + ".pickle")
        if file.is_file():
            return pickle.loads(file.read_bytes())
        answers = real(jobs, timeout=timeout)
        from ascendcraft_lab.atomic import write_bytes
        write_bytes(file, pickle.dumps(answers))
        return answers
    return run_jobs


def install_cache(cache: Path) -> None:
    """Route every module's `run_jobs` through the cache (they import the name at import time)."""
    import importlib
    from ascendcraft_lab import reference
    from ascendcraft_lab.drafter import trace
    from ascendcraft_lab.reference import load
    session_draft = importlib.import_module("ascendcraft_lab.session.draft")    # the package exports a function `draft`
    cache.mkdir(parents=True, exist_ok=True)
    wrapped = _cached_run_jobs(load.run_jobs, cache)
    for module in (load, reference, trace, session_draft):
        module.run_jobs = wrapped


def snapshot(out: Path, refs: list[Path], root: Path = ROOT) -> dict[str, int]:
    from ascendcraft_lab.atomic import write_text
    from ascendcraft_lab.session.draft import DraftFailed, draft
    out.mkdir(parents=True, exist_ok=True)
    rows, counts = [], {"drafted": 0, "refused": 0}
    for i, ref in enumerate(refs, 1):
        rel = ref.relative_to(root).with_suffix("")
        dest = out / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        try:
            d = draft(ref, how="drafter")
            write_text(dest.with_suffix(".dsl.py"), d.text)
            template, counts["drafted"] = d.template, counts["drafted"] + 1
        except DraftFailed as e:
            write_text(dest.with_suffix(".refused"), str(e).splitlines()[0] + "\n")
            template, counts["refused"] = "refused", counts["refused"] + 1
        secs = time.perf_counter() - t0
        rows.append(f"{rel}\t{template}\t{secs:.1f}")
        print(f"[{i}/{len(refs)}] {rel}: {template} ({secs:.1f} s)", flush=True)
    write_text(out / "index.tsv", "\n".join(rows) + "\n")
    return counts


def diff(before: Path, after: Path) -> int:
    """Compare two snapshots: the counts, and each reference whose draft, refusal or template differs."""
    def entries(d: Path) -> dict[str, tuple[str, str]]:
        if not (d / "index.tsv").is_file():
            sys.exit(f"{d}: no index.tsv (not a snapshot, or one still being written); take one with "
                     f"`python tools/draft_snapshot.py {d}`")
        out = {}
        for line in (d / "index.tsv").read_text().splitlines():
            rel, template, _ = line.split("\t")
            f = d / (rel + (".refused" if template == "refused" else ".dsl.py"))
            out[rel] = (template, f.read_text())
        return out
    a, b = entries(before), entries(after)
    same, changed, refused = 0, [], 0
    for rel in sorted(set(a) | set(b)):
        if a.get(rel) == b.get(rel):
            same += 1
            refused += a[rel][0] == "refused"
        else:
            changed.append(rel)
    for rel in changed:
        ta, tb = (a.get(rel) or ("missing",))[0], (b.get(rel) or ("missing",))[0]
        print(f"changed: {rel} ({ta} -> {tb})")
    print(f"identical {same} (of which refused {refused}), changed {len(changed)}, "
          f"references {len(set(a) | set(b))}")
    return 1 if changed else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?", type=Path, help="folder to write the snapshot to")
    ap.add_argument("--diff", nargs=2, type=Path, metavar=("BEFORE", "AFTER"), help="compare two snapshots")
    ap.add_argument("--trace-cache", type=Path, help="keep the reference children's answers here")
    ap.add_argument("--only", action="append", default=[], help="references whose path contains this (repeatable)")
    args = ap.parse_args(argv)
    if args.diff:
        return diff(*args.diff)
    if args.out is None:
        ap.error("give the folder to write the snapshot to, or --diff BEFORE AFTER")
    sys.path.insert(0, str(ROOT))
    if args.trace_cache:
        install_cache(args.trace_cache)
    refs = [r for r in references() if not args.only or any(o in str(r) for o in args.only)]
    counts = snapshot(args.out, refs)
    print(f"drafted {counts['drafted']}, refused {counts['refused']}, references {len(refs)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
