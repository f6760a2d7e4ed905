"""Programs of kernels: the syntax of a DSL file that holds several kernels and one @program.

A program file is the one-kernel file repeated (each `@host` directly followed by its `@kernel`)
plus one `@program` function that says in what order the kernels run, which GM tensors pass
between them and which are the reference's outputs:

    @program
    def mlp(x: GM[f32, (M, K)], w1: Param[f32, (H, K), "fc1.weight"], ..., y: Out[f32, (M, N)],
            h: Workspace[f32, (M, H)]):          # an intermediate: GM the host allocates (zeroed once)
        linear(x, w1, b1, h)                     # a launch: one argument per kernel parameter, in order
        for s in range(S):                       # a host loop
            cell(g[s], hc[s % 2], hc[(s + 1) % 2])   # x[i]: a view without the leading axis
        linear(a.view(S * B, H), w2, b2, y)      # x.view(...): a contiguous reshape

This module owns that grammar (`PROGRAM_GRAMMAR`, rendered into docs/dsl-reference.md), the parser
(`parse_any`) and the printer (`print_multi`); meaning is program_check.py's.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

from .errors import DslError, Span
from .ir import ArgView, Const, For, LaunchStmt, MultiProgram, Program, ProgramFunc, Range, TilingParam
from .parser import _is_docstring, _Parser, _src, _what, parse
from .printer import INDENT, _param_text, _signature, expr_text, iter_text, print_program

PROGRAM_GRAMMAR = r"""
program_file := [docstring] {host_fn kernel_fn} program_fn    # each @host directly followed by its @kernel
program_fn   := "@program" "def" NAME "(" pparam {"," pparam} ")" ":" pblock
pparam       := a kernel parameter but Tiling: GM / Param / Out / a dtype are the reference's
                inputs, parameters, outputs and scalars as for a kernel; Workspace is an
                intermediate (GM the host allocates before the first launch, zeroed once)
pblock       := pstmt {pstmt}
pstmt        := NAME "(" [arg {"," arg}] ")"                    # launch @kernel NAME: one argument per
                                                                # parameter in order, but Tiling and its Workspaces
              | "for" NAME "in" "range" "(" expr ["," expr ["," expr]] ")" ":" pblock   # a host loop
arg          := tensor [".view" "(" dim {"," dim} ")"]          # a program tensor, or a reshape of it
              | expr                                            # a scalar: program scalars, dims, numbers
