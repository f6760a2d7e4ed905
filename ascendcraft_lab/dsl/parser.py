"""The parser: DSL text (Python syntax, read with `ast`, never executed) -> untyped KernelIR.

It owns the grammar (`GRAMMAR`, rendered into docs/dsl-reference.md) and the structural
checks: anything outside the grammar is a `DslError` with the exact span and one sentence.
Meaning (names, types, stages, budgets) is the verifier's job.
"""
from __future__ import annotations

import ast
import difflib
import math
import sys
import warnings
from pathlib import Path

from .errors import DslError, Span
from .host import HOST_OPS, SOC_CONSTANTS
from .ir import (Assign, Attr, Barrier, Call, Const, CoreChunk, CoreRows, CoreTiles, DType, DTypeRef, Expr, For,
                 GmRef, HostFunc, If, IndexExpr, IndexSlice, IndexWindows, Kernel, Launch, LaunchField, Level,
                 LevelRef, Load, Name, Pack, Program, Range, ScalarParam, Stage, StageKind, Store, Str, TensorParam,
                 TensorRole, SyncAll, Tiles, TilingParam, walk_exprs)
from .ops import BINARY_SYMBOLS, HOST_BUILTINS, HOST_PAIRS, OPS, ROUND_MODES, UNARY_SYMBOLS, OpParam

GRAMMAR = r"""
file        := [docstring] host_fn kernel_fn                 # one of each, in either order
host_fn     := "@host" "def" NAME "(" [host_param {"," host_param}] ")" ":"
                   {NAME "=" host_expr}
                   "return" "Launch" "(" host_expr {"," NAME "=" host_expr} ")"
host_param  := NAME ":" "Tensor" "[" DTYPE "," shape "]"   |   NAME ":" DTYPE
kernel_fn   := "@kernel" "def" NAME "(" kparam {"," kparam} ")" ":" block
                 # NAME becomes C++ file, class and entry names: ASCII, at most 64 characters,
                 # not a C++ keyword, main, std, AscendC
kparam      := NAME ":" "GM"  "[" DTYPE "," shape "]"           # an input tensor (reference input)
             | NAME ":" "Param" "[" DTYPE "," shape ["," STRING] "]"  # a Model parameter/buffer by name
             | NAME ":" "Out" "[" DTYPE "," shape "]"           # an output tensor (reference output)
             | NAME ":" "Out" "[" "i64" "," "(1,)" "," STRING "]"   # the rows the kernel filled of output STRING
             | NAME ":" "Workspace" "[" DTYPE "," shape "]"     # GM scratch shared by the cores, starts at zero
             | NAME ":" DTYPE                                   # a scalar (reference scalar input)
             | NAME ":" "Tiling"                                # the fields of the host's Launch
shape       := "(" [dim {"," dim} [","]] ")"
dim         := NAME | INT | dim_expr | "(" dim "," dim {"," dim} ")"   # a nested tuple views dims as one axis
dim_expr    := an int expression of dims and int scalars: + - * // % min max   # e.g. (W - 5) // 2 + 1
block       := stmt {stmt}
stmt        := NAME "=" expr                                    # scalar or tile value (`x += e` is `x = x + e`)
             | NAME "=" "load" "(" gm_ref ["," LEVEL] ")"       # in copyin: GM -> UB or L1 (LEVEL: UB, L1)
             | NAME "=" "load" "(" NAME "," LEVEL ["," "transpose" "=" BOOL] ")"   # in split: L1 -> L0A / L0B
             | "store" "(" gm_ref "," NAME ["," "accumulate" "=" BOOL] ")"   # in copyout: UB or L0C -> GM
             | "for" NAME {"," NAME} "in" iterator ":" block    # several names: core_tiles only
             | "with" ("copyin" | "split" | "compute" | "copyout") ":" block
             | "if" expr ":" block {"elif" expr ":" block} ["else" ":" block]
             | "barrier" "(" ")"                                # order the pipes of this core
             | "sync_all" "(" ")"                               # top level only: wait for every core
iterator    := "core_rows" "(" expr "," expr ")"                # rows of this core: core_rows(rows_per_core, total)
             | "core_chunk" "(" expr "," expr ")"               # this core's range: core_chunk(per_core, total)
             | "core_tiles" "(" "(" expr {"," expr} ")" "," "(" expr {"," expr} ")" ")"   # this core's blocks of a grid
             | "tiles" "(" expr "," expr ")"                    # tiles(extent_or_range, step): .start .len .index
             | "range" "(" expr ["," expr ["," expr]] ")"
gm_ref      := NAME | NAME "[" index {"," index} "]"            # one index per axis of the (view) shape
index       := expr | [expr] ":" [expr] | "windows" "(" NAME "," expr "," expr ")"
expr        := NUMBER | "True" | "False" | "inf" | NAME | NAME "." NAME
             | "-" expr | expr BINOP expr | expr CMPOP expr | "(" expr ")"
             | OP "(" expr {"," expr} {"," NAME "=" expr} ")"   # OP: a row of the operations table
LEVEL       := "UB" | "L1" | "L0A" | "L0B" | "L0C"
BINOP       := "+" | "-" | "*" | "/" | "//" | "%" | "**"
CMPOP       := "<" | "<=" | ">" | ">=" | "==" | "!="           # not chained
DTYPE       := "f16" | "bf16" | "f32" | "i8" | "i16" | "i32" | "i64" | "u8" | "bool"
""".strip("\n")

ITERATORS = {
    "core_rows": "rows of this core: r in [b*rows, min((b+1)*rows, total)) for block b; r is an i32 scalar",
    "core_chunk": "this core's contiguous range [b*size, min((b+1)*size, total)) as one range value (.start, .len); "
                  "the loop runs once, or not at all on an idle core",
    "core_tiles": "this core's blocks of a grid: `for mi, ni in core_tiles((M, N), (bm, bn))` walks the bm x bn "
                  "blocks of M x N (the last of an axis may be short), block q (row-major) on core q % cores; "
                  "one range variable per axis",
    "tiles": "ranges of `step` elements over [0, extent) or over a range value; .start, .len (the last may be "
             "short), .index",
    "range": "a scalar loop, as in Python",
}

_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**"}
_CMPOPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
RESERVED = {"inf", "True", "False", "load", "store", "barrier", "sync_all", "windows", "Launch", "Tiling", "GM", "Out",
            "Param", "Workspace",
            "Tensor", "host", "kernel", "program", "copyin", "split", "compute", "copyout"} | set(ITERATORS) \
    | {d.value for d in DType} | {lv.name for lv in Level if lv is not Level.SCALAR}
