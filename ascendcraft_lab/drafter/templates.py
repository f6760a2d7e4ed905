"""Category templates: a laid-out canonical graph -> DSL text.

One `Writer` holds what every template shares: names (GM tensors after the forward's
arguments, dims after the base shape), scalar parameters (get_inputs scalars, and
get_init_inputs floats the graph uses, declared as the prefix the DSL binds in order),
host fields for scalar math (bias corrections, 1/N), and `Stage`, which turns the nodes a
compute stage needs into DSL assignments (a value used twice gets a name; a scan gets its
carry). The templates differ only in their loops:

  map      for part in core_chunk(...): for c in tiles(part, ...): load / compute / store
  rows     for r in core_rows(...): one sweep over the row per reduction level (scalar
           accumulators), then a sweep that computes and stores the full outputs
  cols     for r in core_rows(...): for c in tiles(C, ...): per reduction level a peeled first
           step and `for m in range(1, R)` with a running accumulator tile, then the outputs
  windows  for part in core_chunk(...): for c in tiles(part, rows): one window op per row
  pool     (pool.py) for r in core_rows(...): the window's input rows combined, one window op

The loss templates (a sum over everything, added atomically by every core) build on these
in totals.py. The UB budget decides `live` in ub_elems(f32, live=K): the caller (draft._sized)
renders once and bisects K on the parsed program until the verifier's UB plan fits the reference
shapes and shapes 64 times larger.
"""
from __future__ import annotations

import keyword
import math
import re
from dataclasses import dataclass, field

from ..dsl.dtypes import DSL_NAMES as DTYPE, TORCH_NBYTES as NBYTES
from ..dsl.ops import HOST_BUILTINS, OPS
from ..dsl.printer import MAX_SIGNATURE
from . import kir
from .graph import FLOAT_DTYPES, Graph, Node, Unsupported, clamp_of, inverse_of
from .layout import Layout

DIM_NAMES = {1: ("N",), 2: ("B", "N"), 3: ("B", "M", "N"), 4: ("B", "C", "H", "W"), 5: ("B", "C", "D", "H", "W")}
RESERVED = set(OPS) | set(HOST_BUILTINS) | set(keyword.kwlist) | {
    "load", "store", "tiles", "core_rows", "core_chunk", "range", "windows", "copyin", "compute", "copyout",
    "host", "kernel", "Launch", "GM", "Out", "Param", "Tensor", "Tiling", "cdiv", "align_up", "align_down",
    "ub_elems", "inf", "f16", "bf16", "f32", "i8", "i16", "i32", "i64", "u8", "bool", "VECTOR_CORES",
    "CUBE_CORES", "UB_BYTES", "L1_BYTES", "L0A_BYTES", "L0B_BYTES", "L0C_BYTES", "BLOCK_BYTES", "REPEAT_BYTES",
    "accumulate", "init", "round", "t", "r", "c", "m", "part", "tiling", "cores", "rows", "tile", "chunk",
    "per_core", "tile_rows", "total", "len", "start", "index", "min", "max", "abs", "pow",
    # C++ / AscendC names a generated identifier must not shadow
    "half", "float", "int", "pipe"}
ACC_INIT = {"sum": "0.0", "max": "-inf", "min": "inf", "prod": "1.0"}
ACC_FN = {"sum": "reduce_sum", "max": "reduce_max", "min": "reduce_min", "prod": "reduce_prod"}
WIN_FN = {"sum": "window_sum", "max": "window_max", "min": "window_min"}
SCAN_INIT = {"cumsum": "0.0", "cumprod": "1.0"}
ROW_AXIS = "axis=-1"         # sweep(window=ROW_AXIS): reductions of a 2-D tile of rows along its last axis
PITCH_MAX = 2040             # the longest f32 row a 2-D tile holds (a row's pitch: at most 255 blocks of 32 B)


def par(text: str) -> str:
    """DSL text parenthesised unless it is a name, a number or one parenthesised group already."""
    whole = text.startswith("(") and text.endswith(")") and text.count("(") == 1
    return text if text.isidentifier() or text.isdigit() or whole else f"({text})"


def signature(name: str, params: list[str]) -> str:
    """`def name(params):` on one line, or one parameter a line when that is longer than the printer's."""
    one_line = f"def {name}({', '.join(params)}):"
    if len(one_line) <= MAX_SIGNATURE:
        return one_line
    return f"def {name}(\n" + "".join(f"    {p},\n" for p in params) + "):"


def scale_but_last(shapes: dict) -> dict:
    """Every dim x64 but the last: the budget check of a template that holds a source row whole in
    UB (the row's length is not a tile size the drafter picks)."""
    return {name: tuple(d if i == len(shp) - 1 else d * 64 for i, d in enumerate(shp)) for name, shp in shapes.items()}


class Namer:
    def __init__(self, reserved=()):
        self.used = set(RESERVED) | set(reserved)

    def fresh(self, base: str) -> str:
        base = re.sub(r"\W", "_", base).strip("_") or "v"
        if base[0].isdigit():
            base = "v" + base
        if base not in self.used:
            self.used.add(base)
            return base
        i = 1
        while f"{base}{i}" in self.used:
            i += 1
        self.used.add(f"{base}{i}")
        return f"{base}{i}"


def fmt_float(v) -> str:
    if isinstance(v, bool):
        return "1.0" if v else "0.0"
    v = float(v)
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if math.isnan(v):
        raise Unsupported("a NaN constant")
    text = repr(v)
    return text if ("." in text or "e" in text or "inf" in text) else text + ".0"


@dataclass
class HostField:
    name: str
    text: str          # host expression
    is_float: bool


@dataclass
class Tensor:
    name: str          # DSL parameter name
    node: Node | None  # the input/param/output node
    kind: str          # GM | Param | Out | Workspace
    dtype: str         # torch dtype name
    view: str          # DSL shape text, e.g. "((B, N),)"
    param_name: str = ""
    shape: tuple = ()  # the traced shape
    reads: str = ""    # another window of the GM tensor of this name (a second part of one input): not declared