tensor       := NAME | NAME "[" expr {"," expr} "]"             # x[i]: x without its leading axes
""".strip("\n")

_PROGRAM_DECORATOR = re.compile(r"^@program\b", re.MULTILINE)


def is_program_text(text: str) -> bool:
    """Whether a DSL text is a program of kernels (it has a top-level `@program`)."""
    return bool(_PROGRAM_DECORATOR.search(text))


def parse_any(text: str, path: str = "<dsl>") -> Program | MultiProgram:
    """A one-kernel file as `parse` reads it; a file with a `@program` as a MultiProgram."""
    if not is_program_text(text):
        return parse(text, path)
    return _ProgramParser(text, path).program()


def parse_any_file(path) -> Program | MultiProgram:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise DslError(f"cannot read DSL file {p}: {e.__class__.__name__}", None,
                       "pass the path of a UTF-8 `.dsl.py` file", str(p), None) from None
    return parse_any(text, str(p))


class _ProgramParser(_Parser):
    """The kernel parser, with a module of several kernels and the @program's statements."""

    def __init__(self, text: str, path: str):
        super().__init__(text, path)
        self.tensors: set[str] = set()

    def _module(self, tree: ast.Module) -> MultiProgram:
        kernels, main, host = [], None, None
        for i, node in enumerate(tree.body):
            if i == 0 and _is_docstring(node):
                continue
            kind = self._kind(node)
            if kind == "host":
                if host is not None:
                    raise self.err(node, "a second @host before a @kernel", "each @host is directly followed by "
                                   "the @kernel it tiles")
                self.in_host = True
                host, self.in_host = self._host(node), False
            elif kind == "kernel":
                if host is None:
                    raise self.err(self._def_span(node), f"kernel `{node.name}` has no @host before it",
                                   "in a program file each @kernel directly follows its @host tiling function")
                kernels.append(self._pair(host, node, kernels))
                host = None
            elif main is not None:
                raise self.err(self._def_span(node), "a second @program", "one file holds one @program")
            else:
                main = node
        end = Span.point(max(len(self.lines), 1))
        if host is not None:
            raise self.err(host.span, f"host function `{host.name}` is not followed by a @kernel",
                           "put the @kernel it tiles right after it")
        if not kernels:
            raise self.err(end, "a @program file without a @kernel", "add each kernel with its @host before it")
        span = Span(1, 1, max(len(self.lines), 1), 1)
        return MultiProgram(tuple(kernels), self._program_fn(main), self.text, self.path, span=span)

    def _kind(self, node) -> str:
        if not isinstance(node, ast.FunctionDef):
            raise self.err(node, f"only @host, @kernel and @program functions may appear at the top level, "
                           f"not {_what(node)}", "move it into a function, or delete it")
        decs = node.decorator_list
        kind = decs[0].id if len(decs) == 1 and isinstance(decs[0], ast.Name) else None
        if kind not in ("host", "kernel", "program"):
            raise self.err(decs[0] if decs else node, f"function `{node.name}` needs exactly one decorator: "
                           "@host, @kernel or @program", "dtype-generic kernels (@kernel(T=...)) are not "
                           "part of programs yet; write one kernel per dtype")
        if node.returns is not None:
            raise self.err(node.returns, "return annotations are not part of the DSL", "remove `-> ...`")
        return kind

    def _pair(self, host, fn: ast.FunctionDef, kernels: list[Program]) -> Program:
        kernel = self._kernel(fn)
        if any(k.kernel.name == kernel.name for k in kernels):
            raise self.err(kernel.span, f"a second kernel named `{kernel.name}`",
                           "give each kernel its own name; a program launches one kernel as often as it needs")
        span = Span(host.span.line, 1, kernel.span.line, 1)
        return Program(host, kernel, self.text, self.path, span=span)

    def _program_fn(self, fn: ast.FunctionDef | None) -> ProgramFunc:
        if fn is None:
            raise self.err(Span.point(max(len(self.lines), 1)), "no @program function",
                           "add `@program def name(x: GM[...], ..., y: Out[...]):` launching the kernels in order")
        params = self._params(fn, host=False)
        tiling = next((p for p in params if isinstance(p, TilingParam)), None)
        if tiling is not None:
            raise self.err(tiling.span, "a program has no Tiling: each kernel's @host tiles its own launch",
                           f"remove `{tiling.name}: Tiling`")
        self.tensors = {p.name for p in params if hasattr(p, "groups")}
        body = [st for st in fn.body if not _is_docstring(st)]
        if not body:
            raise self.err(fn, f"program `{fn.name}` launches nothing", "launch the kernels in order: `k(x, y)`")
        return ProgramFunc(fn.name, params, self._pblock(body), span=self._def_span(fn))

    def _pblock(self, stmts) -> tuple:
        return tuple(self._pstmt(st) for st in stmts if not _is_docstring(st))

    def _pstmt(self, st):
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) and isinstance(st.value.func, ast.Name):
            return self._launch_stmt(st.value, self.span(st))
        if isinstance(st, ast.For):
            return self._host_loop(st)
        raise self.err(st, f"{_what(st)} is not part of a @program",
                       "a program's statements are kernel launches `k(x, y)` and `for s in range(n):` loops")

    def _launch_stmt(self, call: ast.Call, span: Span) -> LaunchStmt:
        if call.keywords or any(isinstance(a, ast.Starred) for a in call.args):
            raise self.err(call, "a launch takes positional arguments only",
                           "pass one argument per kernel parameter, in the kernel's order")
        return LaunchStmt(call.func.id, tuple(self._arg(a) for a in call.args), span=span)

    def _host_loop(self, st: ast.For) -> For:
        it = st.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"):
            raise self.err(it, f"a program loops over `range(...)`, not `{_src(it)}`",
                           "write `for s in range(S):`; core and tile loops belong in kernels")
        if not isinstance(st.target, ast.Name) or st.orelse:
            raise self.err(st.target if not isinstance(st.target, ast.Name) else st.orelse[0],
                           "a host loop has one loop variable and no else", "write `for s in range(S):`")
        self._check_name(st.target, st.target.id)
        if st.target.id in self.tensors:
            raise self.err(st.target, f"loop variable `{st.target.id}` hides the tensor of that name",
                           "give the loop variable its own name, e.g. `s`")
        args = [self._expr(a) for a in it.args]
        if not 1 <= len(args) <= 3 or it.keywords:
            raise self.err(it, "range() takes 1 to 3 arguments", "write range(stop), range(start, stop) or "
                           "range(start, stop, step)")
        isp = self.span(it)
        if len(args) == 1:
            args = [Const(0, "int", span=isp), args[0]]
        if len(args) == 2:
            args.append(Const(1, "int", span=isp))
        return For(st.target.id, Range(*args, span=isp), self._pblock(st.body), span=self._head_span(st))

    def _arg(self, node):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "view":
            base = self._arg(node.func.value)
            if not isinstance(base, ArgView) or base.view is not None:
                raise self.err(node, f"`{_src(node)}` is not a view of a program tensor",
                               "write `x.view(d0, d1, ...)` on a tensor of the @program")
            if node.keywords or not node.args:
                raise self.err(node, "view() takes the new dims, positionally", "write e.g. `x.view(S * B, I)`")
            dims = node.args[0].elts if len(node.args) == 1 and isinstance(node.args[0], ast.Tuple) else node.args
            view = tuple(self._dim(d) for d in dims)
            return ArgView(base.tensor, base.index, view, span=self.span(node))
        if isinstance(node, ast.Name) and node.id in self.tensors:
            return ArgView(node.id, span=self.span(node))
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in self.tensors:
            items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            bad = next((it for it in items if isinstance(it, ast.Slice)), None)
            if bad is not None:
                raise self.err(bad, "a launch argument indexes whole leading axes, without slices",
                               "write `x[s]` (x without its first axis); a kernel's own loops take the parts")
            return ArgView(node.value.id, tuple(self._expr(it) for it in items), span=self.span(node))
        return self._expr(node)