_LOAD_LEVELS = {"UB": Level.UB, "L1": Level.L1, "L0A": Level.L0A, "L0B": Level.L0B}
_LEVELS = {lv.value: lv for lv in Level if lv is not Level.SCALAR}
MAX_SOURCE = 200_000   # characters; a draft is a page, not a book
PARSE_RECURSION = 12000  # the recursion limit Python's tree builder gets for a long chain (about 2 frames a term)
MAX_DEPTH = 100        # nesting of one expression: far beyond any kernel, well inside every recursive pass
MAX_KERNEL_NAME = 64   # it names files (<name>_kernel.cpp), classes and the entry: keep them readable and legal
# The kernel's name becomes the C++ entry, file and class names: it may not be a C++ keyword
# (C++17, with the alternative tokens) nor a name the generated code or the emulator's harness defines.
CPP_KEYWORDS = frozenset("""alignas alignof and and_eq asm auto bitand bitor bool break case catch char char16_t
char32_t char8_t class compl concept const const_cast consteval constexpr constinit continue co_await co_return
co_yield decltype default delete do double dynamic_cast else enum explicit export extern false float for friend
goto if inline int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected
public register reinterpret_cast requires return short signed sizeof static static_assert static_cast struct
switch template this thread_local throw true try typedef typeid typename union unsigned using virtual void
volatile wchar_t while xor xor_eq""".split())
CPP_TAKEN = {"main": "the program entry of every C++ program", "AscendC": "the namespace of the AscendC API",
             "std": "the C++ standard library's namespace", "acemu": "the emulator's namespace",
             "ascendcraft": "the namespace of the generated host code"}


def parse(text: str, path: str = "<dsl>", dtypes=None) -> Program:
    """Parse DSL text into an (untyped) Program; every rejection is a DslError with a span.

    A kernel generic over type variables (`@kernel(T=(f32, f16))`) is parsed as the variant
    `dtypes` names (`{"T": DType.f16}`), by default each variable's first dtype."""
    return _Parser(text, path, dtypes).program()


def parse_file(path) -> Program:
    p = Path(path)
    try:
        data = p.read_bytes()
        text = data.decode("utf-8")
    except OSError as e:
        raise DslError(f"cannot read DSL file {p}: {e.strerror or e.__class__.__name__}", None,
                       "pass the path of a UTF-8 `.dsl.py` file", str(p), None) from None
    except UnicodeDecodeError as e:
        raise DslError(f"DSL file {p} is not UTF-8 text: byte 0x{data[e.start]:02x} at offset {e.start}", None,
                       "save the draft as UTF-8", str(p), None) from None
    return parse(text, str(p))