class Writer:
    """What all templates share; subclasses write the loops."""

    template = ""
    whole_rows = False

    def __init__(self, g: Graph, lay: Layout, op_name: str, live: int):
        self.g, self.lay, self.live = g, lay, live
        self.namer = Namer()
        op_name = op_name if op_name.isidentifier() else "kernel"
        self.op_name = self.namer.fresh(op_name if op_name not in self.namer.used else op_name + "_kernel")
        self.dims = [self.namer.fresh(d) for d in self.dim_names(len(lay.base))]
        self.host_fields: list[HostField] = []
        self._host_memo: dict[int, str] = {}
        self.scalar_names: dict[int, str] = {}       # id(scalar leaf) -> DSL name
        self._scalar_params: list = []
        self.tensors: list[Tensor] = []
        self.out_tensors: list[Tensor] = []
        self.loaded: dict[int, Tensor] = {}            # id(input/param node) -> its GM tensor
        self.kernel_scalars: list[tuple[str, str]] = []   # (name, dsl dtype), in binding order
        self.notes: list[str] = []
        self.workspace: str | None = None              # name of the GM workspace, once a sweep needs one
        self._collect()

    # -- parameters -------------------------------------------------------------------------------
    def _collect(self):
        lay, g = self.lay, self.g
        leaves = [n for n in lay.nodes if n.is_data]
        by_index, more = {}, {}
        for n in leaves:
            key = (n.op, n.attrs.get("index"), n.attrs.get("name"))
            if by_index.setdefault(key, n) is not n:
                more.setdefault(key, []).append(n)      # further windows of one input (layout._windows_alike)
        # GM inputs: every tensor of get_inputs() in order (the DSL binds them positionally)
        for i, desc in enumerate(g.inputs):
            if desc.get("kind") != "tensor":
                continue
            node = by_index.get(("input", i, None))
            pyname = self.input_name(i)
            name = self.namer.fresh(pyname)
            if node is None and tuple(desc["shape"]) != tuple(lay.base):
                # an input forward never reads (a step counter, a flag): declared in its own dims, never loaded
                view = self.shape_text([self.namer.fresh(f"{pyname.upper()}{k}") for k in range(len(desc["shape"]))])
            elif node is not None and "actual" in node.attrs and (lay.is_row(node) or lay.is_plane(node)):
                view = self.leaf_view(node)          # a weight passed as an input, read as a parameter is
            elif node is not None and lay.is_reduced(node):
                view = self.reduced_view(desc["shape"])
            else:
                view = self.full_view()
            t = Tensor(name, node, "GM", desc["dtype"], view, shape=tuple(desc["shape"]))
            self.tensors.append(t)
            if node is not None:
                self.loaded[id(node)] = t
            for m in more.get(("input", i, None), []):
                alias = Tensor(self.namer.fresh(pyname), m, "GM", desc["dtype"], view, shape=tuple(desc["shape"]),
                               reads=name)
                self.tensors.append(alias)
                self.loaded[id(m)] = alias
        for n in leaves:
            if n.is_param:
                t = Tensor(self.namer.fresh(n.attrs["name"].replace(".", "_")), n, "Param", n.dtype, self.leaf_view(n),
                           n.attrs["name"], tuple(n.attrs.get("actual", n.shape)))
                self.tensors.append(t)
                self.loaded[id(n)] = t
        outs = lay.outputs
        for i, o in enumerate(outs):
            name = self.namer.fresh("y" if len(outs) == 1 else f"y{i}")
            if lay.is_total(o):                    # a loss: one number, or ones of any rank
                view = self.shape_text(["1"] * len(o.shape))
            else:
                view = self.full_view(o.shape) if lay.is_full(o) else self.reduced_view(o.shape)
            self.out_tensors.append(Tensor(name, o, "Out", o.dtype, view, shape=tuple(o.shape)))
        self.collect_scalars()

    def input_name(self, i: int) -> str:
        """The forward's name of its i-th argument (x{i} past the names the trace recorded)."""
        names = self.g.input_names
        return names[i] if i < len(names) else f"x{i}"

    def read_inputs(self, by_index: dict, reader: str) -> None:
        """Every tensor of get_inputs() as a GM tensor, in order (the DSL binds them by position), each
        the leaf `by_index` gives for its index; an input the template does not read is refused, naming
        the `reader`."""
        for i, desc in enumerate(self.g.inputs):
            if desc.get("kind") != "tensor":
                continue
            pyname = self.input_name(i)
            if i not in by_index:
                raise Unsupported(f"input `{pyname}` that {reader} does not read")
            t = Tensor(self.namer.fresh(pyname), by_index[i], "GM", desc["dtype"], "", shape=tuple(desc["shape"]))
            self.tensors.append(t)
            self.loaded[id(by_index[i])] = t

    def collect_scalars(self):
        """Scalar parameters: get_inputs() scalars, then get_init_inputs() ones, in order and named after
        their arguments, so the DSL's binding by name and by position (reference/scalars.py) agree."""
        order = list(self.g.numbers())
        used = {(n.attrs["source"], n.attrs["index"]): n for n in self.lay.nodes if n.is_number_input}
        last = max((k for k, key in enumerate(order) if key[:2] in used), default=-1)
        for k in range(last + 1):
            src, i, pyname, d = order[k]
            name = self.namer.fresh(pyname)
            dt = {"float": "f32", "int": "i32", "bool": "bool"}[d["type"]]
            self.kernel_scalars.append((name, dt))
            self._scalar_params.append((src, i, name, d))
            node = used.get((src, i))
            if node is not None:
                self.scalar_names[(src, i)] = name

    def dim_names(self, rank: int) -> tuple[str, ...]:
        """Names of the base shape's dims (a template may name them after what they are)."""
        return DIM_NAMES.get(rank) or tuple(f"D{i}" for i in range(rank))

    def scalar_param(self, n: Node) -> str:
        return self.scalar_names[(n.attrs["source"], n.attrs["index"])]

    # -- views ----------------------------------------------------------------------------------------
    def group(self, axes, with_ones=()) -> str | None:
        names = [self.dims[a] if a not in with_ones else "1" for a in axes]
        if not names:
            return None
        return names[0] if len(names) == 1 else "(" + ", ".join(names) + ")"

    def shape_text(self, groups) -> str:
        groups = [g for g in groups if g is not None]
        return "(" + ", ".join(groups) + ("," if len(groups) == 1 else "") + ")"

    def full_view(self, shape=None) -> str:
        return self.shape_text([self.group(range(len(self.lay.base)))])

    def reduced_view(self, shape) -> str:
        raise Unsupported("a reduced output in this template")

    def leaf_view(self, n: Node) -> str:
        """The declared view of a parameter (a broadcast one only where the template handles it)."""
        if "actual" in n.attrs and not self.lay.is_full(n):
            raise Unsupported(f"parameter `{n.name}` broadcast against the input in the {self.template} template")
        return self.full_view()

    def prod(self, axes) -> str:
        names = [self.dims[a] for a in axes]
        return " * ".join(names) if names else "1"

    def dims_product(self, axes):
        """The product of the dims of `axes`, as an expression (kir.product)."""
        return kir.product(self.dims[a] for a in axes)

    # -- shared host lines ------------------------------------------------------------------------
    def tile_line(self, name: str = "tile") -> str:
        """`tile = ub_elems(f32, live=K)`: the tile every UB buffer is sized by, K the drafter's live count
        (text: the printer would drop `live=1`, see kir.py)."""
        return f"{name} = ub_elems(f32, live={self.live})"

    def chunk_split(self, total, align: int, comment: str = "") -> list[str]:
        """`chunk` (a multiple of `align` elements, so every core's offset is 32-byte aligned) and `cores`
        for `total` elements (a product of names) split over the vector cores."""
        n = kir.product(total)
        chunk = kir.assign("chunk", kir.call("align_up", kir.call("cdiv", n, "VECTOR_CORES"), align))
        cores = kir.assign("cores", kir.call("cdiv", n, "chunk"))
        return kir.lines([kir.note(chunk, comment) if comment else chunk, cores])

    # -- scalars: host fields ---------------------------------------------------------------------
    def scalar_text(self, n: Node, in_kernel: bool = True) -> str:
        """A scalar-space node as DSL text: a literal, a scalar parameter or a host field."""
        if n.is_const:
            return fmt_float(n.value) if in_kernel else _host_literal(n.value)
        if n.is_number_input:
            return self.scalar_param(n)
        if n.is_dim:
            return self.host_expr(n)           # dims are scalars in the kernel too
        if id(n) in self._host_memo:
            return f"t.{self._host_memo[id(n)]}" if in_kernel else self._host_memo[id(n)]
        text = self.host_expr(n)
        if not in_kernel:
            return text
        name = self.namer.fresh(_field_hint(n))
        self.host_fields.append(HostField(name, text, n.dtype != "int" or _has_div(n)))
        self._host_memo[id(n)] = name
        return f"t.{name}"

    def host_expr(self, n: Node) -> str:
        if n.is_const:
            return _host_literal(n.value)
        if n.is_number_input:
            return self.scalar_param(n)
        if n.is_dim:
            of, axis = n.attrs["of"], n.attrs["axis"]
            if self.lay.is_full(of) or (of.is_tensor and tuple(of.shape) == tuple(self.lay.base)):
                return self.dims[axis]
            if of.shape[axis] == 1:
                return "1"
            kept = [a for a in range(len(self.lay.base)) if a not in self.lay.axes]
            if self.lay.axes and of.is_tensor and tuple(of.shape) == tuple(self.lay.base[a] for a in kept):
                return self.dims[kept[axis]]         # a per-row value: the size of a kept axis
            raise Unsupported("a size of a tensor that is not the base shape")
        a = [self.host_expr(x) for x in n.args]
        if n.info.host:
            return n.info.host.format(*a)
        raise Unsupported(f"`{n.op}` of a scalar argument (the host function computes + - * / pow min max)")

    def host_params(self) -> list[str]:
        return [f"{name}: {dt}" for name, dt in self.kernel_scalars]

    # -- text ------------------------------------------------------------------------------------------
    def tensor_params(self) -> list[str]:
        out = []
        for t in self.tensors:
            if t.reads:
                continue
            if t.kind == "GM":
                out.append(f"{t.name}: GM[{DTYPE[t.dtype]}, {t.view}]")
            else:
                out.append(f'{t.name}: Param[{DTYPE[t.dtype]}, {t.view}, "{t.param_name}"]')
        return out

    def kernel_signature(self) -> str:
        params = self.tensor_params() + [f"{n}: {dt}" for n, dt in self.kernel_scalars]
        params += [f"{t.name}: {t.kind}[{DTYPE[t.dtype]}, {t.view}]" for t in self.out_tensors]
        params.append("t: Tiling")
        return signature(self.op_name, params)

    def host_tensor(self) -> str:
        t = next((t for t in self.tensors if t.node is not None and not self.lay.is_reduced(t.node)), None) \
            or self.tensors[0]
        dims = ", ".join(self.dims)
        return f"{t.name}: Tensor[{DTYPE[t.dtype]}, ({dims}{',' if len(self.dims) == 1 else ''})]"

    def align_elems(self) -> int:
        smallest = min([NBYTES[t.dtype] for t in self.tensors + self.out_tensors] or [4])
        return 32 // smallest

    def render(self) -> str:
        body = self.kernel_body()           # first: it creates the host fields it uses
        host = self.host_body()
        fields = "".join(f", {f.name}={f.text}" for f in self.host_fields)
        host_params = ", ".join([self.host_tensor()] + self.host_params())
        lines = [f'"""{self.docstring()}"""', "", "", "@host", f"def tiling({host_params}):"]
        lines += ["    " + l for l in host]
        lines.append(f"    return Launch(cores{self.launch_fields()}{fields})")
        lines += ["", "", "@kernel", self.kernel_signature()]
        lines += ["    " + l if l else "" for l in body]
        return "\n".join(lines) + "\n"

    def docstring(self) -> str:
        return ""



