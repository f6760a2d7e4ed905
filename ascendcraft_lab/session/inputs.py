"""A session's input sets: the reference's runs (cached), its overrides, and their binding to the kernel.

A reference run costs a child Python with torch (about 2 s): the last few are kept, keyed by
the reference's text, the files it reads and the overrides, so re-running a notebook cell or
compiling after a lowering does not load it again.
"""
from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any, Mapping

from ..dsl import ir
from ..dsl.generic import VariantMismatch
from ..reference import bind, load_cases, load_reference, sidecars, variant_for
from .errors import SessionError
from .folder import text_hash

_REFERENCES: dict[tuple, Any] = {}
_KEPT = 8


def cached_reference(path: Path, overrides: Mapping[str, Any] | None = None, seed: int = 0, as_file=None):
    """One input set (an NPUKernelBench reference: its first case), kept for re-runs of the same files."""
    return _remember(_reference_key(path, overrides, seed, as_file, "run"),
                     lambda: load_reference(path, overrides=dict(overrides or {}) or None, seed=seed, as_file=as_file))


def cached_cases(path: Path, overrides: Mapping[str, Any] | None = None, as_file=None):
    """Every case of an NPUKernelBench reference (a CaseSet), kept like cached_reference."""
    return _remember(_reference_key(path, overrides, 0, as_file, "cases"),
                     lambda: load_cases(path, overrides=dict(overrides or {}) or None, as_file=as_file))


def _reference_key(path: Path, overrides, seed, as_file, kind: str) -> tuple:
    """The reference's text and the files it reads: a changed JSON case file is another reference."""
    beside = Path(as_file).parent if as_file else None
    read = sorted(f for f in beside.iterdir() if f.is_file()) if beside and beside.is_dir() else sidecars(path)
    texts = [Path(path).read_text(errors="replace")] + [f"{f.name}\0{f.read_text(errors='replace')}" for f in read]
    return (kind, text_hash("\0".join(texts)), json.dumps(dict(overrides or {}), sort_keys=True, default=str), seed,
            str(as_file or ""))


def _remember(key, make):
    if key not in _REFERENCES:
        if len(_REFERENCES) >= _KEPT:
            _REFERENCES.pop(next(iter(_REFERENCES)))
        _REFERENCES[key] = make()
    return _REFERENCES[key]


def parse_override(text: str) -> tuple[str, Any]:
    """`NAME=VALUE` (`--override dim=1003`): the value as a Python literal, else as the text."""
    if "=" not in text:
        raise ValueError(f"override {text!r} is not NAME=VALUE")
    k, v = text.split("=", 1)
    if not k.strip():
        raise ValueError(f"override {text!r} names no constant: NAME=VALUE, e.g. --override dim=1003")
    try:
        value = ast.literal_eval(v)
    except (ValueError, SyntaxError):
        value = v
    return k.strip(), value


def variant_of(program: ir.Program, ref) -> ir.Program:
    """The variant of a dtype-generic kernel that serves this input set (the program itself when plain)."""
    try:
        return variant_for(program, ref, "the reference's first input set")
    except VariantMismatch as exc:
        raise SessionError(f"error: {exc}\n  = help: add its dtype to the kernel's @kernel(...) type variable"
                           ) from None


def bind_shapes(program: ir.Program, ref) -> tuple[dict, dict]:
    """(shapes by tensor param, scalars by scalar param) of a reference run bound to the kernel."""
    inputs, _ = bind(program, ref)
    shapes = {n: tuple(v.shape) for n, v in inputs.items() if hasattr(v, "shape")}
    return shapes, {p.name: inputs[p.name] for p in program.scalars}