class _Parser:
    def __init__(self, text: str, path: str, dtypes=None):
        self.text = text
        self.path = path
        self.lines = text.splitlines()
        self.in_host = False
        self.wanted = dict(dtypes or {})
        self.typevars: dict[str, tuple[DType, ...]] = {}     # T -> the dtypes the kernel is generic over
        self.binding: dict[str, DType] = {}                  # T -> the dtype of this variant

    # -- errors and spans --------------------------------------------------------------
    def span(self, node) -> Span:
        line = getattr(node, "lineno", 1) or 1
        end_line = getattr(node, "end_lineno", line) or line
        col = self._col(line, getattr(node, "col_offset", 0) or 0)
        end_col = getattr(node, "end_col_offset", None)
        end = self._col(end_line, end_col) if end_col is not None else col + 1
        return Span(line, col, end_line, end)

    def _col(self, line: int, byte_offset: int) -> int:
        # ast columns are UTF-8 byte offsets; spans count characters (1-based).
        if 0 < line <= len(self.lines):
            return len(self.lines[line - 1].encode("utf-8")[:byte_offset].decode("utf-8", "replace")) + 1
        return byte_offset + 1

    def err(self, node, message: str, help: str | None = None, rule: str = "") -> DslError:
        span = node if isinstance(node, Span) else self.span(node)
        return DslError(message, span, help, self.path, self.text, rule=rule)

    # -- module --------------------------------------------------------------------------
    def program(self) -> Program:
        if len(self.text) > MAX_SOURCE:
            raise DslError(f"DSL file is {len(self.text)} characters; the limit is {MAX_SOURCE}", Span.point(1),
                           "a kernel draft is a host function and a kernel function", self.path, self.text)
        try:
            tree = self._ast()
        except SyntaxError as e:
            line = e.lineno or 1
            col = max(e.offset or 1, 1)   # SyntaxError offsets are 1-based characters
            end = col + 1   # one caret: Python's end offsets often run to the end of the line
            msg = (e.msg or "invalid syntax").rstrip(".")
            raise DslError(f"syntax error: {msg}", Span(line, col, line, end),
                           "the DSL is Python syntax: check brackets, colons and indentation",
                           self.path, self.text) from None
        except (RecursionError, MemoryError):     # the tree builder's frames, the parser's own stack
            line = self._longest_line()
            raise DslError("expression too long or too deeply nested for Python's parser", Span(line, 1, line, 2),
                           "split it into named intermediate values, a few terms per line", self.path,
                           self.text) from None
        except ValueError as e:
            raise DslError(f"cannot read the DSL text: {e.__class__.__name__}", Span.point(1),
                           "remove null bytes and deeply nested expressions", self.path, self.text) from None
        self._check_depth(tree)
        try:
            return self._module(tree)
        except RecursionError:
            raise DslError("expression nested too deeply", Span.point(1),
                           "split it into named intermediate values", self.path, self.text) from None

    def _ast(self) -> ast.Module:
        """Python's tree of the text. A long chain (`a + b + ... `, 3000 terms) is as deep as it is long,
        and Python's tree builder counts that against the recursion limit: given room (a few thousand
        frames), it is built, and `_check_depth` names its line."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                return ast.parse(self.text, filename=self.path)
            except RecursionError:
                limit = sys.getrecursionlimit()
                if limit >= PARSE_RECURSION:
                    raise
            sys.setrecursionlimit(PARSE_RECURSION)
            try:
                return ast.parse(self.text, filename=self.path)
            finally:
                sys.setrecursionlimit(limit)

    def _longest_line(self) -> int:
        """The line holding the most operators: where an expression too long to parse is."""
        counts = [sum(line.count(op) for op in "+-*/%&|^(~") for line in self.text.splitlines()] or [0]
        return counts.index(max(counts)) + 1

    def _check_depth(self, tree: ast.Module) -> None:
        """Refuse an expression nested deeper than MAX_DEPTH (walked without recursion)."""
        stack: list[tuple[ast.AST, int, ast.AST | None]] = [(tree, 0, None)]
        while stack:
            node, depth, top = stack.pop()
            if isinstance(node, ast.expr):
                depth += 1
                top = top or node
                if depth > MAX_DEPTH:    # shown where the whole expression starts (a long chain's middle is far right)
                    col = self._col(top.lineno, top.col_offset)
                    raise self.err(Span(top.lineno, col, top.lineno, col + 1),
                                   f"expression nested more than {MAX_DEPTH} levels deep",
                                   "split it into named intermediate values, a few terms per line")
            stack.extend((child, depth, top) for child in ast.iter_child_nodes(node))

    def _kernel_name(self, fn: ast.FunctionDef) -> None:
        """The kernel's name names C++ files, classes and the entry: refuse what C++ would."""
        name = fn.name
        span = Span(fn.lineno, self._col(fn.lineno, fn.col_offset) + 4, fn.lineno,
                    self._col(fn.lineno, fn.col_offset) + 4 + len(name))
        if not (name.isascii() and name.replace("_", "a").isalnum() and not name[0].isdigit()):
            raise self.err(span, f"kernel name `{name}` has characters C++ names and file names cannot carry",
                           "use ASCII letters, digits and underscores, e.g. `gelu_v2`")
        if len(name) > MAX_KERNEL_NAME:
            raise self.err(span, f"kernel name is {len(name)} characters; the limit is {MAX_KERNEL_NAME}",
                           "it names the generated files and classes: use a short name")
        if name in CPP_KEYWORDS:
            raise self.err(span, f"kernel name `{name}` is a C++ keyword", f"rename the kernel, e.g. `{name}_op`",
                           rule="names.reserved")
        if name in CPP_TAKEN:
            raise self.err(span, f"kernel name `{name}` is {CPP_TAKEN[name]}", f"rename the kernel, e.g. `{name}_op`")
        if "__" in name or (name[0] == "_" and name[1:2].isupper()):
            raise self.err(span, f"kernel name `{name}` is reserved in C++ (two underscores, or _ and a capital)",
                           "rename the kernel without them")

    def _module(self, tree: ast.Module) -> Program:
        host = kernel = None
        for node in tree.body:        # the type variables first: the host function may come before the kernel
            if isinstance(node, ast.FunctionDef) and len(node.decorator_list) == 1 and \
                    isinstance(node.decorator_list[0], ast.Call):
                self._generics(node.decorator_list[0])
        for i, node in enumerate(tree.body):
            if i == 0 and _is_docstring(node):
                continue
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                raise self.err(node, "imports are not part of the DSL",
                               "remove the import: DSL names (load, exp, f32, ...) are built in")
            if not isinstance(node, ast.FunctionDef):
                raise self.err(node, "only the @host and @kernel functions may appear at the top level, "
                               f"not {_what(node)}",
                               "move this into the @host or @kernel function, or delete it")
            kind = self._decorator(node)
            if kind == "host":
                if host is not None:
                    raise self.err(node, "a second @host function", "one file holds one @host and one @kernel")
                self.in_host = True
                host = self._host(node)
                self.in_host = False
            else:
                if kernel is not None:
                    raise self.err(node, "a second @kernel function", "one file holds one @host and one @kernel")
                kernel = self._kernel(node)
        end = Span.point(max(len(self.lines), 1))
        if host is None:
            raise self.err(end, "no @host function", "add `@host def tiling(...): ... return Launch(cores, ...)`")
        if kernel is None:
            raise self.err(end, "no @kernel function", "add `@kernel def name(x: GM[f32, (N,)], ...):`")
        unknown = sorted(set(self.wanted) - set(self.typevars))
        if unknown:
            raise self.err(end, f"kernel `{kernel.name}` is not generic over {', '.join(unknown)}",
                           "a variant binds the kernel's own type variables, @kernel(T=(...))")
        return Program(host, kernel, self.text, self.path, span=Span(1, 1, max(len(self.lines), 1), 1),
                       generics=tuple(self.typevars.items()), binding=tuple(self.binding.items()))

    def _generics(self, dec: ast.Call) -> None:
        """`@kernel(T=(f32, f16, bf16))`: the kernel is generic over T (one variant per dtype)."""
        if not (isinstance(dec.func, ast.Name) and dec.func.id == "kernel"):
            return                    # _decorator rejects it in its own words
        if dec.args or not dec.keywords:
            raise self.err(dec, "@kernel(...) takes type variables only, e.g. @kernel(T=(f32, f16, bf16))",
                           "name each type variable and the dtypes it ranges over")
        for kw in dec.keywords:
            if kw.arg is None:
                raise self.err(dec, "`**` is not part of the DSL", "write @kernel(T=(f32, f16))")
            self._check_name(kw, kw.arg)
            if kw.arg in self.typevars:
                raise self.err(kw, f"type variable `{kw.arg}` is declared twice", "declare each once")
            items = kw.value.elts if isinstance(kw.value, ast.Tuple) else [kw.value]
            choices: list[DType] = []
            for it in items:
                d = self._dtype(it)
                if d in choices:
                    raise self.err(it, f"`{d.value}` is listed twice for `{kw.arg}`", "list each dtype once")
                choices.append(d)
            if not choices:
                raise self.err(kw, f"type variable `{kw.arg}` ranges over no dtype", f"write {kw.arg}=(f32, f16)")
            self.typevars[kw.arg] = tuple(choices)
            want = self.wanted.get(kw.arg, choices[0])
            if want not in choices:
                raise self.err(kw, f"kernel is generic over {kw.arg} in ({', '.join(c.value for c in choices)}), "
                               f"not {want.value}", f"add {want.value} to {kw.arg}=(...) if the kernel serves it")
            self.binding[kw.arg] = want

    def _decorator(self, fn: ast.FunctionDef) -> str:
        names = [d.id if isinstance(d, ast.Name) else
                 d.func.id if isinstance(d, ast.Call) and isinstance(d.func, ast.Name) and d.func.id == "kernel"
                 else None
                 for d in fn.decorator_list]
        if len(names) != 1 or names[0] not in ("host", "kernel"):
            target = fn.decorator_list[0] if fn.decorator_list else fn
            raise self.err(target, f"function `{fn.name}` needs exactly one decorator, @host or @kernel",
                           "decorate the tiling function with @host and the kernel with @kernel")
        if fn.returns is not None:
            raise self.err(fn.returns, "return annotations are not part of the DSL", "remove `-> ...`")
        a = fn.args
        extra = a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or a.defaults or a.kw_defaults
        if extra:
            raise self.err(fn, f"`{fn.name}` may only have plain annotated parameters",
                           "write parameters as `name: Type`, without defaults, *args or **kwargs")
        return names[0]

    # -- parameters ------------------------------------------------------------------------
    def _params(self, fn: ast.FunctionDef, host: bool):
        params, seen = [], set()
        for a in fn.args.args:
            if a.arg in seen:
                raise self.err(a, f"parameter `{a.arg}` is declared twice", "give each parameter its own name")
            seen.add(a.arg)
            self._check_name(a, a.arg)
            if a.annotation is None:
                what = "Tensor[f32, (N,)] or a dtype" if host else "GM[f32, (N,)], Out[...], a dtype or Tiling"
                raise self.err(a, f"parameter `{a.arg}` has no type", f"annotate it, e.g. `{a.arg}: {what}`")
            params.append(self._param(a, a.annotation, host))
        return tuple(params)

    def _param(self, a: ast.arg, ann: ast.expr, host: bool):
        span = self.span(a)
        if isinstance(ann, ast.Name):
            dt = DType.from_name(ann.id) or self.binding.get(ann.id)
            if dt is not None:
                return ScalarParam(a.arg, dt, span=span, dtype_var=ann.id if ann.id in self.binding else None)
            if ann.id == "Tiling" and not host:
                return TilingParam(a.arg, span=span)
        if isinstance(ann, ast.Subscript) and isinstance(ann.value, ast.Name):
            head = ann.value.id
            allowed = ("Tensor",) if host else ("GM", "Out", "Param", "Workspace")
            if head in allowed:
                items = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
                nmax = 3 if head in ("Param", "Out") else 2
                if not 2 <= len(items) <= nmax:
                    raise self.err(ann, f"`{head}[...]` takes a dtype and a shape"
                                   + (" and an optional name" if head == "Param" else ""),
                                   f"write `{head}[f32, (B, N)]`")
                dt = self._dtype(items[0])
                groups = self._shape(items[1])
                source = None
                if len(items) == 3:
                    s = items[2]
                    if not (isinstance(s, ast.Constant) and isinstance(s.value, str) and s.value):
                        if head == "Out":
                            raise self.err(s, "the third item of Out[...] names the output whose rows this one "
                                           "counts, a string", 'write e.g. n: Out[i64, (1,), "y"]')
                        raise self.err(s, "the third item of Param[...] is the Model's parameter name, a string",
                                       'write e.g. Param[f32, (N,), "ln.weight"]')
                    source = s.value
                role = {"GM": TensorRole.input, "Tensor": TensorRole.input, "Out": TensorRole.output,
                        "Param": TensorRole.param, "Workspace": TensorRole.workspace}[head]
                var = items[0].id if isinstance(items[0], ast.Name) and items[0].id in self.binding else None
                return TensorParam(a.arg, dt, groups, role, source, var, span=span)
        if host:
            raise self.err(ann, f"`{ast.unparse(ann)}` is not a host parameter type",
                           "host parameters are `Tensor[dtype, shape]` or a scalar dtype such as i32")
        raise self.err(ann, f"`{ast.unparse(ann)}` is not a kernel parameter type",
                       "use GM[dtype, shape] (input), Out[dtype, shape] (output), Param[dtype, shape] "
                       "(Model parameter), Workspace[dtype, shape] (GM scratch), a scalar dtype such as f32, or Tiling")

    def _dtype(self, node) -> DType:
        if isinstance(node, ast.Name) and DType.from_name(node.id):
            return DType.from_name(node.id)
        if isinstance(node, ast.Name) and node.id in self.binding:
            return self.binding[node.id]
        raise self.err(node, f"`{_src(node)}` is not a dtype",
                       "dtypes are " + ", ".join(d.value for d in DType)
                       + (f", and the kernel's type variables {', '.join(self.binding)}" if self.binding else ""))

    def _shape(self, node) -> tuple[tuple[Expr, ...], ...]:
        if not isinstance(node, ast.Tuple):
            raise self.err(node, "a shape is a tuple of dims",
                           "write e.g. (B, N), or (N,) for one dim, () for a scalar")
        groups = []
        for d in node.elts:
            if isinstance(d, ast.Tuple):
                packs = sum(isinstance(x, ast.Starred) for x in d.elts)
                if len(d.elts) < 2 - packs or any(isinstance(x, ast.Tuple) for x in d.elts):
                    raise self.err(d, "a dim group is a flat tuple of two or more dims",
                                   "write e.g. ((B, M), N) to view B and M as one axis")
                groups.append(tuple(self._dim(x) for x in d.elts))
            else:
                groups.append((self._dim(d),))
        unsized = [d for g in groups for d in g if isinstance(d, Pack) and d.count is None]
        if len(unsized) > 1:
            raise self.err(node, "two dim packs without a count in one shape: which dims each takes is unknown",
                           "give all but one a count from an int scalar, e.g. (*A[dim], R, *I)")
        if len(groups) > 5:
            raise self.err(node, f"{len(groups)} axes; GM tensors have rank 0 to 5",
                           "group contiguous dims with a nested tuple, e.g. ((A, B), C)")
        return tuple(groups)

    def _dim(self, node) -> Expr:
        if isinstance(node, ast.Starred):
            return self._pack(node)
        e = self._expr(node)
        for n in _walk(e):
            if isinstance(n, Const) and n.kind != "int":
                raise self.err(node, f"dim `{_src(node)}` is not an integer", "dims are names, ints or int expressions")
            if isinstance(n, Call) and n.op not in ("add", "sub", "mul", "floordiv", "mod", "min", "max"):
                raise self.err(node, f"dim `{_src(node)}` uses `{n.op}`",
                               "dims use names, ints, + - * // % and min/max")
            if isinstance(n, Attr):
                raise self.err(node, f"dim `{_src(node)}` reads an attribute",
                               "dims use names, ints, + - * // % and min/max")
        return e

    def _pack(self, node: ast.Starred) -> Pack:
        """`*S` (every remaining dim of the tensor) or `*S[k]` (k dims, k an int scalar parameter)."""
        v, count = node.value, None
        if isinstance(v, ast.Subscript) and isinstance(v.value, ast.Name):
            if not isinstance(v.slice, ast.Name):
                raise self.err(v.slice, "a dim pack's count is an int scalar parameter, e.g. `*A[dim]`",
                               "declare `dim: i32` and write `*A[dim]`")
            count = Name(v.slice.id, span=self.span(v.slice))
            v = v.value
        if not isinstance(v, ast.Name):
            raise self.err(node, f"`{_src(node)}` is not a dim pack",
                           "a dim pack is `*S`, or `*S[k]` with k an int scalar")
        self._check_name(v, v.id)
        return Pack(v.id, count, span=self.span(node))

    def _check_name(self, node, name: str):
        if name in self.typevars:
            raise self.err(node, f"`{name}` is the kernel's type variable and cannot be used as a name",
                           f"rename it, e.g. `{name.lower()}v`")
        if name in RESERVED or name in OPS or name in SOC_CONSTANTS or name in HOST_BUILTINS:
            raise self.err(node, f"`{name}` is a DSL word and cannot be used as a name",
                           f"rename it, e.g. `{name}_` or `{name[0]}v`", rule="names.reserved")
        if name.startswith("__"):
            raise self.err(node, f"`{name}` is not allowed as a name", "names may not start with two underscores")

    # -- host ------------------------------------------------------------------------------
    def _host(self, fn: ast.FunctionDef) -> HostFunc:
        params = self._params(fn, host=True)
        body = list(fn.body)
        if body and _is_docstring(body[0]):
            body = body[1:]
        stmts = []
        launch = None
        for i, st in enumerate(body):
            if isinstance(st, ast.Return):
                if i != len(body) - 1:
                    raise self.err(body[i + 1], "code after `return Launch(...)`",
                                   "end the host function with the return")
                launch = self._launch(st)
            elif isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
                self._check_name(st.targets[0], st.targets[0].id)
                stmts.append(Assign(st.targets[0].id, self._expr(st.value), span=self.span(st)))
            elif isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name):
                stmts.append(self._augassign(st))
            elif isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Tuple):
                stmts.extend(self._host_pair(st))
            else:
                raise self.err(st, f"{_what(st)} is not allowed in the host function",
                               "the host function is `name = expression` lines and a final "
                               "`return Launch(cores, field=value, ...)`")
        if launch is None:
            raise self.err(fn, f"host function `{fn.name}` does not return Launch(...)",
                           "end it with `return Launch(cores, rows=rows, tile=tile)`")
        return HostFunc(fn.name, params, tuple(stmts), launch, span=self._def_span(fn))

    def _host_pair(self, st: ast.Assign) -> list[Assign]:
        """`cores, per_core = core_split(rows)`: the split every kernel makes, as the two lines it
        stands for (per_core = cdiv(rows, min(VECTOR_CORES, rows)); cores = cdiv(rows, per_core)),
        so the tiling function and its C++ read as the author would write them by hand."""
        target, v = st.targets[0], st.value
        pair = v.func.id if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) else None
        if pair not in HOST_PAIRS:
            raise self.err(st, "only core_split() gives two values in the host function",
                           "assign one name per line, or write `cores, per_core = core_split(B)`")
        names = HOST_PAIRS[pair]
        if len(target.elts) != 2 or not all(isinstance(t, ast.Name) for t in target.elts):
            raise self.err(target, f"{pair}() gives two values: {names[0]} and {names[1]}",
                           f"write `{names[0]}, {names[1]} = {pair}(B)`")
        for t in target.elts:
            self._check_name(t, t.id)
        cores, per = (t.id for t in target.elts)
        if cores == per:
            raise self.err(target, f"{pair}() needs two different names", f"write `{names[0]}, {names[1]} = {pair}(B)`")
        span = self.span(st)
        (rows,) = self._bind_args(v, pair, HOST_BUILTINS[pair].params)
        vc = Name("VECTOR_CORES", span=span)
        return [Assign(per, Call("cdiv", (rows, Call("min", (vc, rows), span=span)), span=span), span=span),
                Assign(cores, Call("cdiv", (rows, Name(per, span=span)), span=span), span=span)]

    def _launch(self, st: ast.Return) -> Launch:
        v = st.value
        if not (isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "Launch"):
            raise self.err(st.value or st, "the host function must return Launch(...)",
                           "write `return Launch(cores, rows=rows, tile=tile)`")
        if len(v.args) != 1 or any(isinstance(a, ast.Starred) for a in v.args):
            raise self.err(v, "Launch takes the core count as its one positional argument",
                           "write `Launch(cores, name=value, ...)`")
        fields, seen = [], set()
        for kw in v.keywords:
            if kw.arg is None:
                raise self.err(kw.value, "`**` is not part of the DSL", "name each field: `Launch(cores, tile=tile)`")
            if kw.arg in seen:
                raise self.err(kw, f"Launch field `{kw.arg}` is given twice", "give each tiling field once")
            if kw.arg in ("cores",) or kw.arg in RANGE_ATTRS:
                raise self.err(kw, f"`{kw.arg}` is reserved and cannot be a Launch field name",
                               "pick another name" if kw.arg != "cores"
                               else "the core count is the positional argument", rule="names.reserved")
            seen.add(kw.arg)
            fields.append(LaunchField(kw.arg, self._expr(kw.value), span=self.span(kw)))
        return Launch(self._expr(v.args[0]), tuple(fields), span=self.span(st))

    def _def_span(self, fn: ast.FunctionDef) -> Span:
        line = fn.lineno
        col = self._col(line, fn.col_offset)
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return Span(line, col, line, max(len(text) + 1, col + 1))

    # -- kernel ----------------------------------------------------------------------------
    def _kernel(self, fn: ast.FunctionDef) -> Kernel:
        self._kernel_name(fn)
        params = self._params(fn, host=False)
        body = list(fn.body)
        if body and _is_docstring(body[0]):
            body = body[1:]
        if not body:
            raise self.err(fn, f"kernel `{fn.name}` has no body", "add the core and tile loops")
        return Kernel(fn.name, params, self._block(body), span=self._def_span(fn))

    def _block(self, stmts) -> tuple:
        out = []
        for st in stmts:
            if _is_docstring(st):
                continue   # a stray string is a comment
            out.append(self._stmt(st))
        return tuple(out)

    def _stmt(self, st):
        span = self.span(st)
        if isinstance(st, ast.Assign):
            if len(st.targets) != 1 or not isinstance(st.targets[0], ast.Name):
                raise self.err(st.targets[0] if len(st.targets) == 1 else st,
                               "assign to one plain name",
                               "write `name = expression`; no tuple targets, chains or subscripts "
                               "(GM is written with store(y[...], tile))")
            target = st.targets[0].id
            self._check_name(st.targets[0], target)
            v = st.value
            if _is_call(v, "load"):
                src, level, transpose = self._load_args(v)
                return Load(target, src, level, transpose, span=span)
            return Assign(target, self._expr(v), span=span)
        if isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name):
            return self._augassign(st)
        if isinstance(st, ast.Expr):
            v = st.value
            if _is_call(v, "store"):
                return self._store(v, span)
            if _is_call(v, "barrier"):
                if v.args or v.keywords:
                    raise self.err(v, "barrier() takes no arguments", "write `barrier()`")
                return Barrier(span=span)
            if _is_call(v, "sync_all"):
                if v.args or v.keywords:
                    raise self.err(v, "sync_all() takes no arguments", "write `sync_all()`")
                return SyncAll(span=span)
            if _is_call(v, "load"):
                raise self.err(v, "the result of load() must be named",
                               "write `xu = load(x[...])` inside `with copyin:`")
            raise self.err(st, "an expression on its own does nothing",
                           "assign it (`v = ...`) or, for GM output, `store(y[...], tile)` in copyout")
        if isinstance(st, ast.For):
            return self._for(st, span)
        if isinstance(st, ast.With):
            return self._with(st, span)
        if isinstance(st, ast.If):
            cond = self._expr(st.test)
            body = self._block(st.body)
            orelse = self._block(st.orelse) if st.orelse else ()
            return If(cond, body, orelse, span=self._head_span(st))
        if isinstance(st, ast.While):
            raise self.err(st, "`while` loops are not part of the DSL",
                           "use `for ... in range(...)`, `tiles(...)` or `core_rows(...)`: "
                           "every loop has a known trip count")
        if isinstance(st, ast.Return):
            raise self.err(st, "a kernel does not return values", "write outputs with `store(y[...], tile)` in copyout")
        if isinstance(st, ast.Pass):
            raise self.err(st, "`pass` is not part of the DSL", "remove it")
        raise self.err(st, f"{_what(st)} is not part of the DSL",
                       "kernel statements are assignments, load/store, for, with copyin/compute/copyout, if, barrier() "
                       "and sync_all()")

    def _head_span(self, st) -> Span:
        s = self.span(st)
        text = self.lines[s.line - 1] if 0 < s.line <= len(self.lines) else ""
        return Span(s.line, s.col, s.line, max(len(text.rstrip()) + 1, s.col + 1))

    def _augassign(self, st: ast.AugAssign) -> Assign:
        sym = _BINOPS.get(type(st.op))
        if sym is None or sym not in BINARY_SYMBOLS:
            raise self.err(st, f"`{_src(st)}` uses an operator outside the DSL", "use + - * / // % **")
        name = st.target.id
        self._check_name(st.target, name)
        value = Call(BINARY_SYMBOLS[sym], (Name(name, span=self.span(st.target)), self._expr(st.value)),
                     span=self.span(st))
        return Assign(name, value, span=self.span(st))

    def _for(self, st: ast.For, span: Span) -> For:
        if st.orelse:
            raise self.err(st.orelse[0], "`for ... else` is not part of the DSL", "remove the else block")
        it = st.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id in ITERATORS):
            raise self.err(it, f"cannot loop over `{_src(it)}`",
                           "loop over core_rows(rows, total), core_chunk(size, total), core_tiles(extents, steps), "
                           "tiles(extent, step) or range(...)")
        kind = it.func.id
        targets = st.target.elts if isinstance(st.target, ast.Tuple) else [st.target]
        if not all(isinstance(t, ast.Name) for t in targets) or (len(targets) > 1 and kind != "core_tiles"):
            raise self.err(st.target, "a loop variable is one name"
                           + (" (several only for core_tiles)" if kind != "core_tiles" else ""),
                           "write `for c in tiles(N, t.tile):`" if kind != "core_tiles"
                           else "write `for mi, ni in core_tiles((M, N), (t.base_m, t.base_n)):`")
        names = [t.id for t in targets]
        for t in targets:
            self._check_name(t, t.id)
        if len(set(names)) != len(names):
            raise self.err(st.target, "a loop variable is named twice", "give each axis its own range variable")
        if it.keywords or any(isinstance(a, ast.Starred) for a in it.args):
            raise self.err(it, f"{kind}() takes positional arguments only", f"write e.g. {_iter_example(kind)}")
        isp = self.span(it)
        if kind == "core_tiles":
            iterator = self._core_tiles(it, isp)
            if len(names) != len(iterator.extents):
                raise self.err(st.target, f"core_tiles() over {len(iterator.extents)} axes gives "
                               f"{len(iterator.extents)} range variables, not {len(names)}",
                               f"write `for {', '.join(f'r{i}' for i in range(len(iterator.extents)))} in ...`")
            return For(names[0], iterator, self._block(st.body), tuple(names[1:]), span=self._head_span(st))
        args = [self._expr(a) for a in it.args]
        if kind == "range":
            if not 1 <= len(args) <= 3:
                raise self.err(it, "range() takes 1 to 3 arguments",
                               "write range(stop), range(start, stop) or range(start, stop, step)")
            if len(args) == 1:
                args = [Const(0, "int", span=isp), args[0]]
            if len(args) == 2:
                args.append(Const(1, "int", span=isp))
            iterator = Range(*args, span=isp)
        else:
            if len(args) != 2:
                raise self.err(it, f"{kind}() takes 2 arguments", f"write e.g. {_iter_example(kind)}")
            iterator = {"core_rows": CoreRows, "core_chunk": CoreChunk, "tiles": Tiles}[kind](*args, span=isp)
        return For(names[0], iterator, self._block(st.body), span=self._head_span(st))

    def _core_tiles(self, it: ast.Call, span: Span) -> CoreTiles:
        usage = "write `core_tiles((M, N), (t.base_m, t.base_n))`: a tuple of extents and a tuple of steps"
        if len(it.args) != 2 or not all(isinstance(a, ast.Tuple) for a in it.args):
            raise self.err(it, "core_tiles() takes a tuple of extents and a tuple of steps", usage)
        extents, steps = it.args[0].elts, it.args[1].elts
        if not extents or len(extents) != len(steps) or len(extents) > 5:
            raise self.err(it, f"core_tiles() gets {len(extents)} extents and {len(steps)} steps",
                           "give one step per extent, for 1 to 5 axes")
        return CoreTiles(tuple(self._expr(e) for e in extents), tuple(self._expr(e) for e in steps), span=span)

    def _with(self, st: ast.With, span: Span) -> Stage:
        if len(st.items) != 1 or st.items[0].optional_vars is not None \
                or not isinstance(st.items[0].context_expr, ast.Name) \
                or st.items[0].context_expr.id not in StageKind.__members__:
            raise self.err(st.items[0].context_expr if st.items else st, "a `with` block names one stage",
                           "write `with copyin:`, `with split:`, `with compute:` or `with copyout:`")
        kind = StageKind[st.items[0].context_expr.id]
        return Stage(kind, self._block(st.body), span=self._head_span(st))

    def _load_args(self, v: ast.Call):
        usage = "write `load(x[r, c])`, `load(a[i, k], L1)` or `load(a1, L0A)`"
        if len(v.args) < 1 or len(v.args) > 2 or any(isinstance(a, ast.Starred) for a in v.args):
            raise self.err(v, "load() takes a GM view (or an L1 tile) and an optional level", usage)
        level_node = v.args[1] if len(v.args) == 2 else None
        transpose = False
        for kw in v.keywords:
            if kw.arg == "transpose":
                if not (isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, bool)):
                    raise self.err(kw.value, "transpose is True or False", "write `load(a1, L0A, transpose=True)`")
                transpose = kw.value.value
                continue
            if kw.arg != "level" or level_node is not None:
                raise self.err(kw, f"load() has no argument `{kw.arg}`" if kw.arg != "level"
                                   else "level is given twice",
                               usage)
            level_node = kw.value
        level = Level.UB
        if level_node is not None:
            if not (isinstance(level_node, ast.Name) and level_node.id in _LOAD_LEVELS):
                raise self.err(level_node, f"`{_src(level_node)}` is not a load level",
                               "load GM into UB (default) or L1, and an L1 tile into L0A or L0B")
            level = _LOAD_LEVELS[level_node.id]
        return self._gmref(v.args[0]), level, transpose

    def _store(self, v: ast.Call, span: Span) -> Store:
        if len(v.args) != 2 or any(isinstance(a, ast.Starred) for a in v.args):
            raise self.err(v, "store() takes a GM view and a named tile", "write `store(y[r, c], yu)`")
        acc = False
        for kw in v.keywords:
            if kw.arg != "accumulate":
                raise self.err(kw, f"store() has no argument `{kw.arg}`", "the only option is accumulate=True")
            if not (isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, bool)):
                raise self.err(kw.value, "accumulate is True or False", "write `accumulate=True`")
            acc = kw.value.value
        value = v.args[1]
        if not isinstance(value, ast.Name):
            raise self.err(value, "store() writes a named value, not an expression",
                           "compute it in `with compute:` as `yu = ...`, then `store(y[...], yu)`")
        return Store(self._gmref(v.args[0]), Name(value.id, span=self.span(value)), acc, span=span)

    def _gmref(self, node) -> GmRef:
        span = self.span(node)
        if isinstance(node, ast.Name):
            return GmRef(node.id, None, span=span)
        if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)):
            raise self.err(node, f"`{_src(node)}` is not a GM view", "index a GM tensor parameter: `x[r, c]`")
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        index = []
        for it in items:
            isp = self.span(it)
            if isinstance(it, ast.Slice):
                index.append(IndexSlice(self._expr(it.lower) if it.lower else None,
                                        self._expr(it.upper) if it.upper else None,
                                        self._expr(it.step) if it.step else None, span=isp))
            elif _is_call(it, "windows"):
                if len(it.args) != 3 or it.keywords or not isinstance(it.args[0], ast.Name):
                    raise self.err(it, "windows() takes a range variable, k and stride",
                                   "write `x[r, windows(c, K, S)]`")
                index.append(IndexWindows(self._expr(it.args[0]), self._expr(it.args[1]), self._expr(it.args[2]),
                                          span=isp))
            else:
                index.append(IndexExpr(self._expr(it), span=isp))
        return GmRef(node.value.id, tuple(index), span=span)

    # -- expressions -----------------------------------------------------------------------
    def _expr(self, node) -> Expr:
        span = self.span(node)
        if isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, bool):
                return Const(v, "bool", span=span)
            if isinstance(v, int):
                return Const(v, "int", span=span)
            if isinstance(v, float):
                if math.isnan(v):
                    raise self.err(node, "NaN is not a DSL literal", "use a finite number or inf")
                return Const(v, "float", span=span)
            what = "a string" if isinstance(v, str) else f"`{_src(node)}`"
            raise self.err(node, f"{what} is not a value in the DSL", "values are numbers, True/False, inf and names")
        if isinstance(node, ast.Name):
            if node.id == "inf":
                return Const(math.inf, "float", span=span)
            if DType.from_name(node.id) or node.id in self.binding:
                raise self.err(node, f"dtype `{node.id}` is not a value here",
                               "dtypes appear in declarations, cast(x, dtype) and ub_elems(dtype, ...)")
            return Name(node.id, span=span)
        if isinstance(node, ast.Attribute):
            if not isinstance(node.value, ast.Name):
                raise self.err(node, f"`{_src(node)}` reads an attribute of an expression",
                               "only `t.field` (tiling) and `c.start` / `c.len` / `c.index` (ranges) exist")
            return Attr(Name(node.value.id, span=self.span(node.value)), node.attr, span=span)
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.UAdd):
                return self._expr(node.operand)
            if isinstance(node.op, ast.USub):
                inner = self._expr(node.operand)
                if isinstance(inner, Const) and inner.kind in ("int", "float"):
                    return Const(-inner.value, inner.kind, span=span)
                return Call(UNARY_SYMBOLS["-"], (inner,), span=span)
            raise self.err(node, f"`{_src(node)}` uses `{'not' if isinstance(node.op, ast.Not) else '~'}`",
                           "compare explicitly (`a == 0.0`) or use where(mask, a, b)")
        if isinstance(node, ast.BinOp):
            sym = _BINOPS.get(type(node.op))
            if sym is None:
                raise self.err(node, f"operator in `{_src(node)}` is not part of the DSL", "use + - * / // % **")
            op = BINARY_SYMBOLS[sym]
            return Call(op, (self._expr(node.left), self._expr(node.right)), span=span)
        if isinstance(node, ast.Compare):
            if len(node.ops) != 1:
                raise self.err(node, "chained comparisons are not part of the DSL",
                               "compare two values at a time: `a < b`")
            sym = _CMPOPS.get(type(node.ops[0]))
            if sym is None:
                raise self.err(node, f"`{_src(node)}` uses `is`/`in`", "compare with < <= > >= == !=")
            return Call(BINARY_SYMBOLS[sym], (self._expr(node.left), self._expr(node.comparators[0])), span=span)
        if isinstance(node, ast.Call):
            return self._call(node, span)
        if isinstance(node, ast.Subscript):
            raise self.err(node, "indexing is only for GM tensors inside load() and store()",
                           "use first(tile) / last(tile) for one element of a tile")
        if isinstance(node, ast.BoolOp):
            raise self.err(node, "`and` / `or` are not part of the DSL",
                           "nest `if` statements, or combine masks with where()")
        if isinstance(node, ast.IfExp):
            raise self.err(node, "`a if c else b` is not part of the DSL",
                           "use where(mask, a, b) for tiles or an `if` statement for scalars")
        raise self.err(node, f"{_what(node)} is not part of the DSL",
                       "expressions are numbers, names, t.field, arithmetic, comparisons and DSL operations")

    def _call(self, node: ast.Call, span: Span) -> Expr:
        if not isinstance(node.func, ast.Name):
            raise self.err(node.func, f"`{_src(node.func)}` is not a DSL function",
                           "call DSL operations by name: exp(x), reduce_sum(x), cast(x, f16)")
        name = node.func.id
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            raise self.err(node, "`*` / `**` arguments are not part of the DSL", "pass arguments one by one")
        if self.in_host:
            if name in HOST_PAIRS:
                a, b = HOST_PAIRS[name]
                raise self.err(node, f"{name}() gives two values ({a} and {b}), so it is a line of its own",
                               f"write `{a}, {b} = {_src(node)}` and use the names")
            if name in HOST_BUILTINS:
                b = HOST_BUILTINS[name]
                if b.variadic:
                    if node.keywords or len(node.args) < 2:
                        raise self.err(node, f"{name}() takes two or more positional arguments", f"write {name}(a, b)")
                    return Call(name, tuple(self._expr(a) for a in node.args), span=span)
                return Call(name, self._bind_args(node, name, b.params), span=span)
            if name in OPS or name in ITERATORS or name in ("load", "store"):
                raise self.err(node.func, f"`{name}` is a kernel operation, not available in the host function",
                               "host expressions use + - * / // %, " + ", ".join(HOST_BUILTINS))
            raise self._unknown(node.func, name, list(HOST_BUILTINS),
                                "host functions: " + ", ".join(HOST_BUILTINS))
        if name in OPS:
            # `add(a, b)` is accepted and prints as `a + b`: one IR, one canonical text.
            return Call(name, self._bind_args(node, name, OPS[name].params), span=span)
        if name in ("load", "store", "barrier", "sync_all"):
            raise self.err(node, f"{name}() is a statement, not a value",
                           "write `xu = load(x[...])` in copyin, `store(y[...], yu)` in copyout, `barrier()` or "
                           "`sync_all()` alone")
        if name == "windows":
            raise self.err(node, "windows() is a GM index", "use it inside a view: `load(x[r, windows(c, K, S)])`")
        if name in ITERATORS:
            raise self.err(node, f"{name}() is a loop iterator", f"write `for v in {_iter_example(name)}:`")
        if name in HOST_BUILTINS:
            raise self.err(node.func, f"`{name}` is a host function",
                           "compute it in @host and pass it through Launch(...), then read `t.<field>`")
        raise self._unknown(node.func, name, list(OPS), "see the operations table in docs/dsl-reference.md")

    def _unknown(self, node, name, known, fallback) -> DslError:
        close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
        help = ("did you mean " + " or ".join(f"`{c}`" for c in close) + "?") if close else fallback
        return self.err(node, f"`{name}` is not a DSL operation", help)

    def _bind_args(self, node: ast.Call, name: str, params: tuple[OpParam, ...]) -> tuple[Expr, ...]:
        if len(node.args) > len(params):
            raise self.err(node, f"{name}() takes at most {len(params)} arguments, got {len(node.args)}",
                           f"write {_signature(name, params)}")
        given: dict[str, ast.expr] = {}
        for p, a in zip(params, node.args):
            given[p.name] = a
        names = [p.name for p in params]
        for kw in node.keywords:
            if kw.arg not in names:
                raise self.err(kw, f"{name}() has no argument `{kw.arg}`", f"write {_signature(name, params)}")
            if kw.arg in given:
                raise self.err(kw, f"{name}() gets `{kw.arg}` twice", f"write {_signature(name, params)}")
            given[kw.arg] = kw.value
        out = []
        span = self.span(node)
        for p in params:
            if p.name not in given:
                if p.default is None:
                    raise self.err(node, f"{name}() is missing `{p.name}`", f"write {_signature(name, params)}")
                d = p.default
                if isinstance(d, DType):
                    out.append(DTypeRef(d, span=span))
                else:
                    out.append(Str(d, span=span) if isinstance(d, str) else Const(d.value, d.kind, span=span))
                continue
            a = given[p.name]
            if p.kind == "dtype":
                var = a.id if isinstance(a, ast.Name) and a.id in self.binding else None
                out.append(DTypeRef(self._dtype(a), var, span=self.span(a)))
            elif p.kind == "level":
                if not (isinstance(a, ast.Name) and a.id in _LEVELS):
                    raise self.err(a, f"`{_src(a)}` is not a memory level", "levels are " + ", ".join(_LEVELS))
                out.append(LevelRef(_LEVELS[a.id], span=self.span(a)))
            elif p.kind == "round":
                if not (isinstance(a, ast.Constant) and a.value in ROUND_MODES):
                    raise self.err(a, f"`{_src(a)}` is not a rounding mode",
                                   "round is one of " + ", ".join(f'"{m}"' for m in ROUND_MODES))
                out.append(Str(a.value, span=self.span(a)))
            elif p.kind == "axis":
                e = self._expr(a)
                if isinstance(e, Const) and e.kind == "int":
                    out.append(e)
                elif isinstance(a, ast.Constant) and a.value == "all":
                    out.append(Str("all", span=self.span(a)))
                else:
                    raise self.err(a, f"`{_src(a)}` is not an axis",
                                   f"write {name}(x, axis=1) or axis=-1 for the last axis")
            elif p.kind == "bool":
                if not (isinstance(a, ast.Constant) and isinstance(a.value, bool)):
                    raise self.err(a, f"`{p.name}` is True or False", f"write {name}(..., {p.name}=True)")
                out.append(Const(a.value, "bool", span=self.span(a)))
            else:
                out.append(self._expr(a))
        return tuple(out)