def _host_literal(v) -> str:
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, int):
        return str(v)
    return fmt_float(v)


def _has_div(n: Node) -> bool:
    """A host value with a division or a power in it is a float field."""
    return n.info.floating or any(isinstance(a, Node) and _has_div(a) for a in n.args)


def _field_hint(n: Node) -> str:
    return "inv" if inverse_of(n) is not None else "k"


# -- compute stages ----------------------------------------------------------------------------------
@dataclass
class Stage:
    """DSL lines of one compute stage: the nodes its roots need, named where used twice."""
    w: Writer
    env: dict                                   # id(node) -> DSL name available here
    lines: list = field(default_factory=list)
    carries: list = field(default_factory=list)  # (name, init) declared before the sweep's loop
    scan_mode: str = "carry"                     # carry (rows: cumsum(x, init=carry)) | tile (cols)
    scan_first: bool = False                      # cols: the peeled first step of a running tile
    uses: dict = field(default_factory=dict)      # id(node) -> consumers among this stage's roots
    scan_names: dict = field(default_factory=dict)   # id(scan node) -> preferred name

    def plan(self, roots: list[Node]) -> None:
        """Count consumers over all roots of the stage, so a value two roots share is named once."""
        seen = set()

        def visit(n):
            if not self._computed_here(n):
                return
            self.uses[id(n)] = self.uses.get(id(n), 0) + 1
            if id(n) in seen:
                return
            seen.add(id(n))
            for a in n.args:
                visit(a)
        for r in roots:
            visit(r)

    def _computed_here(self, n) -> bool:
        return isinstance(n, Node) and id(n) not in self.env and not (self.w.lay.is_scalar(n) and not n.is_reduce)

    def value(self, n: Node) -> str:
        if id(n) not in self.uses:
            self.plan([n])
        return self._text(n)[0]

    def assign(self, name: str, n: Node) -> str:
        """`name = <n>`; later uses of n read `name`."""
        if id(n) not in self.uses:
            self.plan([n])
        if n.is_scan:
            self.scan_names[id(n)] = name
            return self._scan(n)
        text = self._text(n, naming=False)[0] if id(n) not in self.env else self.env[id(n)]
        self.lines.append(f"{name} = {text}")
        self.env[id(n)] = name
        return name

    def _named(self, n: Node) -> bool:
        return (n.is_scan or self.uses.get(id(n), 0) > 1) and n.is_tensor and not (n.is_leaf or n.is_view)

    def _name(self, n: Node) -> str:
        if n.is_scan:
            return self._scan(n)
        text = self._text(n, naming=False)[0]
        name = self.w.namer.fresh("v")
        self.lines.append(f"{name} = {text}")
        self.env[id(n)] = name
        return name

    def _scan(self, n: Node) -> str:
        x = self.value(n.args[0])
        kind = n.attrs["kind"]
        if self.scan_mode == "carry":
            name = self.scan_names.get(id(n)) or self.w.namer.fresh("cs" if kind == "cumsum" else "cp")
            carry = self.w.namer.fresh("carry")
            self.carries.append((carry, SCAN_INIT[kind]))
            rev = n.attrs["reverse"]
            # a reverse scan walks the row's tiles from the end: its carry is the tile's first value
            self.lines.append(f"{name} = {kind}{'_rev' if rev else ''}({x}, init={carry})")
            self.lines.append(f"{carry} = {'first' if rev else 'last'}({name})")
        else:
            name = self.w.scan_tiles.setdefault(id(n), self.w.namer.fresh("run"))
            if self.scan_first:
                self.lines.append(f"{name} = {x}")
            else:
                self.lines.append(f"{name} = {name} {'+' if kind == 'cumsum' else '*'} {x}")
        self.env[id(n)] = name
        return name

    def _text(self, n: Node, naming: bool = True) -> tuple[str, int]:
        if id(n) in self.env:
            return self.env[id(n)], 9
        w = self.w
        if w.lay.is_scalar(n) and not n.is_reduce:
            text = w.scalar_text(n)
            return text, (9 if not text.startswith("-") else 6)
        if n.is_data:
            raise Unsupported(f"internal: `{n.name}` is not loaded in this stage")
        if naming and self._named(n):
            return self._name(n), 9
        if n.is_view:
            return self._text(n.args[0])
        if n.is_cast:
            inner, p = self._text(n.args[0])
            if n.dtype in FLOAT_DTYPES and n.args[0].dtype in FLOAT_DTYPES:
                return inner, p                       # computed in f32 anyway
            if n.dtype == "bool":
                return f"{inner} != 0.0", 2
            return f"cast({inner}, f32)", 9
        info, args = n.info, n.args
        clamp = clamp_of(n)
        if clamp is not None and all(w.lay.is_scalar(b) for b in clamp[1:]) and not w.lay.is_scalar(clamp[0]):
            x, lo, hi = clamp
            return f"clamp({self._operand(x, 0)}, {w.scalar_text(lo)}, {w.scalar_text(hi)})", 9
        if info.compare:         # operands of arithmetic bind tighter, compares do not chain
            return f"{self._operand(args[0], 3)} {info.infix} {self._operand(args[1], 3)}", info.prec
        if info.infix:
            right = info.prec + 1 if info.tight_right else info.prec
            return f"{self._operand(args[0], info.prec)} {info.infix} {self._operand(args[1], right)}", info.prec
        if info.prefix:
            return f"{info.prefix}{self._operand(args[0], info.prec + 1)}", info.prec
        if info.call:
            # a mask (where's first operand) is passed as it is; other bool operands become numbers
            texts = [self._text(a)[0] if i == 0 and info.mask_first else self._operand(a, 0)
                     for i, a in enumerate(args)]
            return f"{n.op}({', '.join(texts)})", 9
        raise Unsupported(f"internal: no DSL text for `{n.op}`")

    def _operand(self, a: Node, prec: int) -> str:
        text, p = self._text(a)
        if isinstance(a, Node) and a.is_tensor and a.dtype == "bool":
            # a bool tile in arithmetic: a loaded mask converts with cast, a comparison selects 1 or 0
            if a.is_compare:
                return f"where({text}, 1.0, 0.0)"
            return f"cast({text}, f32)"
        return f"({text})" if p < prec else text


