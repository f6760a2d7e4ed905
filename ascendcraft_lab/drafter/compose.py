"""The phases of one kernel, written from the drafts of its segments (phases.py).

Each segment is drafted by its own template as a whole kernel; this module reads those drafts (their
Python syntax, `ast`: the DSL is never executed) and writes one kernel of them:

  parameters   one per tensor: the forward's inputs (in order, as the DSL binds them), the Model's
               parameters (by state_dict name), the outputs, and a `Workspace` per value that one
               phase stores and a later one loads (what the segment drafted as an `Out`, and later
               ones as a `GM` input); a phase's own Workspaces stay its own
  dims         a tensor declared by several phases is declared once; a later phase's dims are
               expressions of the first declaration's (axes matched by their traced sizes: a phase may
               view a tensor with its leading axes packed)
  host         each phase's host lines, its names made unique, its Launch fields renamed; in a kernel
               with a cube phase, the vector phases split their rows over the AI cores (each AI core's
               two vector cores share its rows, passes/init.py), so VECTOR_CORES reads CUBE_CORES; the
               launch takes the most cores any phase asks for
  body         the phases in order, `sync_all()` between them, every local name unique
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

from .graph import Unsupported

ROLES = ("GM", "Out", "Param", "Workspace")


@dataclass
class PhaseDraft:
    """One segment's draft and what its tensors are in the whole kernel: `ins` / `outs` as Piece has
    them (its GM inputs and Outs in order), `shapes` the traced shape of each of those, by key."""
    text: str
    unit: str
    ins: list[tuple]
    outs: list[tuple]
    shapes: dict = field(default_factory=dict)


@dataclass
class _Tensor:
    name: str
    role: str
    dtype: ast.expr
    dims: list[ast.expr]          # in global names
    extra: list[ast.expr]         # a Param's state_dict name
    sizes: tuple                  # traced


def compose(phases: list[PhaseDraft], name: str, doc: str, keys: dict) -> tuple[str, dict]:
    """The kernel text (see the module docstring) and the traced shapes of the tensors it reads, by name.
    `keys`: a tensor key -> its name in the kernel."""
    k = _Composer(name, keys, mixed=any(p.unit == "cube" for p in phases))
    k.ub_share = max(sum("ub_elems(" in p.text for p in phases), 1)
    for i, p in enumerate(phases):
        k.add(i, p)
    return k.text(doc), k.shapes()


def _names(tree: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}


def _funcs(text: str) -> tuple[ast.FunctionDef, ast.FunctionDef]:
    mod = ast.parse(text)
    fns = {d.id if isinstance(d, ast.Name) else d.func.id: f for f in mod.body if isinstance(f, ast.FunctionDef)
           for d in f.decorator_list}
    if "host" not in fns or "kernel" not in fns:
        raise Unsupported("internal: a phase draft without @host and @kernel")
    return fns["host"], fns["kernel"]


def _decl(arg: ast.arg) -> tuple[str, ast.expr, list[ast.expr], list[ast.expr]] | None:
    """(role, dtype, dims, extra) of a tensor parameter; None for scalars and the Tiling."""
    a = arg.annotation
    if not (isinstance(a, ast.Subscript) and isinstance(a.value, ast.Name) and a.value.id in ROLES):
        return None
    items = a.slice.elts if isinstance(a.slice, ast.Tuple) else [a.slice]
    shape = items[1]
    dims = list(shape.elts) if isinstance(shape, ast.Tuple) else [shape]
    return a.value.id, items[0], dims, list(items[2:])


class _Rename(ast.NodeTransformer):
    """Names and `t.field`s of one phase to the kernel's."""

    def __init__(self, names: dict[str, ast.expr | str], fields: dict[str, str]):
        self.names, self.fields = names, fields

    def visit_Name(self, node: ast.Name):
        to = self.names.get(node.id)
        if to is None:
            return node
        if isinstance(to, str):
            return ast.copy_location(ast.Name(to, node.ctx), node)
        return ast.copy_location(_clone(to), node)

    def visit_Attribute(self, node: ast.Attribute):
        if isinstance(node.value, ast.Name) and node.value.id == "t":
            if node.attr == "cores":
                raise Unsupported("internal: a phase that reads t.cores")
            return ast.copy_location(ast.Attribute(ast.Name("t", ast.Load()), self.fields.get(node.attr, node.attr),
                                                   node.ctx), node)
        self.generic_visit(node)
        return node