# ----------------------------------------------------------------------------- printing


def print_multi(mp: MultiProgram) -> str:
    """Canonical text of a program file: each kernel as `print_program` prints it, then the @program."""
    parts = [print_program(k) for k in mp.kernels]
    m = mp.main
    lines = ["@program", _signature(m.name, [_param_text(p, host=False) for p in m.params])]
    _pblock_lines(m.body, 1, lines)
    parts.append("\n".join(lines) + "\n")
    return "\n\n".join(parts)


def _pblock_lines(stmts, depth: int, out: list[str]) -> None:
    pad = INDENT * depth
    for st in stmts:
        if isinstance(st, For):
            out.append(f"{pad}for {st.var} in {iter_text(st.iter)}:")
            _pblock_lines(st.body, depth + 1, out)
        else:
            out.append(f"{pad}{st.kernel}({', '.join(arg_text(a) for a in st.args)})")


def arg_text(a) -> str:
    if not isinstance(a, ArgView):
        return expr_text(a)
    text = a.tensor + (f"[{', '.join(expr_text(i) for i in a.index)}]" if a.index else "")
    return text + (f".view({', '.join(expr_text(d) for d in a.view)})" if a.view is not None else "")


__all__ = ["PROGRAM_GRAMMAR", "parse_any", "parse_any_file", "print_multi", "is_program_text", "arg_text"]
