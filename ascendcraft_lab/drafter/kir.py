"""A small builder of the DSL's own IR (dsl/ir.py) for the templates, printed by dsl/printer.py.

A template builds loops, stages, loads, stores and host assignments here and turns them into DSL
lines with `lines()`, which prints every expression and plain statement through the printer (one
spelling of the DSL). Two things the printer does not have, by design, live here: a trailing
comment on a statement (`note`: drafts explain their host lines and loops), and `Text`, a line a
template still writes as text. The compute stages' expressions are such text: the drafter spells
them with its own parentheses (`a + b + c` for a right-nested sum, a bool operand as
`where(m, 1.0, 0.0)`), which the printer's canonical form would change in drafts that are kept
byte-identical; the host's `ub_elems(f32, live=1)` is another (the printer drops a default
argument).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..dsl.ir import (Assign, Attr, Call, Const, CoreChunk, CoreRows, Expr, For, GmRef, IndexExpr, Load, Name, Stage,
                      StageKind, Stmt, Store, Tiles)
from ..dsl.printer import block_lines, iter_text

INDENT = "    "


@dataclass(frozen=True)
class Text(Stmt):
    """A line of DSL written as text (see the module docstring)."""
    line: str


@dataclass(frozen=True)
class Note(Stmt):
    """A statement with a trailing comment: `gap` spaces, then `# comment` (a loop: on its header)."""
    stmt: Stmt
    comment: str
    gap: int = 3


# -- expressions -------------------------------------------------------------------------------------
def name(id: str) -> Name:
    return Name(id)


def num(v: int | float) -> Const:
    return Const.of(v)


def dot(obj: str, attr: str) -> Attr:
    """`t.tile`, `c.start`: a field of the tiling or of a range variable."""
    return Attr(Name(obj), attr)


def call(op: str, *args) -> Call:
    return Call(op, tuple(_expr(a) for a in args))


def product(names) -> Expr:
    """n0 * n1 * ... (left to right, as the DSL reads it); the constant 1 for none."""
    out = None
    for n in names:
        out = _expr(n) if out is None else Call("mul", (out, _expr(n)))
    return out if out is not None else num(1)


def _expr(a) -> Expr:
    if isinstance(a, Expr):
        return a
    if isinstance(a, str):
        return Name(a)
    return num(a)


# -- statements --------------------------------------------------------------------------------------
def assign(target: str, value) -> Assign:
    return Assign(target, _expr(value))


def load(target: str, tensor: str, *index) -> Load:
    """`target = load(tensor[index...])`: each index a name, or an expression (a range variable `c`)."""
    return Load(target, GmRef(tensor, tuple(IndexExpr(_expr(i)) for i in index)))


def store(tensor: str, index: tuple, value: str, accumulate: bool = False) -> Store:
    return Store(GmRef(tensor, tuple(IndexExpr(_expr(i)) for i in index)), Name(value), accumulate)


def loop(var: str, it, *body: Stmt) -> For:
    return For(var, it, tuple(body))


def tiles(extent, step) -> Tiles:
    return Tiles(_expr(extent), _expr(step))


def core_rows(rows, total) -> CoreRows:
    return CoreRows(_expr(rows), _expr(total))


def core_chunk(size, total) -> CoreChunk:
    return CoreChunk(_expr(size), _expr(total))


def stage(kind: str, body) -> Stage:
    """A stage of lines or statements (a line of text becomes `Text`)."""
    return Stage(StageKind(kind), tuple(Text(b) if isinstance(b, str) else b for b in body))


def stages(copyin, compute, copyout) -> list[Stage]:
    """The copyin / compute / copyout stages of one tile step, each only when it has a line."""
    return [stage(kind, body) for kind, body in (("copyin", copyin), ("compute", compute), ("copyout", copyout))
            if body]


def note(stmt: Stmt, comment: str, gap: int = 3) -> Note:
    return Note(stmt, comment, gap)


# -- printing ----------------------------------------------------------------------------------------
def lines(stmts, depth: int = 0) -> list[str]:
    """The DSL lines of `stmts` (statements, or lines of text) indented `depth` levels."""
    out: list[str] = []
    for st in stmts:
        out += _lines(Text(st) if isinstance(st, str) else st, depth)
    return out


def _lines(st: Stmt, depth: int) -> list[str]:
    pad = INDENT * depth
    if isinstance(st, Text):
        return [pad + st.line]
    if isinstance(st, Note):
        head, *rest = _lines(st.stmt, depth)
        return [f"{head}{' ' * st.gap}# {st.comment}", *rest]
    if isinstance(st, For):
        return [f"{pad}for {', '.join(st.vars)} in {iter_text(st.iter)}:", *lines(st.body, depth + 1)]
    if isinstance(st, Stage):
        return [f"{pad}with {st.kind.value}:", *lines(st.body, depth + 1)]
    return block_lines([st], depth)


__all__ = ["Note", "Text", "assign", "call", "core_chunk", "core_rows", "dot", "lines", "load", "loop", "name", "note",
           "num", "product", "stage", "stages", "store", "tiles"]