# -- sweeps: the copyin / compute / copyout of one tile loop -----------------------------------------
@dataclass
class Root:
    kind: str                 # acc (a reduction into an accumulator) | out (a full output) | name (a tile)
                              # | total (a sum over rows of per-row values)
    node: Node
    name: str = ""            # accumulator / output tile / named tile
    tensor: Tensor | None = None
    reduce: str = ""          # sum | max | min | prod


def bool_bytes(mask: str) -> str:
    """A bool output tile as a bool tensor holds it, one byte per element: a comparison's value is a
    bit mask (the DSL's verifier refuses storing it as it is), widened through a select of 1 and 0."""
    return f"cast(where({mask}, 1.0, 0.0), bool)"


def _dependency_order(roots: list[Root]) -> list[Root]:
    """Accumulators first, then outputs that other outputs read before those readers."""
    def inside(a: Node, b: Node) -> bool:
        seen, stack = set(), [b]
        while stack:
            x = stack.pop()
            if x is a:
                return True
            if id(x) in seen:
                continue
            seen.add(id(x))
            stack.extend(y for y in x.args if isinstance(y, Node))
        return False
    accs = [r for r in roots if r.kind == "acc"]
    rest = [r for r in roots if r.kind != "acc"]
    ordered = []
    while rest:
        pick = next((r for r in rest if not any(o is not r and inside(o.node, r.node) for o in rest)), rest[0])
        ordered.append(pick)
        rest.remove(pick)
    return accs + ordered


class LoopWriter(Writer):
    """Sweeps and the helpers the loop-shaped templates share."""

    stage_cls = Stage

    def __init__(self, *a, **kw):
        self.scan_tiles: dict[int, str] = {}
        self.tile_names: dict[str, str] = {}
        super().__init__(*a, **kw)

    def tile_name(self, t: Tensor, suffix: str = "u") -> str:
        key = t.name + suffix
        if key not in self.tile_names:
            self.tile_names[key] = self.namer.fresh(t.name + suffix)
        return self.tile_names[key]

    def loads_for(self, roots: list[Node], env: dict) -> list[Tensor]:
        found, seen = [], set()

        def visit(n):
            if not isinstance(n, Node) or id(n) in seen or id(n) in env:
                return
            seen.add(id(n))
            if n.is_data:
                found.append(self.loaded[id(n)])
            for a in n.args:
                visit(a)
        for r in roots:
            visit(r)
        order = {id(t): i for i, t in enumerate(self.tensors)}
        return sorted({id(t): t for t in found}.values(), key=lambda t: order[id(t)])

    def sweep(self, roots: list[Root], load_index: str, store_index: str, env: dict, *,
              scan_mode: str = "carry", scan_first: bool = False, window: str = "") -> tuple[list, list, list, list]:
        """(copyin, compute, copyout, carries) lines for one tile step computing `roots`."""
        env = dict(env)
        st = self.stage_cls(self, env, scan_mode=scan_mode, scan_first=scan_first)
        copyin, copyout = [], []
        for t in self.loads_for([r.node for r in roots], env):
            tile = self.tile_name(t, "h" if t.dtype == "float16" else "u")
            if t.node is not None and self.lay.is_reduced(t.node):
                index = store_index          # one value per row (class indices): indexed like the row's results
            else:
                index = self.leaf_load_index(t, load_index)
            copyin.append(f"{tile} = load({t.reads or t.name}[{index}])")
            if t.dtype == "float16":
                wide = self.tile_name(t, "u")
                st.lines.append(f"{wide} = cast({tile}, f32)")
                env[id(t.node)] = wide
            else:
                env[id(t.node)] = tile
        st.plan([r.node.args[0] if r.kind in ("acc", "total") else r.node for r in roots])
        for r in _dependency_order(roots):
            if r.kind == "acc":
                value = st.value(r.node.args[0])
                if window == ROW_AXIS:             # a 2-D tile of whole rows: one value per row
                    st.lines.append(f"{r.name} = {ACC_FN[r.reduce]}({value}, axis=-1)")
                elif window:
                    st.lines.append(f"{r.name} = {WIN_FN[r.reduce]}({value}, {window}, {window})")
                elif scan_mode == "tile":          # cols: a running accumulator tile
                    if scan_first:
                        st.lines.append(f"{r.name} = {value}")
                    else:
                        st.lines.append(f"{r.name} = {_combine(r.reduce, r.name, value)}")
                else:
                    st.lines.append(f"{r.name} = {_combine(r.reduce, r.name, f'{ACC_FN[r.reduce]}({value})')}")
                env[id(r.node)] = r.name
                if r.tensor is not None:               # the accumulator is itself an output
                    copyout.append(f"store({r.tensor.name}[{store_index}], {r.name})")
            elif r.kind == "out":
                if r.tensor.dtype == "float16":
                    st.lines.append(f"{r.name} = cast({st.value(r.node)}, f16)")
                elif r.tensor.dtype == "bool":
                    st.lines.append(f"{r.name} = {bool_bytes(st.value(r.node))}")
                elif r.tensor.dtype == "int8" and r.node.is_cast:
                    # the Cast page pairs int8 with half only: f32 -> f16 (exact for |v| <= 2048), then
                    # f16 -> int8 truncating, as torch's .to(torch.int8) does (out of range: saturating)
                    st.lines.append(f"{r.name} = cast(cast({st.value(r.node.args[0])}, f16), i8, round='trunc')")
                elif r.tensor.dtype in ("int32", "int64") and r.node.is_cast:
                    # .long() / .int(): the f32 value truncated toward zero, as torch converts
                    value = st.value(r.node.args[0])
                    st.lines.append(f"{r.name} = cast({value}, {DTYPE[r.tensor.dtype]}, round='trunc')")
                elif id(r.node) in env:
                    st.lines.append(f"{r.name} = {env[id(r.node)]}")
                elif r.node.is_scan and scan_mode == "carry":
                    st.scan_names[id(r.node)] = r.name          # the scan writes the output tile itself
                    st.value(r.node)
                else:
                    st.assign(r.name, r.node)
                copyout.append(f"store({r.tensor.name}[{store_index}], {r.name})")
            elif r.kind == "name":
                st.assign(r.name, r.node)
            elif r.kind == "total":                    # a running sum over the rows of per-row values
                value = st.value(r.node.args[0])
                st.lines.append(f"{r.name} = {r.name} + {f'reduce_sum({value})' if window else value}")
        return copyin, st.lines, copyout, st.carries

    def load_once(self, tensors: list[Tensor], index: str, env: dict) -> list[str]:
        """Stages loading each of `tensors` at `index` (f16 widened to f32) outside the sweeps, its
        tile then known to them through `env`: a tensor the same for every tile, loaded once per core."""
        copyin, compute = [], []
        for t in tensors:
            tile = self.tile_name(t, "h" if t.dtype == "float16" else "u")
            copyin.append(f"{tile} = load({t.reads or t.name}[{index}])")
            if t.dtype == "float16":
                compute.append(f"{self.tile_name(t, 'u')} = cast({tile}, f32)")
            env[id(t.node)] = self.tile_name(t, "u")
        return self.stages(copyin, compute, [])

    def leaf_load_index(self, t: Tensor, index: str) -> str:
        """How a sweep indexes tensor `t` (the full tensors' index unless the template says otherwise)."""
        return index

    @staticmethod
    def stages(copyin, compute, copyout) -> list[str]:
        """The copyin / compute / copyout stages of one tile step (kir.stages), as lines."""
        return kir.lines(kir.stages(copyin, compute, copyout))

    def _scalars(self, nodes: list[Node], env: dict, hint: str = "k") -> list[str]:
        """Values derived from reductions, computed once where the sweeps that read them begin (`env`
        then knows them): row scalars (log(s), 1/s ...) in the rows templates, tiles in cols."""
        if not nodes:
            return []
        st = Stage(self, env)
        for n in nodes:
            name = self.namer.fresh(hint)
            st.lines.append(f"{name} = {st.value(n)}")
            env[id(n)] = name
        return self.stages([], st.lines, [])

    def store_values(self, outs: list, env: dict, name_of, at: str) -> list[str]:
        """The stages that compute each (node, output tensor) of `outs` from values the sweeps left in
        `env` and store it at `at` (a reduced output: one value, or a tile of them, per step)."""
        st = Stage(self, env)
        copyout = []
        for o, t in outs:
            name = name_of(t)
            value = st.value(o)
            if t.dtype == "float16":
                value = f"cast({value}, f16)"
            elif t.dtype == "bool":
                value = bool_bytes(value)
            st.lines.append(f"{name} = {value}")
            copyout.append(f"store({t.name}{at if isinstance(at, str) else at(t)}, {name})")
        return self.stages([], st.lines, copyout)

    def levels(self) -> list[list[Node]]:
        """Reductions grouped by dependency level: level k reads only results of levels < k."""
        level: dict[int, int] = {}

        def deps(n, acc, seen):
            if not isinstance(n, Node) or id(n) in seen:
                return
            seen.add(id(n))
            if n.is_reduce:
                acc.append(n)
                return
            for a in n.args:
                deps(a, acc, seen)

        def lvl(r):
            if id(r) not in level:
                found = []
                deps(r.args[0], found, set())
                level[id(r)] = 1 + max((lvl(d) for d in found), default=0)
            return level[id(r)]
        reds = self.lay.reductions
        groups: dict[int, list] = {}
        for r in reds:
            groups.setdefault(lvl(r), []).append(r)
        return [groups[k] for k in sorted(groups)]

    def boundary_reduced(self, roots: list[Node], env: dict, space: str = "reduced") -> list[Node]:
        """Derived values of `space` (not reductions or leaves) that full-space nodes of `roots` read."""
        found, seen = [], set()

        def visit(n, parent_full):
            if not isinstance(n, Node) or id(n) in env:
                return
            key = (id(n), parent_full)
            if key in seen:
                return
            seen.add(key)
            if self.lay.space.get(id(n)) == space and not (n.is_reduce or n.is_data) and parent_full:
                if n not in found:
                    found.append(n)
                return
            for a in n.args:
                visit(a, self.lay.is_full(n))
        for r in roots:
            visit(r, True)
        return found