class _UbShare(ast.NodeTransformer):
    """`ub_elems(dtype, live=K)` as `live=K * n` when n phases hold UB tiles: every buffer of the kernel is
    allocated at once (dsl/buffers.py), so each phase sized for the whole UB takes its share."""

    def __init__(self, n: int):
        self.n = n

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        if self.n > 1 and isinstance(node.func, ast.Name) and node.func.id == "ub_elems":
            for kw in node.keywords:
                if kw.arg == "live":
                    kw.value = ast.BinOp(kw.value, ast.Mult(), ast.Constant(self.n))
            if len(node.args) > 1:
                node.args[1] = ast.BinOp(node.args[1], ast.Mult(), ast.Constant(self.n))
            if len(node.args) == 1 and not any(kw.arg == "live" for kw in node.keywords):
                node.keywords.append(ast.keyword("live", ast.Constant(self.n)))
        return node


def _clone(e: ast.expr) -> ast.expr:
    return ast.parse(ast.unparse(e), mode="eval").body


class _Composer:
    def __init__(self, name: str, keys: dict, mixed: bool):
        self.name, self.keys, self.mixed = name, keys, mixed
        self.tensors: dict[tuple, _Tensor] = {}       # key -> its declaration, in order of appearance
        self.dim_values: dict[str, int] = {}          # global dim -> traced size
        self.scalars: list[ast.arg] = []
        self.used: set[str] = {"t", "cores", *keys.values()}
        self.ub_share = 1                             # phases whose tiles share the UB (each has its own buffers)
        self.host: list[ast.stmt] = []
        self.cores: list[str] = []
        self.fields: list[ast.keyword] = []
        self.field_names: set[str] = set()
        self.ranges: set[str] = set()                 # the kernel's range variables (tiles, core_tiles, core_chunk)
        self.regroup: dict[str, tuple] = {}           # this phase's view of a tensor -> the kernel's (packs)
        self.body: list[ast.stmt] = []

    def fresh(self, name: str) -> str:
        return _fresh_in(name, self.used)

    def shapes(self) -> dict[str, tuple]:
        """The traced shape of every tensor the kernel reads from the forward (inputs and parameters)."""
        return {t.name: t.sizes for t in self.tensors.values() if t.role in ("GM", "Param")}

    # -- one phase ------------------------------------------------------------------------------------
    def add(self, i: int, p: PhaseDraft) -> None:
        host, kernel = _funcs(p.text)
        names: dict[str, ast.expr | str] = {}
        tensors = self._keyed(i, p, kernel)
        # tensors already declared first: they bind this phase's dims to the kernel's
        for key, arg, decl in sorted(tensors, key=lambda x: x[0] not in self.tensors):
            self._declare(key, arg, decl, p.shapes.get(key), names)
        for arg in kernel.args.args:
            if _decl(arg) is None and arg.arg != "t" and all(arg.arg != s.arg for s in self.scalars):
                self.scalars.append(arg)
                self.used.add(arg.arg)
        for arg in kernel.args.args:
            if _decl(arg) is None:
                names.setdefault(arg.arg, arg.arg)
        fields = self._host(host, names, p.unit)
        self._body(kernel, names, fields)

    def _keyed(self, i: int, p: PhaseDraft, kernel: ast.FunctionDef) -> list[tuple]:
        """(key, arg, decl) of every tensor parameter of the phase."""
        ins, outs = iter(p.ins), iter(p.outs)
        out = []
        for arg in kernel.args.args:
            decl = _decl(arg)
            if decl is None:
                continue
            role = decl[0]
            if role == "GM":
                key = next(ins, None)
            elif role == "Out":
                key = next(outs, None)
            elif role == "Param":
                key = ("param", ast.literal_eval(decl[3][0]))
            else:
                key = ("local", i, arg.arg)
            if key is None:
                raise Unsupported("internal: a phase declares more tensors than its segment has")
            out.append((key, arg, decl))
        return out

    def _declare(self, key: tuple, arg: ast.arg, decl, sizes, names: dict) -> None:
        role, dtype, dims, extra = decl
        if key in self.tensors:
            t = self.tensors[key]
            self._unify(dims, t, sizes, names)
            names[arg.arg] = t.name
            self._repack(t, dims)
            if key[0] == "value" and role == "Out":
                raise Unsupported("internal: a value stored by two phases")
            return
        for d in _flat(dims):                # this phase's own dims: named in the kernel
            if isinstance(d, ast.Name) and d.id not in names:
                names[d.id] = self.fresh(d.id)
        gdims = [_Rename(names, {}).visit(_clone(d)) for d in dims]
        kind = {"value": "Workspace", "output": "Out", "input": "GM", "param": "Param", "local": "Workspace"}[key[0]]
        name = self.keys[key] if key in self.keys else self.fresh(arg.arg)     # the keys' names are reserved
        t = _Tensor(name, kind, dtype, gdims, extra, tuple(sizes or ()))
        self.tensors[key] = t
        names[arg.arg] = t.name
        if sizes and len(sizes) == len(_flat(gdims)):
            for d, s in zip(_flat(gdims), sizes):
                if isinstance(d, ast.Name):
                    self.dim_values.setdefault(d.id, s)

    def _unify(self, dims: list[ast.expr], t: _Tensor, sizes, names: dict) -> None:
        """This phase's dims of a tensor the kernel declares already, as expressions of its dims: the
        axes (a pack `(B, M)` read as its axes) matched left to right by traced sizes (a group of the
        kernel's axes whose sizes multiply to one of this phase's is that axis: its leading axes packed)."""
        dims, kdims = _flat(dims), _flat(t.dims)
        mine = [sizes[k] if sizes and len(sizes) == len(dims) else _size_of(d, {}) for k, d in enumerate(dims)]
        theirs = [_size_of(d, self.dim_values) for d in kdims]
        a = b = 0
        while a < len(dims) and b < len(kdims):
            ga, gb = [a], [b]
            pa, pb = mine[a], theirs[b]
            while pa != pb and pa is not None and pb is not None:
                if pa < pb and ga[-1] + 1 < len(dims):
                    ga.append(ga[-1] + 1)
                    pa *= mine[ga[-1]] or 1
                elif pb < pa and gb[-1] + 1 < len(kdims):
                    gb.append(gb[-1] + 1)
                    pb *= theirs[gb[-1]] or 1
                else:
                    break
            if pa != pb:
                raise Unsupported(f"internal: the phases view `{t.name}` in shapes that do not match")
            free = [dims[x] for x in ga if isinstance(dims[x], ast.Name) and dims[x].id not in names]
            if free and len(ga) > 1:
                raise Unsupported(f"internal: a phase splits an axis of `{t.name}` that the kernel declares whole")
            if free:
                names[free[0].id] = _product([kdims[y] for y in gb])
            elif len(ga) == len(gb) == 1 and isinstance(dims[a], ast.Name) and isinstance(kdims[b], ast.Name):
                bound = names.get(dims[a].id)
                if isinstance(bound, ast.Name) and bound.id != kdims[b].id:
                    self._alias(kdims[b].id, bound.id)   # one dim of this phase: two of the kernel's are one
            a, b = ga[-1] + 1, gb[-1] + 1

    def _alias(self, old: str, new: str) -> None:
        """The kernel's dim `old` is `new` (a phase reads both tensors with one dim): one name from now on."""
        r = _Rename({old: new}, {})
        for t in self.tensors.values():
            t.dims = [r.visit(d) for d in t.dims]
        self.host = [r.visit(s) for s in self.host]
        self.body = [r.visit(s) for s in self.body]
        self.fields = [ast.keyword(kw.arg, r.visit(kw.value)) for kw in self.fields]

    def _repack(self, t: _Tensor, dims: list[ast.expr]) -> None:
        """One view of a tensor two phases view differently (packs): the coarsest packing of both, the
        indices of the phases before (and of this one, in `_body`) merged to it (`_merge_index`)."""
        mine, theirs = _groups(dims), _groups(t.dims)
        if mine == theirs:
            return
        joint = _join(mine, theirs)
        if joint is None:
            raise Unsupported(f"internal: the phases view `{t.name}` in packs that do not nest")
        flat = _flat(t.dims)
        if joint != theirs:
            self.body = [_Regroup(t.name, theirs, joint, flat, self.ranges).visit(s) for s in self.body]
        self.regroup[t.name] = (mine, joint, flat)
        t.dims = _packed(flat, joint)

    # -- host ---------------------------------------------------------------------------------------
    def _host(self, host: ast.FunctionDef, names: dict, unit: str) -> dict[str, str]:
        local = dict(names)
        host = _UbShare(self.ub_share).visit(host)
        vector_in_mix = self.mixed and unit == "vector"
        if vector_in_mix:
            local["VECTOR_CORES"] = "CUBE_CORES"
        for st in host.body:
            if isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant):
                continue                                      # a docstring
            if isinstance(st, ast.Return):
                return self._launch(st.value, local)
            for st2 in self._split(st):
                target = st2.targets[0].id
                value = _Rename(local, {}).visit(st2.value)
                local[target] = self.fresh(target)
                self.host.append(ast.Assign([ast.Name(local[target], ast.Store())], value, lineno=0))
        raise Unsupported("internal: a phase's host function without a return")

    def _split(self, st: ast.stmt) -> list[ast.Assign]:
        """`cores, per = core_split(R)` as its two lines (the parser's reading, dsl/parser.py), so that
        a vector phase of a cube kernel splits over the AI cores."""
        if isinstance(st, ast.Assign) and isinstance(st.targets[0], ast.Tuple):
            cores, per = (e.id for e in st.targets[0].elts)
            (rows,) = st.value.args
            vc = ast.Name("VECTOR_CORES", ast.Load())
            split = ast.Call(ast.Name("cdiv", ast.Load()), [rows, ast.Call(ast.Name("min", ast.Load()),
                                                                            [vc, _clone(rows)], [])], [])
            return [ast.Assign([ast.Name(per, ast.Store())], split, lineno=0),
                    ast.Assign([ast.Name(cores, ast.Store())],
                               ast.Call(ast.Name("cdiv", ast.Load()), [_clone(rows), ast.Name(per, ast.Load())], []),
                               lineno=0)]
        if not isinstance(st, ast.Assign):
            raise Unsupported("internal: a phase's host line that is not an assignment")
        return [st]

    def _launch(self, call: ast.Call, local: dict) -> dict[str, str]:
        cores = _Rename(local, {}).visit(call.args[0])
        name = self.fresh("cores_p")
        self.host.append(ast.Assign([ast.Name(name, ast.Store())], cores, lineno=0))
        self.cores.append(name)
        fields = {}
        for kw in call.keywords:
            fields[kw.arg] = _fresh_in(kw.arg, self.field_names)
            self.fields.append(ast.keyword(fields[kw.arg], _Rename(local, {}).visit(kw.value)))
        return fields

    # -- kernel ---------------------------------------------------------------------------------------
    def _body(self, kernel: ast.FunctionDef, names: dict, fields: dict) -> None:
        body = [s for s in kernel.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        local = dict(names)
        for n in ast.walk(ast.Module(body, [])):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id not in local:
                local[n.id] = self.fresh(n.id)
        if self.body:
            self.body.append(ast.Expr(ast.Call(ast.Name("sync_all", ast.Load()), [], [])))
        rename = _Rename(local, fields)
        body = [rename.visit(s) for s in body]
        self.ranges |= _range_names(body)
        for name, (mine, joint, flat) in self.regroup.items():
            if mine != joint:
                body = [_Regroup(name, mine, joint, flat, self.ranges).visit(s) for s in body]
        self.regroup = {}
        self.body += body

    # -- the text -------------------------------------------------------------------------------------
    def text(self, doc: str) -> str:
        order = sorted(self.tensors.items(), key=lambda kv: ({"input": 0, "param": 1, "output": 2, "value": 3,
                                                              "local": 4}[kv[0][0]], kv[0][1] if kv[0][0] in
                                                             ("input", "output") else 0))
        host_params = [self._param(t, host=True) for key, t in order if t.role in ("GM", "Param")]
        host_params += [ast.unparse(a) for a in self.scalars]
        kparams = [self._param(t, host=False) for _, t in order] + [ast.unparse(a) for a in self.scalars]
        kparams.append("t: Tiling")
        lines = ['"""' + doc + '\n"""', "", "", "@host", f"def tiling({', '.join(host_params)}):"]
        lines += ["    " + ast.unparse(s) for s in self.host]
        cores = self.cores[0] if len(self.cores) == 1 else f"max({', '.join(self.cores)})" if len(self.cores) == 2 \
            else _nested_max(self.cores)
        launch = ", ".join([cores] + [f"{kw.arg}={ast.unparse(kw.value)}" for kw in self.fields])
        lines += [f"    return Launch({launch})", "", "", "@kernel", f"def {self.name}("]
        lines += [f"    {p}," for p in kparams] + ["):"]
        lines += ["    " + line for s in self.body for line in ast.unparse(s).splitlines()]
        return "\n".join(lines) + "\n"

    def _param(self, t: _Tensor, host: bool) -> str:
        role = "Tensor" if host else t.role
        dims = ", ".join(ast.unparse(d) for d in t.dims) + ("," if len(t.dims) == 1 else "")
        extra = "" if host or not t.extra else ", " + ", ".join(ast.unparse(e) for e in t.extra)
        return f"{t.name}: {role}[{ast.unparse(t.dtype)}, ({dims}){extra}]"


def _groups(dims: list[ast.expr]) -> list[int]:
    """How many axes each entry of a shape holds (a pack holds several)."""
    return [len(d.elts) if isinstance(d, ast.Tuple) else 1 for d in dims]


def _join(a: list[int], b: list[int]) -> list[int] | None:
    """The coarsest packing both `a` and `b` refine (None when their packs cross)."""
    cuts = sorted({sum(a[:k + 1]) for k in range(len(a))} & {sum(b[:k + 1]) for k in range(len(b))})
    out = [c - p for c, p in zip(cuts, [0] + cuts[:-1])]
    return out if sum(out) == sum(a) == sum(b) else None


def _packed(flat: list[ast.expr], groups: list[int]) -> list[ast.expr]:
    out, k = [], 0
    for n in groups:
        part = flat[k:k + n]
        out.append(part[0] if n == 1 else ast.Tuple(part, ast.Load()))
        k += n
    return out


def _range_names(body: list[ast.stmt]) -> set[str]:
    """Loop variables that are ranges (.start, .len): those of tiles, core_tiles and core_chunk."""
    out = set()
    for n in ast.walk(ast.Module(body, [])):
        if isinstance(n, ast.For) and isinstance(n.iter, ast.Call) and isinstance(n.iter.func, ast.Name) and \
                n.iter.func.id in ("tiles", "core_tiles", "core_chunk"):
            out |= {e.id for e in ast.walk(n.target) if isinstance(e, ast.Name)}
    return out


class _Regroup(ast.NodeTransformer):
    """Indices of `name` from one packing to a coarser one: the indices of a pack merged into one, an
    offset (sum of index x the sizes of the axes after it) plus the last index (a range: a slice)."""

    def __init__(self, name: str, old: list[int], new: list[int], flat: list[ast.expr], ranges: set[str]):
        self.name, self.old, self.new, self.flat, self.ranges = name, old, new, flat, ranges

    def visit_Subscript(self, node: ast.Subscript):
        self.generic_visit(node)
        if not (isinstance(node.value, ast.Name) and node.value.id == self.name):
            return node
        idx = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if len(idx) != len(self.old):
            raise Unsupported(f"internal: an index of `{self.name}` of another rank than its view")
        out, k, axis = [], 0, 0
        for n in self.new:                # a new entry covers old entries until their axes add up to n
            group, axes = [], 0
            while axes < n:
                group.append((idx[k], self.old[k], axis + axes))
                axes += self.old[k]
                k += 1
            out.append(self._merge(group, axis, n))
            axis += n
        node.slice = ast.Tuple(out, ast.Load()) if len(out) > 1 else out[0]
        return node

    def _merge(self, group, axis: int, n: int) -> ast.expr:
        if len(group) == 1:
            return group[0][0]
        if all(_full(i) for i, _, _ in group):
            return ast.Slice()
        off = None
        for i, width, at in group[:-1]:         # a scalar index of an entry (of `width` axes): whole rows before
            if _full(i) or isinstance(i, ast.Slice) or (isinstance(i, ast.Name) and i.id in self.ranges):
                raise Unsupported(f"internal: a range index of `{self.name}` inside a pack")
            term = _product([i] + self.flat[at + width:axis + n])
            off = term if off is None else ast.BinOp(off, ast.Add(), term)
        last, width, _ = group[-1]
        if width != 1:
            raise Unsupported(f"internal: a pack inside a pack of `{self.name}`")
        if isinstance(last, ast.Name) and last.id in self.ranges:
            lo = ast.BinOp(off, ast.Add(), ast.Attribute(ast.Name(last.id, ast.Load()), "start", ast.Load()))
            return ast.Slice(lo, ast.BinOp(_clone(lo), ast.Add(), ast.Attribute(ast.Name(last.id, ast.Load()), "len",
                                                                                 ast.Load())))
        if isinstance(last, ast.Slice):
            if last.lower is None or last.upper is None:
                raise Unsupported(f"internal: an open slice of `{self.name}` inside a pack")
            return ast.Slice(ast.BinOp(off, ast.Add(), last.lower), ast.BinOp(_clone(off), ast.Add(), last.upper))
        return ast.BinOp(off, ast.Add(), last)


def _full(i: ast.expr) -> bool:
    return isinstance(i, ast.Slice) and i.lower is None and i.upper is None and i.step is None


def _flat(dims: list[ast.expr]) -> list[ast.expr]:
    """A shape's axes, packs `(B, M)` opened."""
    return [x for d in dims for x in (d.elts if isinstance(d, ast.Tuple) else [d])]


def _fresh_in(name: str, used: set[str]) -> str:
    out, k = name, 2
    while out in used:
        out, k = f"{name}_{k}", k + 1
    used.add(out)
    return out


def _nested_max(names: list[str]) -> str:
    out = names[0]
    for n in names[1:]:
        out = f"max({out}, {n})"
    return out


def _product(dims: list[ast.expr]) -> ast.expr:
    out = _clone(dims[0])
    for d in dims[1:]:
        out = ast.BinOp(out, ast.Mult(), _clone(d))
    return out


def _size_of(d: ast.expr, values: dict):
    """The traced size of a dim expression of the kernel (products and sums of dims and numbers)."""
    if isinstance(d, ast.Constant):
        return d.value
    if isinstance(d, ast.Name):
        return values.get(d.id)
    if isinstance(d, ast.BinOp):
        a, b = _size_of(d.left, values), _size_of(d.right, values)
        if a is None or b is None:
            return None
        ops = {ast.Mult: lambda: a * b, ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.FloorDiv: lambda: a // b}
        f = ops.get(type(d.op))
        return f() if f else None
    return None


__all__ = ["PhaseDraft", "compose"]
