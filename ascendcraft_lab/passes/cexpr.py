"""The one C++ expression printer: DSL scalar expressions as C++ text, for host code and kernels.

`render(expr, names, dialect)` walks an expression. `names(node)` decides what a Name or Attr
is called in the C++ at hand (a host local, `tiling.N`, a loop variable `cStart`, ...); the
`Dialect` says how the calls print there: the host tiling code has `CeilDiv`, `AlignUp`,
`UbElems` and `std::min`, a kernel has its class's `MinOf` / `MaxOf`. A `hook(call)` may take
a call over first (a size the kernel keeps in a member, a reduction the vector unit computes).
Infix operators print with C++ precedence and only the parentheses it needs.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Mapping

from ..dsl import ir

_INFIX = {"add": "+", "sub": "-", "mul": "*", "div": "/", "floordiv": "/", "mod": "%",
          "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}
_PREC = {"+": 4, "-": 4, "*": 5, "/": 5, "%": 5, "<": 2, "<=": 2, ">": 2, ">=": 2, "==": 2, "!=": 2}
_PREFIX = {"neg": "-"}

F32_INF = "F32_INF"        # the kernel's named constant for IEEE infinity (kernel.py)

CallText = Callable[[ir.Call, list[str]], str]


@dataclass(frozen=True)
class Dialect:
    """How the calls of a DSL expression print in one kind of C++ (op -> C++ of the call)."""
    name: str
    calls: Mapping[str, CallText]


def _chain(fn: str) -> CallText:
    """min/max of two or more arguments as nested two-argument calls."""
    def text(e: ir.Call, args: list[str]) -> str:
        out = args[0]
        for a in args[1:]:
            out = f"{fn}({out}, {a})"
        return out
    return text


def _kernel_min_max(fn: str) -> CallText:
    """A kernel's min/max: MinOf / MaxOf on integers, MinOfFloat / MaxOfFloat on floats (kernel.py)."""
    ints, floats = _chain(fn), _chain(fn + "Float")
    return lambda e, args: (floats if _is_float(e) else ints)(e, args)


def _host_min_max(fn: str) -> CallText:
    """The host's min/max: on int64_t for sizes, on double when an argument is a float (a scale)."""
    ints, floats = _chain(fn + "<int64_t>"), _chain(fn + "<double>")
    return lambda e, args: (floats if any(_is_float(a) for a in e.args) else ints)(e, args)


def _kernel_clamp(e: ir.Call, args: list[str]) -> str:
    kind = "Float" if _is_float(e) else ""
    return f"MinOf{kind}(MaxOf{kind}({args[0]}, {args[1]}), {args[2]})"


def _call(fn: str) -> CallText:
    return lambda e, args: f"{fn}({', '.join(args)})"


def _is_float(e: ir.Expr) -> bool:
    return isinstance(e.type, ir.ScalarType) and e.type.dtype.is_float


def _kernel_div(e: ir.Call, args: list[str]) -> str:
    """True division: two integers divide as floats (a DSL `/` is never integer division)."""
    a, b = args
    if not (_is_float(e.args[0]) or _is_float(e.args[1])):
        a = f"static_cast<float>({a})"
    return f"{a} / {paren(b)}"


HOST = Dialect("host", {
    "cdiv": _call("CeilDiv"), "align_up": _call("AlignUp"), "align_down": _call("AlignDown"),
    "min": _host_min_max("std::min"), "max": _host_min_max("std::max"),
    "pow": lambda e, args: f"std::pow(static_cast<double>({args[0]}), static_cast<double>({args[1]}))",
    "ub_elems": lambda e, args: (f"UbElems(/*{e.args[0].dtype.value} bytes*/ {e.args[0].dtype.nbytes}, "
                                 f"{args[0]}, {args[1]})"),
    "div": lambda e, args: f"(static_cast<double>({args[0]}) / ({args[1]}))",
})

def rounding_helper(e: ir.Call) -> str:
    """The kernel helper a scalar float -> int cast() with round="floor" / "ceil" calls ("" for
    none): a static_cast truncates toward zero, which is the floor of non-negative values only."""
    if e.op != "cast" or len(e.args) < 3 or not _is_float(e.args[0]) or not e.args[1].dtype.is_int:
        return ""
    mode = e.args[2].value if isinstance(e.args[2], ir.Str) else "none"
    return {"floor": "FloorOf", "ceil": "CeilOf"}.get(mode, "")


def _kernel_cast(e: ir.Call, args: list[str]) -> str:
    helper = rounding_helper(e)
    inner = f"{helper}({args[0]})" if helper else args[0]
    return f"static_cast<{e.args[1].dtype.cpp}>({inner})"


# The helper functions of the kernel class (kernel.py's MIN_MAX_HELPERS) that the KERNEL text of
# these calls uses: whoever prints one notes them, so the kernel defines them.
KERNEL_HELPERS = {"min": ("MinOf",), "max": ("MaxOf",), "clamp": ("MinOf", "MaxOf")}

KERNEL = Dialect("kernel", {
    "min": _kernel_min_max("MinOf"), "max": _kernel_min_max("MaxOf"), "cdiv": _call("CeilDiv"),
    "align_up": _call("AlignUp"), "div": _kernel_div,
    "abs": lambda e, args: f"({args[0]} < 0 ? -{paren(args[0])} : {args[0]})",
    "relu": lambda e, args: f"({args[0]} > 0 ? {args[0]} : 0)",
    "reciprocal": lambda e, args: f"1.0f / {paren(args[0])}",
    "clamp": _kernel_clamp,
    "cast": _kernel_cast,
})


def float_literal(v: float) -> str:
    """A float constant as C++ (`0.5f`); an infinity is the kernel's named F32_INF."""
    if math.isinf(v):
        return ("-" if v < 0 else "") + F32_INF
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


def render(e: ir.Expr, names: Callable[[ir.Expr], str], dialect: Dialect = HOST, *, floats: bool = False,
           hook: Callable[[ir.Call], str | None] | None = None) -> str:
    """C++ text of a scalar expression. `floats`: write integer literals as floats (a float
    context), as are the literals the verifier typed float."""
    return _render(e, names, dialect, floats, hook)[0]


def _render(e, names, dialect, floats, hook) -> tuple[str, int]:
    if isinstance(e, ir.Const):
        text = literal(e, floats or _is_float(e))
        return text, (9 if not text.startswith("-") else 6)
    if isinstance(e, (ir.Name, ir.Attr, ir.DTypeRef)):
        return names(e), 9
    if isinstance(e, ir.Call):
        if hook is not None:
            custom = hook(e)
            if custom is not None:
                return custom, 9
        if e.op in dialect.calls:
            # a dtype or a rounding mode is no C++ value: the call's own text reads it from `e`
            args = [_render(a, names, dialect, floats, hook)[0] for a in e.args
                    if not isinstance(a, (ir.DTypeRef, ir.Str))]
            return dialect.calls[e.op](e, args), 9
        args = [_render(a, names, dialect, floats, hook) for a in e.args]
        if e.op in _INFIX:
            sym = _INFIX[e.op]
            p = _PREC[sym]
            (a, pa), (b, pb) = args
            a = a if pa >= p else f"({a})"
            b = b if pb > p else f"({b})"
            return f"{a} {sym} {b}", p
        if e.op in _PREFIX:
            a, pa = args[0]
            return f"{_PREFIX[e.op]}{a if pa >= 6 and not a.startswith('-') else f'({a})'}", 6
        raise ValueError(f"no C++ rendering for `{e.op}` in {dialect.name} code")
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