def _subgraph_nodes(n: Node, env: dict):
    seen, stack = set(), [n]
    while stack:
        x = stack.pop()
        if not isinstance(x, Node) or id(x) in seen or id(x) in env:
            continue
        seen.add(id(x))
        yield x
        stack.extend(x.args)


# the reductions a block of rows folds on the vector unit (reduce_*(x, axis=0): one Add / Max / Min / Mul per row)
BLOCK_FOLD = {"sum": "reduce_sum", "max": "reduce_max", "min": "reduce_min", "prod": "reduce_prod"}


def _fold(kind: str, acc: str, block: str) -> str:
    """`acc` combined with a block of rows folded into one (reduce_*(block, axis=0))."""
    return f"{acc} = {_combine(kind, acc, f'{BLOCK_FOLD[kind]}({block}, axis=0)')}"


def _combine(kind: str, acc: str, value: str) -> str:
    if kind == "sum":
        return f"{acc} + {value}"
    if kind == "prod":
        return f"{acc} * {value}"
    return f"{kind}({acc}, {value})"


class MapWriter(LoopWriter):
    template = "map"

    def kernel_body(self) -> list[str]:
        total = kir.product(self.dims)
        roots = [Root("out", o, self.namer.fresh(t.name + "u"), t) for o, t in zip(self.lay.outputs, self.out_tensors)]
        copyin, compute, copyout, carries = self.sweep(roots, "c", "c", {})
        tiles = kir.loop("c", kir.tiles("part", kir.dot("t", "tile")), *kir.stages(copyin, compute, copyout))
        return kir.lines([kir.loop("part", kir.core_chunk(kir.dot("t", "chunk"), total), tiles)])

    def full_view(self, shape=None) -> str:
        return f"({self.dims[0]},)" if len(self.dims) == 1 else f"(({', '.join(self.dims)}),)"

    def host_body(self) -> list[str]:
        return [*kir.lines([kir.assign("total", kir.product(self.dims))]),
                *self.chunk_split(["total"], self.align_elems(), "32-byte aligned per-core offsets"),
                self.tile_line()]

    def launch_fields(self) -> str:
        return ", chunk=chunk, tile=min(tile, chunk)"

    def docstring(self) -> str:
        return (f"Drafted from {self.source}: elementwise (map template). The tensors are viewed flat, split into "
                "32-byte aligned per-core chunks and streamed through UB in tiles.")