RANGE_ATTRS = ("start", "len", "index")


def _signature(name, params) -> str:
    parts = [p.name if p.default is None else f"{p.name}=..." for p in params]
    return f"{name}({', '.join(parts)})"


def _iter_example(kind: str) -> str:
    return {"core_rows": "core_rows(t.rows, B)", "core_chunk": "core_chunk(t.chunk, N)",
            "core_tiles": "core_tiles((M, N), (t.base_m, t.base_n))", "tiles": "tiles(N, t.tile)",
            "range": "range(n)"}[kind]


def _is_docstring(node) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _is_call(node, name: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name


def _src(node) -> str:
    try:
        text = ast.unparse(node)
    except Exception:   # unparse of a malformed fragment: fall back to the node kind
        return type(node).__name__
    return text if len(text) <= 60 else text[:57] + "..."


def _what(node) -> str:
    names = {ast.ClassDef: "a class", ast.Import: "an import", ast.ImportFrom: "an import", ast.Assign: "an assignment",
             ast.Expr: "an expression statement", ast.If: "an if", ast.For: "a for loop", ast.While: "a while loop",
             ast.With: "a with block", ast.Try: "a try block", ast.Raise: "raise", ast.Global: "global",
             ast.Nonlocal: "nonlocal", ast.Delete: "del", ast.Assert: "assert", ast.Lambda: "a lambda",
             ast.AsyncFunctionDef: "an async function", ast.FunctionDef: "a nested function",
             ast.AnnAssign: "an annotated assignment",
             ast.AugAssign: "an augmented assignment", ast.ListComp: "a list comprehension", ast.List: "a list",
             ast.Tuple: "a tuple", ast.Dict: "a dict", ast.Set: "a set", ast.JoinedStr: "an f-string",
             ast.Return: "return", ast.Pass: "pass", ast.Break: "break", ast.Continue: "continue",
             ast.Starred: "a starred expression", ast.Await: "await", ast.Yield: "yield", ast.NamedExpr: "`:=`",
             ast.GeneratorExp: "a generator", ast.DictComp: "a dict comprehension", ast.SetComp: "a set comprehension",
             ast.Slice: "a slice", ast.Match: "match"}
    return names.get(type(node), f"`{type(node).__name__}`")


def _walk(e: Expr):
    return walk_exprs(e)


__all__ = ["parse", "parse_file", "GRAMMAR", "ITERATORS", "RESERVED", "HOST_OPS"]
