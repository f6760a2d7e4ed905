"""Just enough reading of generated AscendC C++ for the constraint checkers.

Not a C++ parser: the checkers look at the canonical shapes the passes emit (and that the
LLM engine is told to keep): `pipe.InitBuffer(q, num, bytes)`, `q.AllocTensor<T>()`,
`DataCopy(dst, src, count)`, tiling fields read as `tiling.NAME`. Anything they cannot read
becomes a finding that says so, never a silent pass.
"""
from __future__ import annotations

import ast
import bisect
import functools
import math
import re
from dataclasses import dataclass

from ..dsl.dtypes import CPP_SIZES
from ..dsl.ops import SCALAR_MATH


@dataclass(frozen=True)
class Call:
    name: str          # e.g. "InitBuffer", "DataCopy"
    receiver: str      # the object before the dot ("" for a free function)
    args: tuple[str, ...]
    line: int          # 1-based
    template: str = ""


_NOISE = re.compile(r'//[^\n]*|/\*.*?(?:\*/|$)|"(?:\\.|[^"\\\n])*"?', re.S)


@functools.lru_cache(maxsize=256)
def strip_comments(text: str) -> str:
    """Blank out comments and string literals, keeping line and column positions."""
    def blank(m: re.Match) -> str:
        t = m.group(0)
        if t.startswith('"'):
            return '"' + re.sub(r"[^\n]", " ", t[1:-1]) + ('"' if len(t) > 1 and t.endswith('"') else " ")
        return re.sub(r"[^\n]", " ", t)
    return _NOISE.sub(blank, text)


_RECEIVER = re.compile(r"([A-Za-z_][\w\[\]]*)\s*(?:\.|->)\s*$")


@functools.lru_cache(maxsize=64)
def _call_pattern(names: frozenset[str]) -> re.Pattern:
    alternatives = "|".join(sorted(map(re.escape, names)))
    return re.compile(r"\b(?P<name>" + alternatives + r")\b\s*(?P<tmpl><[^<>;()]*>)?\s*\(")


def calls(text: str, names: set[str]) -> list[Call]:
    """Every call of a function or method in `names`, with its top-level arguments."""
    code = strip_comments(text)
    line_starts = [0] + [i + 1 for i, ch in enumerate(code) if ch == "\n"]
    found = []
    for m in _call_pattern(frozenset(names)).finditer(code):
        recv = _RECEIVER.search(code, max(0, m.start() - 120), m.start())
        start, depth, j = m.end(), 1, m.end()
        while j < len(code) and depth:
            depth += {"(": 1, ")": -1}.get(code[j], 0)
            j += 1
        found.append(Call(m.group("name"), recv.group(1) if recv else "", _split_paren_args(code[start:j - 1]),
                          bisect.bisect_right(line_starts, m.start()), (m.group("tmpl") or "")[1:-1].strip()))
    return found


def _split_paren_args(s: str) -> tuple[str, ...]:
    """Split on top-level commas, counting (), [] and {} (template angle brackets are rare in args)."""
    parts, depth, cur = [], 0, []
    for ch in s:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return tuple(parts)


def declarations(text: str) -> dict[str, str]:
    """Variable name -> declared type for `LocalTensor<T> x`, `GlobalTensor<T> xGm`, `TQue<...> q`, `TBuf<...> b`."""
    code = strip_comments(text)
    result = {}
    for m in re.finditer(r"\b((?:AscendC::)?(?:LocalTensor|GlobalTensor|TQue|TQueBind|TBuf)\s*<[^;{}()]*?>)"
                         r"\s+(\w+)\s*[;=,)]", code):
        result[m.group(2)] = re.sub(r"\s+", "", m.group(1)).replace("AscendC::", "")
    return result


def element_size(declared_type: str) -> int | None:
    m = re.match(r"(?:LocalTensor|GlobalTensor)<(\w+)>", declared_type)
    return CPP_SIZES.get(m.group(1)) if m else None


class EvalError(ValueError):
    pass


# The C++ operators and helpers the evaluator reads, as the DSL ops whose meaning (SCALAR_MATH) they have.
_BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.FloorDiv: "floordiv", ast.Mod: "mod"}
_FUNCS = {"min": "min", "max": "max", "MinOf": "min", "MaxOf": "max", "AlignUp": "align_up", "CeilDiv": "cdiv",
          "Ceil": "cdiv"}