class RowsWriter(LoopWriter):
    template = "rows"

    @property
    def global_row(self) -> bool:
        return not self.lay.lead

    def full_view(self, shape=None) -> str:
        return self.shape_text([self.group(self.lay.lead), self.group(self.lay.axes)])

    def reduced_view(self, shape) -> str:
        lead = list(self.lay.lead)
        if not lead:                     # every axis reduced: one number (keepdim: ones, one axis of 1)
            if not shape:
                return "()"
            return self.shape_text(["1" if len(shape) == 1 else f"({', '.join(['1'] * len(shape))})"])
        keep = len(shape) == len(self.lay.base)
        axes = lead + (list(self.lay.axes) if keep else [])
        names = [self.dims[a] if a in lead else "1" for a in sorted(axes)]
        return self.shape_text([names[0] if len(names) == 1 else "(" + ", ".join(names) + ")"])

    def row_expr(self) -> str:
        return self.prod(self.lay.axes)

    def leaf_view(self, n: Node) -> str:
        if "actual" in n.attrs and self.lay.is_row(n):   # shaped like the row (a layer norm's weight)
            return self.shape_text([self.group(self.lay.axes)])
        return super().leaf_view(n)

    def leaf_load_index(self, t: Tensor, index: str) -> str:
        if t.node is not None and self.lay.is_row(t.node):
            return self._span
        return index

    def kernel_body(self) -> list[str]:
        lay = self.lay
        env: dict = {}
        body: list[str] = []
        R = self.row_expr()
        rev = any(sc.attrs["reverse"] for sc in lay.scans)
        Rp = R if " " not in R else f"({R})"
        # reverse scans visit the row's tiles from its end: tile c covers the mirrored range
        span = f"{Rp} - c.start - c.len:{Rp} - c.start" if rev else "c"
        self._span = span
        idx = span if self.global_row else f"r, {span}"
        if not self.global_row:
            # inputs with one value per row (a per-row scale): one scalar each, read before the sweeps
            per_row = [t for t in self.tensors if t.node is not None and t.node.is_input and lay.is_reduced(t.node)]
            if per_row:
                body.append("with copyin:")
                for t in per_row:
                    name = self.namer.fresh(t.name + "v")
                    body.append(f"    {name} = load({t.name}[r])")
                    env[id(t.node)] = name
        full_outs = [(o, t) for o, t in zip(lay.outputs, self.out_tensors) if lay.is_full(o)]
        red_outs = [(o, t) for o, t in zip(lay.outputs, self.out_tensors) if not lay.is_full(o)]
        body += self.level_sweeps(env, idx)
        if full_outs:
            roots = [Root("out", o, self.tile_name(t), t) for o, t in full_outs]
            body += self._scalars(self.boundary_reduced([o for o, _ in full_outs], env), env)
            copyin, compute, copyout, carries = self.sweep(roots, idx, idx, env)
            body += [f"{c} = {v}" for c, v in carries]
            step = kir.stages(copyin, compute, copyout)
            if self.split_global:
                part = self.namer.fresh("part")
                tiles = kir.loop("c", kir.tiles(part, kir.dot("t", "tile")), *step)
                chunk = kir.core_chunk(kir.dot("t", "chunk"), self.dims_product(lay.axes))
                body += kir.lines([kir.loop(part, chunk, tiles)])
            else:
                body += kir.lines([kir.loop("c", kir.tiles(self.dims_product(lay.axes), kir.dot("t", "tile")), *step)])
        if red_outs:
            # one value per row; a global row's: 0-d, or one axis of 1 (keepdim)
            at = (lambda t: "[r]") if not self.global_row else (lambda t: "" if t.view == "()" else "[0]")
            body += self.store_values(red_outs, env, lambda t: self.namer.fresh(t.name + "v"), at)
        if self.global_row:
            return body
        return kir.lines([kir.loop("r", kir.core_rows(kir.dot("t", "rows"), self.dims_product(lay.lead)), *body)])

    def level_sweeps(self, env: dict, idx: str) -> list[str]:
        """One sweep along the row per reduction level, each into scalar accumulators."""
        body: list[str] = []
        for level in self.levels():
            pre = self.boundary_reduced([r.args[0] for r in level], env)
            body += self._scalars(pre, env)
            roots = []
            for r in level:
                acc = self.namer.fresh({"sum": "s", "max": "mx", "min": "mn", "prod": "p"}[r.attrs["kind"]])
                roots.append(Root("acc", r, acc, reduce=r.attrs["kind"]))
            copyin, compute, copyout, carries = self.sweep(roots, idx, idx, env)
            body += [f"{r.name} = {ACC_INIT[r.reduce]}" for r in roots]
            body += [f"{c} = {v}" for c, v in carries]
            if self.shared_sums:
                body += self._shared_sweep(roots, (copyin, compute, copyout), env)
                continue
            step = kir.stages(copyin, compute, copyout)
            body += kir.lines([kir.loop("c", kir.tiles(self.dims_product(self.lay.axes), kir.dot("t", "tile")), *step)])
            for r in roots:
                env[id(r.node)] = r.name
        return body

    @property
    def split_global(self) -> bool:
        """One global row with full outputs and no scan: every core writes its own chunk of the
        outputs. A scan carries from tile to tile, so a global row with one stays on one core."""
        return self.global_row and not self.lay.scans and any(self.lay.is_full(o) for o in self.lay.outputs)

    @property
    def shared_sums(self) -> bool:
        """A split global row whose reductions are all sums: each core sums its own chunk and adds
        the partial sum into a GM workspace (atomic add), and after sync_all() every core reads the
        totals. (Other reductions have no atomic form here: every core then sweeps the whole tensor.)"""
        return self.split_global and bool(self.lay.reductions) and all(
            r.attrs["kind"] == "sum" for r in self.lay.reductions)

    def _workspace_ref(self, r: Node) -> str:
        if self.workspace is None:
            self.workspace = self.namer.fresh("partial")
        slots = [id(x) for x in self.lay.reductions]
        return self.workspace if len(slots) == 1 else f"{self.workspace}[{slots.index(id(r))}]"

    def _shared_sweep(self, roots: list, stages: tuple, env: dict) -> list[str]:
        """One sum sweep over this core's chunk, the atomic add of the partial sums into the
        workspace, the barrier, and the read-back of the totals."""
        R = self.row_expr()
        part = self.namer.fresh("part")
        body = [f"for {part} in core_chunk(t.chunk, {R}):", f"    for c in tiles({part}, t.tile):"]
        body += ["        " + l for l in self.stages(*stages)]
        body += self.stages([], [], [f"store({self._workspace_ref(r.node)}, {r.name}, accumulate=True)" for r in roots])
        body.append("sync_all()")
        loads = []
        for r in roots:
            total = self.namer.fresh(r.name + "_all")
            loads.append(f"{total} = load({self._workspace_ref(r.node)})")
            env[id(r.node)] = total
        return body + self.stages(loads, [], [])

    def kernel_signature(self) -> str:
        if self.workspace is None:
            return super().kernel_signature()
        n = len(self.lay.reductions)
        shape = "()" if n == 1 else f"({n},)"
        self.out_tensors.append(Tensor(self.workspace, None, "Workspace", "float32", shape))
        try:
            return super().kernel_signature()
        finally:
            self.out_tensors.pop()

    def host_body(self) -> list[str]:
        if self.shared_sums:
            return ["# each core sums its own chunk; the partial sums meet in a GM workspace",
                    *self.chunk_split([self.dims[a] for a in self.lay.axes], self.align_elems()), self.tile_line()]
        if self.split_global:
            return ["# every core sweeps the whole tensor for the reductions (only sums meet through the",
                    "# workspace), then writes its own chunk of the outputs",
                    *self.chunk_split([self.dims[a] for a in self.lay.axes], self.align_elems()), self.tile_line()]
        if self.global_row:
            return ["cores = 1      # one row: a single core walks it", self.tile_line()]
        A = self.prod(self.lay.lead)
        return [f"cores, rows = core_split({A})", self.tile_line()]

    def launch_fields(self) -> str:
        R = self.row_expr()
        if self.split_global:
            return ", chunk=chunk, tile=min(tile, chunk)"
        if self.global_row:
            return f", tile=min(tile, {R})"
        return f", rows=rows, tile=min(tile, {R})"

    def docstring(self) -> str:
        n = len(self.levels())
        if self.shared_sums:
            return (f"Drafted from {self.source}: reductions over the whole tensor (rows template, one global row). "
                    "Each core sums its own 32-byte aligned chunk and adds the partial sums atomically into a GM "
                    "workspace; after sync_all() every core reads the totals and writes its chunk of the outputs.")
        return (f"Drafted from {self.source}: row-wise (rows template) over the last "
                f"{'axis' if len(self.lay.axes) == 1 else f'{len(self.lay.axes)} axes'}. "
                f"{n} reduction sweep{'s' if n != 1 else ''} per row with scalar accumulators"
                + (", then a sweep that writes the outputs" if any(self.lay.is_full(o) for o in self.lay.outputs)
                   else "")
                + ("; scans carry a scalar from tile to tile" if self.lay.scans else "") + ".")


class WindowsWriter(RowsWriter):
    template = "windows"
    whole_rows = True            # a tile holds whole rows: the row length is not a tile size

    @property
    def row_tiles(self) -> bool:
        """Rows short enough for a row pitch: a tile is a 2-D block of rows, one strided copy, reduced along its
        last axis on the vector unit (WholeReduce per row) rather than by window_*, whose k = stride = row form
        walks each window on the scalar unit. An f16 / bf16 block is cast to f32 first, as the window form's was
        (the f32 tile's pitch is the limit: PITCH_MAX)."""
        lay = self.lay
        row = math.prod(lay.base[i] for i in lay.axes)
        return type(self) is WindowsWriter and row <= PITCH_MAX

    def full_view(self, shape=None) -> str:
        if self.row_tiles:
            return self.shape_text([self.group(self.lay.lead), self.group(self.lay.axes)])
        return f"(({', '.join(self.dims)}),)" if len(self.dims) > 1 else f"({self.dims[0]},)"

    def reduced_view(self, shape) -> str:
        keep = len(shape) == len(self.lay.base)
        names = [self.dims[a] if a in self.lay.lead else "1" for a in range(len(self.lay.base))
                 if a in self.lay.lead or keep]
        return self.shape_text([names[0] if len(names) == 1 else "(" + ", ".join(names) + ")"])

    def kernel_body(self) -> list[str]:
        lay = self.lay
        R = self.row_expr()
        Rw = R if " " not in R else f"({R})"
        env: dict = {}
        roots = []
        direct = {id(o): t for o, t in zip(lay.outputs, self.out_tensors) if t.dtype == "float32"}
        for r in lay.reductions:
            t = direct.pop(id(r), None)
            acc = {"sum": "su", "max": "mu", "min": "nu"}[r.attrs["kind"]]
            name = self.tile_name(t) if t else self.namer.fresh(acc)
            roots.append(Root("acc", r, name, t, reduce=r.attrs["kind"]))
        for o, t in zip(lay.outputs, self.out_tensors):
            if id(o) not in direct and any(r.tensor is t for r in roots):
                continue
            roots.append(Root("out", o, self.tile_name(t), t))
        if self.row_tiles:
            copyin, compute, copyout, _ = self.sweep(roots, "c, :", "c", env, window=ROW_AXIS)
        else:
            copyin, compute, copyout, _ = self.sweep(roots, f"windows(c, {Rw}, {Rw})", "c", env, window=Rw)
        tiles = kir.loop("c", kir.tiles("part", kir.dot("t", "tile_rows")), *kir.stages(copyin, compute, copyout))
        chunk = kir.core_chunk(kir.dot("t", "per_core"), self.dims_product(lay.lead))
        return kir.lines([kir.loop("part", chunk, kir.note(tiles, "c: a block of whole rows", 10))])

    def host_body(self) -> list[str]:
        A, R = self.prod(self.lay.lead), self.row_expr()
        Rp = R if " " not in R else f"({R})"
        return [f"rows = {A}",
                "cores, per_core = core_split(rows)",
                *(f"# {line}" for line in self.tile_rows_comment(R)),
                f"tile_rows = max(ub_elems(f32, live={self.live}) // ({Rp} + 1), 1)" if not self.row_tiles else
                f"tile_rows = max(min(ub_elems(f32, live={self.live}) // (align_up({R}, 8) + 1), 4095), 1)"]

    @staticmethod
    def tile_rows_comment(R: str) -> list[str]:
        return [f"a tile holds whole rows: {R} inputs and one result per row"]

    def launch_fields(self) -> str:
        return ", per_core=per_core, tile_rows=min(tile_rows, per_core)"

    def docstring(self) -> str:
        kinds = ", ".join(sorted({r.attrs["kind"] for r in self.lay.reductions}))
        if self.row_tiles:
            return (f"Drafted from {self.source}: reduction of short rows (windows template, {kinds}). A tile is a "
                    "block of whole rows (one strided copy); one reduction per row along the last axis on the vector "
                    "unit, results leave in one store.")
        return (f"Drafted from {self.source}: reduction of short rows (windows template, {kinds}). A tile holds whole "
                "rows; one window reduction per row (k = stride = row length), results leave in one store.")


