"""The printer: KernelIR -> canonical DSL text.

Canonical means one spelling per IR: 4-space indents, block-form stages, infix arithmetic with
the fewest parentheses, `pow(a, b)` for powers, optional arguments only when they differ from
their default, no comments. `print_program(parse(t))` is a fixed point: printing its parse
again changes nothing.
"""
from __future__ import annotations

import math

from .ir import (Assign, Attr, Barrier, Call, Const, CoreChunk, CoreRows, CoreTiles, DType, DTypeRef, Expr, For,
                 GmRef, If, IndexExpr, IndexSlice, IndexWindows, Level, LevelRef, Load, Name, Pack, Program, Range,
                 ScalarParam, Stage, Store, Str, SyncAll, TensorParam, TensorRole, Tiles, TilingParam)
from .ops import HOST_BUILTINS, OPS, PRECEDENCE, UNARY_PRECEDENCE, UNARY_SYMBOLS

INDENT = "    "
MAX_SIGNATURE = 100   # longer signatures print one parameter per line

_INFIX = {op.name: op.symbol for op in OPS.values() if op.symbol and not op.call_spelling and op.category != "unary"}
_PREFIX = {name: symbol for symbol, name in UNARY_SYMBOLS.items()}
_ATOM = 10
_CMP = PRECEDENCE["<"]


def print_program(program: Program) -> str:
    """Canonical text of a program (host function first, then the kernel)."""
    out: list[str] = []
    h = program.host
    out.append("@host")
    out.append(_signature(h.name, [_param_text(p, host=True) for p in h.params]))
    for st in h.body:
        out.append(f"{INDENT}{st.target} = {expr_text(st.value)}")
    launch = ", ".join([expr_text(h.launch.cores)] + [f"{f.name}={expr_text(f.value)}" for f in h.launch.fields])
    out.append(f"{INDENT}return Launch({launch})")
    out.append("")
    out.append("")
    k = program.kernel
    if program.generics:
        typevars = ", ".join(f"{v}=({', '.join(d.value for d in ds)}{',' if len(ds) == 1 else ''})"
                             for v, ds in program.generics)
        out.append(f"@kernel({typevars})")
    else:
        out.append("@kernel")
    out.append(_signature(k.name, [_param_text(p, host=False) for p in k.params]))
    _block(k.body, 1, out)
    return "\n".join(out) + "\n"


def _signature(name: str, params: list[str]) -> str:
    one = f"def {name}({', '.join(params)}):"
    if len(one) <= MAX_SIGNATURE:
        return one
    return f"def {name}(\n" + "".join(f"{INDENT}{p},\n" for p in params) + "):"


def _param_text(p, host: bool) -> str:
    if isinstance(p, ScalarParam):
        return f"{p.name}: {p.dtype_var or p.dtype.value}"
    if isinstance(p, TilingParam):
        return f"{p.name}: Tiling"
    assert isinstance(p, TensorParam)
    head = "Tensor" if host else p.role.value
    extra = f', "{p.source}"' if (p.role is TensorRole.param and p.source and p.source != p.name) or \
        (p.role is TensorRole.output and p.source) else ""
    return f"{p.name}: {head}[{p.dtype_var or p.dtype.value}, {shape_text(p.groups)}{extra}]"


def shape_text(groups) -> str:
    parts = []
    for g in groups:
        if len(g) == 1:
            parts.append(expr_text(g[0]))
        else:
            parts.append("(" + ", ".join(expr_text(d) for d in g) + ")")
    if len(parts) == 1:
        return f"({parts[0]},)"
    return "(" + ", ".join(parts) + ")"


def block_lines(stmts, depth: int = 0) -> list[str]:
    """The lines of `stmts` indented `depth` levels: a block of a program that is written in parts (the
    drafter's templates, drafter/kir.py)."""
    out: list[str] = []
    _block(stmts, depth, out)
    return out


def _block(stmts, depth: int, out: list[str]) -> None:
    pad = INDENT * depth
    for st in stmts:
        if isinstance(st, Assign):
            out.append(f"{pad}{st.target} = {expr_text(st.value)}")
        elif isinstance(st, Load):
            level = "" if st.level is Level.UB else f", {st.level.value}"
            transpose = ", transpose=True" if st.transpose else ""
            out.append(f"{pad}{st.target} = load({gmref_text(st.src)}{level}{transpose})")
        elif isinstance(st, Store):
            acc = ", accumulate=True" if st.accumulate else ""
            out.append(f"{pad}store({gmref_text(st.dst)}, {st.value.id}{acc})")
        elif isinstance(st, For):
            out.append(f"{pad}for {', '.join(st.vars)} in {iter_text(st.iter)}:")
            _block(st.body, depth + 1, out)
        elif isinstance(st, Stage):
            out.append(f"{pad}with {st.kind.value}:")
            _block(st.body, depth + 1, out)
        elif isinstance(st, If):
            _if(st, depth, out, "if")
        elif isinstance(st, Barrier):
            out.append(f"{pad}barrier()")
        elif isinstance(st, SyncAll):
            out.append(f"{pad}sync_all()")
        else:  # pragma: no cover - the IR has no other statements
            raise TypeError(f"cannot print {type(st).__name__}")


