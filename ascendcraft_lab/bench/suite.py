"""A bench suite: a folder of reference files, one sub-folder per category.

    SUITE_DIR/<category>/<op>.py

A reference is in KernelBench format (`get_inputs()`) or NPUKernelBench format
(`get_input_groups()`, its cases usually in `<op>.json` beside it, as in MultiKernelBench's
`reference/npukernelbench_level*` folders, whose levels are then the categories); the worker
tells them apart (reference.reference_format). Only `.py` files are references.

Each file may declare its tail shape as a module-level dict of constant overrides:

    batch_size = 16
    dim = 16384
    TAIL = {"batch_size": 13, "dim": 20011}   # sizes that are not multiples of the tile or of 32 bytes

`TAIL` is read with `ast.literal_eval` (the file is never executed in the bench process); its
keys must be module-level constants of the same file, which the reference loader replaces
before the file runs. A file without TAIL is run on its own shape only.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class SuiteOp:
    category: str
    op: str
    path: Path
    tail: dict = field(default_factory=dict, hash=False)
    error: str = ""          # the TAIL declaration could not be read

    @property
    def name(self) -> str:
        return f"{self.category}/{self.op}"


def read_tail(path: Path) -> tuple[dict, str]:
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (SyntaxError, OSError, ValueError, RecursionError, MemoryError):
        return {}, ""      # the reference loader reports a broken (or non-UTF-8) file in its own words
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "TAIL" for t in node.targets):
            try:
                value = ast.literal_eval(node.value)
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                return {}, f"TAIL in {path.name} is not a literal dict"
            if not isinstance(value, dict):
                return {}, f"TAIL in {path.name} is not a dict"
            return value, ""
    return {}, ""


def discover(root: str | Path, only: list[str] | None = None) -> list[SuiteOp]:
    """Every `<category>/<op>.py` under root (a single file or one category folder works too)."""
    root = Path(root)
    files: list[tuple[str, Path]] = []
    if root.is_file():
        files = [(root.parent.name, root)]
    else:
        subdirs = sorted(d for d in root.iterdir() if d.is_dir() and not d.name.startswith(("_", ".")))
        if subdirs:
            for d in subdirs:
                files += [(d.name, f) for f in sorted(d.glob("*.py")) if _is_reference(f)]
        else:
            files = [(root.name, f) for f in sorted(root.glob("*.py")) if _is_reference(f)]
    ops = []
    for cat, f in files:
        tail, err = read_tail(f)
        op = SuiteOp(cat, f.stem, f.resolve(), tail, err)
        if only and not any(s in (op.op, op.name, op.category) for s in only):
            continue
        ops.append(op)
    return ops


def _is_reference(f: Path) -> bool:
    return not f.name.startswith("_") and not f.name.endswith(".dsl.py")