class ColsWriter(LoopWriter):
    template = "cols"

    def full_view(self, shape=None) -> str:
        return self.shape_text([self.group(self.lay.lead), self.group(self.lay.axes), self.group(self.lay.trail)])

    def reduced_view(self, shape) -> str:
        keep = len(shape) == len(self.lay.base)
        trail = list(self.lay.trail)
        axes = list(self.lay.axes) + trail if keep else trail
        tgroup = [("1" if a in self.lay.axes else self.dims[a]) for a in axes]
        tg = tgroup[0] if len(tgroup) == 1 else "(" + ", ".join(tgroup) + ")"
        return self.shape_text([self.group(self.lay.lead), tg])

    def kernel_body(self) -> list[str]:
        if self.blocked():
            return self.blocked_body()
        lay = self.lay
        env: dict = {}
        R = self.prod(lay.axes)
        Rp = R if " " not in R else f"({R})"
        lead = bool(lay.lead)
        pre = "r, " if lead else ""
        params = [self.loaded[id(n)] for n in self.lay.nodes if n.is_param and self.lay.is_reduced(n)]
        inner: list[str] = self.load_once(params, "c", env) if params else []   # one value per column: a tile each
        full_outs = [(o, t) for o, t in zip(lay.outputs, self.out_tensors) if lay.is_full(o)]
        red_outs = [(o, t) for o, t in zip(lay.outputs, self.out_tensors) if not lay.is_full(o)]
        reverse = {s.attrs["reverse"] for s in lay.scans}
        if len(reverse) > 1:
            raise Unsupported("forward and reverse scans in one kernel")
        rev = reverse.pop() if reverse else False
        first, rng = (f"{Rp} - 1", f"range({Rp} - 2, -1, -1)") if rev else ("0", f"range(1, {Rp})")

        def stepped(roots):
            if all(r.kind == "out" for r in roots) and not any(
                    n.is_scan for r in roots for n in _subgraph_nodes(r.node, env)):
                # nothing runs from step to step: one plain loop over the reduced axis
                b = self.sweep(roots, f"{pre}m, c", f"{pre}m, c", env, scan_mode="tile")
                return [f"for m in range({Rp}):"] + ["    " + l for l in self.stages(*b[:3])]
            a = self.sweep(roots, f"{pre}{first}, c", f"{pre}{first}, c", env, scan_mode="tile", scan_first=True)
            b = self.sweep(roots, f"{pre}m, c", f"{pre}m, c", env, scan_mode="tile", scan_first=False)
            out = self.stages(*a[:3])
            out.append(f"for m in {rng}:")
            out += ["    " + l for l in self.stages(*b[:3])]
            return out

        for level in self.levels():
            inner += self._scalars(self.boundary_reduced([r.args[0] for r in level], env), env, "d")
            roots = [Root("acc", r, self.namer.fresh({"sum": "acc", "max": "amax", "min": "amin", "prod": "aprod"}
                                                     [r.attrs["kind"]]), reduce=r.attrs["kind"]) for r in level]
            inner += stepped(roots)
            for r in roots:
                env[id(r.node)] = r.name
        if full_outs:
            inner += self._scalars(self.boundary_reduced([o for o, _ in full_outs], env), env, "d")
            inner += stepped([Root("out", o, self.tile_name(t), t) for o, t in full_outs])
        if red_outs:
            inner += self.store_values(red_outs, env, self.tile_name, f"[{pre}c]")
        if lead:
            tiles = kir.loop("c", kir.tiles(self.dims_product(lay.trail), kir.dot("t", "tile")), *inner)
            return kir.lines([kir.loop("r", kir.core_rows(kir.dot("t", "rows"), self.dims_product(lay.lead)), tiles)])
        tiles = kir.loop("c", kir.tiles("part", kir.dot("t", "tile")), *inner)
        return kir.lines([kir.loop("part", kir.core_chunk(kir.dot("t", "chunk"), self.dims_product(lay.trail)), tiles)])

    # -- blocks of rows: reductions only, the reduced axis split over the cores (issue 35) ------------
    def blocked(self) -> bool:
        """Reductions of one level (sum / max / min / prod) whose results are the only outputs (no scan,
        no full-shaped output, no per-column parameter): the reduced axis comes in blocks of rows, each
        block one strided copy folded by reduce_*(axis=0), and with leading axes the reduced axis is
        split over the cores too (per-core partials in a Workspace, sync_all(), one combine)."""
        lay = self.lay
        if lay.scans or not lay.reductions or any(lay.is_full(o) for o in lay.outputs):
            return False
        if any(n.is_param for n in lay.nodes) or len(self.levels()) != 1:
            return False
        if any(n.is_data and not lay.is_full(n) for r in lay.reductions for n in _subgraph_nodes(r.args[0], {})):
            return False               # a block loads full-shaped tensors only
        return all(r.attrs["kind"] in BLOCK_FOLD for r in lay.reductions)

    def _block_step(self, reds: list, env: dict, index: str, suffix: str, first: bool) -> list[str]:
        """The stages of one step: load the leaves at `index` (tiles named with `suffix`), then each
        accumulator set to the value (`first`, a row) or combined with the block folded by axis=0."""
        env = dict(env)
        st = self.stage_cls(self, env, scan_mode="tile", scan_first=first)
        copyin = []
        for t in self.loads_for([r.args[0] for r in reds], env):
            half = t.dtype == "float16"
            tile = self.tile_name(t, ("h" if half else "u") + suffix)
            copyin.append(f"{tile} = load({t.name}[{index}])")
            if half:
                wide = self.tile_name(t, "u" + suffix)
                st.lines.append(f"{wide} = cast({tile}, f32)")
                tile = wide
            env[id(t.node)] = tile
        st.plan([r.args[0] for r in reds])
        for r in reds:
            value = st.value(r.args[0])
            acc = self._acc_names[id(r)]
            st.lines.append(f"{acc} = {value}" if first else _fold(r.attrs["kind"], acc, value))
        return self.stages(copyin, st.lines, [])

    def blocked_body(self) -> list[str]:
        lay = self.lay
        reds = self.levels()[0]
        fresh = self.namer.fresh
        self._acc_names = {id(r): fresh({"sum": "acc", "max": "amax", "min": "amin", "prod": "aprod"}[r.attrs["kind"]])
                           for r in reds}
        R = self.prod(lay.axes)
        red_outs = list(zip(lay.outputs, self.out_tensors))
        env: dict = {}
        if not lay.lead:
            # the trailing axes split over the cores in chunks; each tile of a chunk folds the reduced axis
            # in blocks of t.mrows rows (one strided copy each)
            body = self._block_step(reds, env, "0, c", "", True)
            body += [f"for m in tiles({R} - 1, t.mrows):"]
            body += ["    " + l for l in self._block_step(reds, env, "1 + m.start:1 + m.start + m.len, c", "w", False)]
            for r in reds:
                env[id(r)] = self._acc_names[id(r)]
            body += self.store_values(red_outs, env, self.tile_name, "[c]")
            tiles = kir.loop("c", kir.tiles("part", kir.dot("t", "tile")), *body)
            return kir.lines([kir.loop("part", kir.core_chunk(kir.dot("t", "chunk"), self.dims_product(lay.trail)),
                                       tiles)])
        L = self.prod(lay.lead)
        T = self.prod(lay.trail)
        u, b, s, m0, m1 = fresh("u"), fresh("b"), fresh("s"), fresh("m0"), fresh("m1")
        parts = {id(r): fresh("part" if len(reds) == 1 else f"part{i}") for i, r in enumerate(reds)}
        self._parts = [(parts[id(r)], r) for r in reds]
        step = self._block_step(reds, env, f"{b}, {m0}, c", "", True)
        step += [f"for m in tiles({m1} - {m0} - 1, t.mrows):"]
        block = f"{b}, {m0} + 1 + m.start:{m0} + 1 + m.start + m.len, c"
        step += ["    " + l for l in self._block_step(reds, env, block, "w", False)]
        pu = {id(r): fresh(parts[id(r)] + "s") for r in reds}
        step += self.stages([], [f"{pu[id(r)]} = {self._acc_names[id(r)]}" for r in reds],
                            [f"store({parts[id(r)]}[{b}, {s}, c], {pu[id(r)]})" for r in reds])
        body = [f"for {u} in core_rows(t.per, {L} * t.splits):          # a unit: rows [m0, m1) of one leading index",
                f"    {b} = {u} // t.splits",
                f"    {s} = {u} % t.splits",
                f"    {m0} = {s} * t.mpart",
                f"    {m1} = min({m0} + t.mpart, {R})",
                "    for c in tiles(" + T + ", t.tile):"]
        body += ["        " + l for l in step]
        body += ["sync_all()          # every unit's partial is in the workspace"]
        # the combine: the partials of one leading index folded as the units folded their rows (a first row,
        # then blocks of at most t.mrows rows, so no buffer outgrows the ones the UB plan sized)
        pw = {id(r): fresh(parts[id(r)] + "u") for r in reds}
        pv = {id(r): fresh(parts[id(r)] + "w") for r in reds}
        accs = {id(r): self._acc_names[id(r)] for r in reds}
        comb = self.stages([f"{pw[id(r)]} = load({parts[id(r)]}[r, 0, c])" for r in reds],
                           [f"{accs[id(r)]} = {pw[id(r)]}" for r in reds], [])
        comb += ["for q in tiles(t.splits - 1, t.mrows):"]
        comb += ["    " + l for l in self.stages(
            [f"{pv[id(r)]} = load({parts[id(r)]}[r, 1 + q.start:1 + q.start + q.len, c])" for r in reds],
            [_fold(r.attrs["kind"], accs[id(r)], pv[id(r)]) for r in reds], [])]
        for r in reds:
            env[id(r)] = self._acc_names[id(r)]
        comb += self.store_values(red_outs, env, self.tile_name, "[r, c]")
        body += ["for r in core_rows(t.rows, " + L + "):", "    for c in tiles(" + T + ", t.tile):"]
        body += ["        " + l for l in comb]
        return body

    def _workspace_params(self) -> list[str]:
        if not getattr(self, "_parts", None):
            return []
        # a slot per split: splits <= VECTOR_CORES // L (or 1), and VECTOR_CORES <= 64
        L = self.prod(self.lay.lead)
        slots = f"64 // {L if ' ' not in L else f'({L})'} + 1"
        return [f"{name}: Workspace[f32, ({self.group(self.lay.lead)}, {slots}, {self.group(self.lay.trail)})]"
                for name, _ in self._parts]

    def kernel_signature(self) -> str:
        params = self.tensor_params() + [f"{n}: {dt}" for n, dt in self.kernel_scalars] + self._workspace_params()
        params += [f"{t.name}: {t.kind}[{DTYPE[t.dtype]}, {t.view}]" for t in self.out_tensors]
        params.append("t: Tiling")
        return signature(self.op_name, params)

    def leaf_view(self, n: Node) -> str:
        if "actual" in n.attrs and self.lay.is_reduced(n) and not self.lay.lead:
            return self.shape_text([self.group(self.lay.trail)])   # one value per column (BatchNorm1d's weight)
        return super().leaf_view(n)

    def host_body(self) -> list[str]:
        if self.blocked():
            return self.blocked_host()
        if self.lay.lead:
            return [f"cores, rows = core_split({self.prod(self.lay.lead)})", self.tile_line()]
        return [*self.chunk_split([self.dims[a] for a in self.lay.trail], self.align_elems()), self.tile_line()]

    def blocked_host(self) -> list[str]:
        R, T = self.prod(self.lay.axes), self.prod(self.lay.trail)
        ub = f"ub = ub_elems(f32, live={self.live})          # one tile of rows, double-buffered"
        block = "mrows = max(min(ub // align_up(tile, 8), {}, 4095), 1)"
        if not self.lay.lead:
            return [*self.chunk_split([self.dims[a] for a in self.lay.trail], self.align_elems()),
                    ub, "tile = min(chunk, 2040, ub)          # a row of a block: at most 255 blocks of 32 bytes (f32)",
                    "# blocks of mrows rows of the reduced axis, each one strided copy",
                    block.format(f"{R} - 1")]
        L = self.prod(self.lay.lead)
        Lp = L if " " not in L else f"({L})"
        return [ub, f"tile = min({T}, 2040, ub)          # a row of a block: at most 255 blocks of 32 bytes (f32)",
                "# the reduced axis split over the cores (at least 8 rows a unit) when the leading axes leave "
                "cores idle",
                f"splits = max(min(VECTOR_CORES // {Lp}, cdiv({R}, 8)), 1)",
                f"mpart = cdiv({R}, splits)",
                f"splits = cdiv({R}, mpart)",
                f"cores, per = core_split({L} * splits)",
                f"rows = cdiv({L}, cores)",
                block.format("mpart - 1")]

    def launch_fields(self) -> str:
        C = self.prod(self.lay.trail)
        if self.blocked():
            if self.lay.lead:
                return ", per=per, rows=rows, tile=tile, splits=splits, mpart=mpart, mrows=mrows"
            return ", chunk=chunk, tile=tile, mrows=mrows"
        if self.lay.lead:
            return f", rows=rows, tile=min(tile, {C})"
        return ", chunk=chunk, tile=min(tile, chunk)"

    def docstring(self) -> str:
        if not self.lay.reductions and not self.lay.scans:
            return (f"Drafted from {self.source}: parameters with one value per column, broadcast down the "
                    "leading axis (cols template). For each column tile, a tile of each parameter (and of the "
                    "values made of them) is loaded once; then every row's contiguous slice of that tile is "
                    "streamed through.")
        what = "scan" if self.lay.scans else "reduction"
        where = "a middle axis" if self.lay.lead else "the leading axis"
        return (f"Drafted from {self.source}: {what} over {where} (cols template). For each tile of the "
                "trailing axes, a running accumulator tile steps through the reduced axis one contiguous "
                "slice at a time, so every copy stays contiguous.")