def evaluate(expr: str, names: dict[str, float]) -> int:
    """Evaluate a small C++ integer expression: literals, names, + - * / % (and unary -),
    min/max/MinOf/MaxOf/AlignUp/CeilDiv, sizeof(T)."""
    src = re.sub(r"sizeof\(\s*(\w+)\s*\)", lambda m: str(CPP_SIZES.get(m.group(1), f"sizeof_{m.group(1)}")), expr)
    src = re.sub(r"\b(?:this->|tiling\.|tilingData\.)(\w+)", r"\1", src)
    src = re.sub(r"\b(\d+)[uUlL]+\b", r"\1", src)
    src = re.sub(r"static_cast<\w+>", "", src)
    src = src.replace("::", "_").replace("/", "//")
    try:
        tree = ast.parse(src, mode="eval")
    except SyntaxError:
        raise EvalError(f"cannot read `{expr}`") from None

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in names:
                return names[node.id]
            raise EvalError(f"`{node.id}` in `{expr}` has no known value")
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = ev(node.operand)            # `outL * 2 + -1`: a negative literal the lowering wrote
            return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, ast.BinOp):
            a, b = ev(node.left), ev(node.right)
            if type(node.op) in _BINOPS:
                return SCALAR_MATH[_BINOPS[type(node.op)]](a, b)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCS:
            return SCALAR_MATH[_FUNCS[node.func.id]](*[ev(a) for a in node.args])
        raise EvalError(f"cannot evaluate `{expr}`")

    value = ev(tree)
    return int(value) if not isinstance(value, float) or value.is_integer() else math.ceil(value)


def constants(text: str) -> dict[str, int]:
    """`constexpr int32_t NAME = 2;` style integer constants."""
    return {m.group(1): int(m.group(2)) for m in
            re.finditer(r"constexpr\s+\w+\s+(\w+)\s*=\s*(\d+)\s*[uUlL]*\s*;", strip_comments(text))}


def member_values(text: str, names: dict[str, float], wanted: set[str] | None = None) -> dict[str, int]:
    """Values of simple assignments `name = expr;` or `const T name = expr;` (e.g. `scratchSlotBytes = ...`
    in Init) that
    evaluate with `names`; lets the checkers follow a buffer size through a member. With
    `wanted`, only those names are evaluated (a long edited kernel stays cheap to check)."""
    found: dict[str, int] = {}
    assigns = list(re.finditer(r"^\s*(?:const\s+\w+\s+)?(\w+)\s*=\s*([^;=]+);", strip_comments(text), re.M))
    if wanted is not None:          # and every member they are computed from (`tileBytes` from `outH`)
        rhs: dict[str, list[str]] = {}
        for m in assigns:
            rhs.setdefault(m.group(1), []).append(m.group(2))
        wanted, todo = set(wanted), list(wanted)
        while todo:
            for e in rhs.get(todo.pop(), []):
                for w in re.findall(r"[A-Za-z_]\w*", e):
                    if w in rhs and w not in wanted and w not in names:
                        wanted.add(w)
                        todo.append(w)
    for m in assigns:
        if wanted is not None and m.group(1) not in wanted:
            continue
        try:
            found[m.group(1)] = evaluate(m.group(2), {**names, **found})
        except EvalError:
            continue
    return found


_FUNCTION = re.compile(r"^[ \t]*(?:[\w:<>*&]+[ \t]+)+(\w+)\s*\([^;{)]*(?:\)[^;{]*)?\)\s*(?:const\s*)?\{", re.M)


def call_weights(text: str) -> list[tuple[int, int, int]]:
    """(start, end, weight) of each function body in `text`: how many call sites the function
    has (1 for one that is never called by name in the file, such as an entry point). A method
    the code calls from three places counts three times when the checkers weigh what it does."""
    code = strip_comments(text)
    spans = []
    for m in _FUNCTION.finditer(code):
        name = m.group(1)
        if name in ("if", "for", "while", "switch"):
            continue
        depth, j = 1, m.end()
        while j < len(code) and depth:
            depth += {"{": 1, "}": -1}.get(code[j], 0)
            j += 1
        sites = len(re.findall(rf"\b{re.escape(name)}\s*\(", code)) - 1
        spans.append((m.end(), j, max(sites, 1)))
    return spans
