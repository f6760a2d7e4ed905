"""DSL scalar expressions as C++ text, for host code and for the kernel's scalar unit.

`render(expr, names)` walks an expression; `names(node)` decides what a Name or Attr is
called in the C++ at hand (a host local, `tiling.N`, a loop variable `cStart`, ...), so the
same walker serves the tiling function and the kernel.
"""
from __future__ import annotations

import math
from typing import Callable

from ..dsl import ir

_INFIX = {"add": "+", "sub": "-", "mul": "*", "div": "/", "floordiv": "/", "mod": "%",
          "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}
_PREC = {"+": 4, "-": 4, "*": 5, "/": 5, "%": 5, "<": 2, "<=": 2, ">": 2, ">=": 2, "==": 2, "!=": 2}

FLT_MAX = "3.40282347e+38f"


def float_literal(v: float) -> str:
    """A float constant as C++ (`0.5f`); infinities become +-FLT_MAX, which max/min treat alike."""
    if math.isinf(v):
        return ("-" if v < 0 else "") + FLT_MAX
    text = repr(float(v))
    if "e" in text or "E" in text:
        mant, exp = text.lower().split("e")
        if "." not in mant:
            mant += ".0"
        text = f"{mant}e{exp}"
    elif "." not in text:
        text += ".0"
    return text + "f"


def literal(c: ir.Const, as_float: bool = False) -> str:
    if c.kind == "bool":
        return "true" if c.value else "false"
    if c.kind == "int" and not as_float:
        return str(int(c.value))
    return float_literal(float(c.value))


def render(e: ir.Expr, names: Callable[[ir.Expr], str], *, floats: bool = False,
           call: Callable[[ir.Call, list[str]], str | None] | None = None) -> str:
    """C++ text of a scalar expression. `floats`: write integer literals as floats."""
    return _render(e, names, floats, call)[0]


def _render(e, names, floats, call) -> tuple[str, int]:
    if isinstance(e, ir.Const):
        text = literal(e, floats)
        return text, (9 if not text.startswith("-") else 6)
    if isinstance(e, (ir.Name, ir.Attr, ir.DTypeRef)):
        return names(e), 9
    if isinstance(e, ir.Call):
        args = [_render(a, names, floats, call) for a in e.args]
        if call is not None:
            custom = call(e, [a[0] for a in args])
            if custom is not None:
                return custom, 9
        if e.op in _INFIX:
            sym = _INFIX[e.op]
            p = _PREC[sym]
            (a, pa), (b, pb) = args
            a = a if pa >= p else f"({a})"
            b = b if pb > p else f"({b})"
            return f"{a} {sym} {b}", p
        if e.op == "neg":
            a, pa = args[0]
            return f"-{a if pa >= 6 else f'({a})'}", 6
        if e.op in ("min", "max"):
            out = args[0][0]
            for a, _ in args[1:]:
                cmp = "<" if e.op == "min" else ">"
                out = f"({out} {cmp} {a} ? {out} : {a})"
            return out, 9
        raise ValueError(f"no C++ rendering for `{e.op}` here")
    raise ValueError(f"no C++ rendering for {type(e).__name__}")


def paren(text: str) -> str:
    """C++ `text` in parentheses unless it is one name, number or already parenthesised whole."""
    simple = text.replace("_", "").replace(".", "").replace("->", "")
    if simple.isalnum() or (text.startswith("(") and text.endswith(")") and _balanced(text[1:-1])):
        return text
    return f"({text})"


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0