def _if(st: If, depth: int, out: list[str], word: str) -> None:
    pad = INDENT * depth
    out.append(f"{pad}{word} {expr_text(st.cond)}:")
    _block(st.body, depth + 1, out)
    if len(st.orelse) == 1 and isinstance(st.orelse[0], If):
        _if(st.orelse[0], depth, out, "elif")
    elif st.orelse:
        out.append(f"{pad}else:")
        _block(st.orelse, depth + 1, out)


def iter_text(it) -> str:
    if isinstance(it, CoreRows):
        return f"core_rows({expr_text(it.rows)}, {expr_text(it.total)})"
    if isinstance(it, CoreChunk):
        return f"core_chunk({expr_text(it.size)}, {expr_text(it.total)})"
    if isinstance(it, CoreTiles):
        return f"core_tiles({_tuple_text(it.extents)}, {_tuple_text(it.steps)})"
    if isinstance(it, Tiles):
        return f"tiles({expr_text(it.extent)}, {expr_text(it.step)})"
    if isinstance(it, Range):
        zero, one = Const(0, "int"), Const(1, "int")
        if it.step == one:
            if it.start == zero:
                return f"range({expr_text(it.stop)})"
            return f"range({expr_text(it.start)}, {expr_text(it.stop)})"
        return f"range({expr_text(it.start)}, {expr_text(it.stop)}, {expr_text(it.step)})"
    raise TypeError(type(it).__name__)


def _tuple_text(items) -> str:
    parts = [expr_text(e) for e in items]
    return f"({parts[0]},)" if len(parts) == 1 else f"({', '.join(parts)})"


def gmref_text(g: GmRef) -> str:
    if g.index is None:
        return g.tensor
    return f"{g.tensor}[{', '.join(index_text(i) for i in g.index)}]"


def index_text(i) -> str:
    if isinstance(i, IndexExpr):
        return expr_text(i.expr)
    if isinstance(i, IndexSlice):
        lo = expr_text(i.lo) if i.lo is not None else ""
        hi = expr_text(i.hi) if i.hi is not None else ""
        return f"{lo}:{hi}" if i.step is None else f"{lo}:{hi}:{expr_text(i.step)}"
    if isinstance(i, IndexWindows):
        return f"windows({expr_text(i.var)}, {expr_text(i.k)}, {expr_text(i.stride)})"
    raise TypeError(type(i).__name__)


def expr_text(e: Expr) -> str:
    """Canonical text of one expression (also used in error messages)."""
    return _expr(e)[0]


def _const_text(c: Const) -> str:
    if c.kind == "bool":
        return "True" if c.value else "False"
    if c.kind == "int":
        return str(int(c.value))
    v = float(c.value)
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return repr(v)


def _expr(e: Expr) -> tuple[str, int]:
    """(text, precedence) so the parent decides on parentheses."""
    if isinstance(e, Const):
        text = _const_text(e)
        return text, (UNARY_PRECEDENCE if text.startswith("-") else _ATOM)
    if isinstance(e, Pack):
        return f"*{e.id}" + (f"[{expr_text(e.count)}]" if e.count is not None else ""), _ATOM
    if isinstance(e, Name):
        return e.id, _ATOM
    if isinstance(e, Attr):
        return f"{e.obj.id}.{e.attr}", _ATOM
    if isinstance(e, DTypeRef):
        return e.var or e.dtype.value, _ATOM
    if isinstance(e, LevelRef):
        return e.level.value, _ATOM
    if isinstance(e, Str):
        return '"' + e.value + '"', _ATOM
    if isinstance(e, Call):
        if e.op in _INFIX and len(e.args) == 2:
            sym = _INFIX[e.op]
            prec = PRECEDENCE[sym]
            lt, lp = _expr(e.args[0])
            rt, rp = _expr(e.args[1])
            if lp < prec or (prec == _CMP and lp <= prec):
                lt = f"({lt})"
            if rp <= prec:
                rt = f"({rt})"
            return f"{lt} {sym} {rt}", prec
        if e.op in _PREFIX and len(e.args) == 1:
            t, p = _expr(e.args[0])
            if p < UNARY_PRECEDENCE or t.startswith("-"):
                t = f"({t})"
            return f"{_PREFIX[e.op]}{t}", UNARY_PRECEDENCE
        return _call_text(e), _ATOM
    raise TypeError(f"cannot print {type(e).__name__}")


def _call_text(e: Call) -> str:
    if e.op in OPS:
        params = OPS[e.op].params
    elif e.op in HOST_BUILTINS and not HOST_BUILTINS[e.op].variadic:
        params = HOST_BUILTINS[e.op].params
    else:
        params = None
    if params is None or len(params) != len(e.args):
        return f"{e.op}({', '.join(expr_text(a) for a in e.args)})"
    parts = []
    for p, a in zip(params, e.args):
        if p.default is None:
            parts.append(expr_text(a))
        elif not _is_default(a, p.default):
            parts.append(expr_text(a) if p.positional else f"{p.name}={expr_text(a)}")
    return f"{e.op}({', '.join(parts)})"


def _is_default(a: Expr, default) -> bool:
    if isinstance(default, DType):
        return isinstance(a, DTypeRef) and a.dtype is default
    if isinstance(default, str):
        return isinstance(a, Str) and a.value == default
    return a == default


__all__ = ["print_program", "block_lines", "expr_text", "gmref_text", "iter_text", "shape_text"]
