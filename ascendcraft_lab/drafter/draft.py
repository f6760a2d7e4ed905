"""The offline drafter: PyTorch reference -> DSL draft.

    trace (child process) -> canonical graph (rules) -> rule list (choice: which template) -> DSL text

`draft_reference(path)` runs the reference in a child process, where torch.fx traces Model's
forward and records every node's shape; `draft_from_trace(traced)` does the rest in this
process, on plain JSON. The UB plan picks `live` in ub_elems(f32, live=K): the smallest K
whose plan (dsl/buffers.py, what the init pass allocates) fits on the traced shapes and on
shapes 64 times larger, bisected on the draft parsed once (`_sized`). Anything the drafter
cannot express raises `DraftError` with one line naming the operation or pattern.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..dsl.errors import DslError
from ..dsl.ir import Call, Const, map_exprs
from ..dsl.parser import parse
from ..dsl.printer import print_program
from ..dsl.verifier import verify
from ..reference import ReferenceError
from ..soc import get_soc
from .choice import choose
from .conv import plan_conv
from .cube import plan_cube
from .graph import Unsupported
from .layout import broadcast_fit
from .compose import PhaseDraft, compose
from .phases import covers, needs_phases, piece
from .programs import draft_program
from .rules import build_graph
from .writers import WRITERS
from .trace import trace_reference

MAX_LIVE = 48


class DraftError(Exception):
    """The reference cannot be drafted; `str()` is one line."""


@dataclass
class Draft:
    text: str
    template: str                    # map | rows | cols | windows | pool | planes | bcast | index | total | rows_total
                                     # | windows_total | matmul | epilogue | matvec | rowscale | colscale (cube.py)
                                     # | conv (conv.py) | recurrent | mlp (programs.py: a program of kernels)
    op: str                          # the kernel's name
    live: int                        # K of ub_elems(f32, live=K)
    method: str                      # how the forward was traced
    notes: list[str] = field(default_factory=list)


def kernel_name(path) -> str:
    """The kernel's name from the reference's file name, as C++ and file names can carry it: accents
    dropped (`gélu.py` -> gelu), other characters `_`, at most 48 characters (`draft --name` picks another)."""
    stem = unicodedata.normalize("NFKD", Path(path).name.split(".")[0])
    stem = "".join(c for c in stem if not unicodedata.combining(c))
    name = re.sub(r"_+", "_", re.sub(r"[^0-9A-Za-z_]", "_", stem)).strip("_")[:48].rstrip("_") or "kernel"
    return name if not name[0].isdigit() else "k_" + name


def draft_reference(path, *, soc: str | None = None, overrides: dict | None = None, seed: int = 0,
                    cast_inputs: str | None = None, timeout: float = 300, estimate=None) -> Draft:
    """Draft a DSL kernel for the reference at `path` (traced within `timeout` s). Raises DraftError (one line)."""
    try:
        traced = trace_reference(path, overrides=overrides, seed=seed, cast_inputs=cast_inputs, timeout=timeout)
    except ReferenceError as e:
        raise DraftError(str(e)) from None
    return draft_from_trace(traced, name=kernel_name(path), soc=soc, source=Path(path).name, estimate=estimate)


# templates whose compute works on tiles of rows (2-D, each row on its own 32-byte block)
_ROW_TILES = ("bcast", "bcast_fold", "row_blocks", "windows", "windows_total")


def draft_from_trace(traced: dict, *, name: str = "kernel", soc: str | None = None,
                     source: str = "the reference", estimate=None) -> Draft:
    """The draft of a traced reference. `estimate(phases, soc) -> seconds` ranks the covers of a graph that
    takes several phases (phases.py: Cover.summary(); perf.estimate_phases from the layers above, which may
    import perf; else GM bytes moved)."""
    empty = _empty_input(traced)
    if empty:
        # the user's input, not a drafter bug: a zero size gives the templates nothing to tile
        raise DraftError(f"cannot draft {source}: the traced input set is empty ({empty}): there is nothing to "
                         "compute, so no kernel can be drafted from it; draft from a non-empty shape (e.g. "
                         "--override dim=1003) — the kernel then serves an empty input as a no-op")
    s = get_soc(soc)
    try:
        prog = draft_program(traced, name, source)      # a model reference: a program of kernels (programs.py)
        if prog is not None:
            return Draft(prog.text, prog.template, prog.op, 0, traced.get("method", "fx"), prog.notes)
        g = build_graph(traced)
        if needs_phases(g):
            return _draft_phases(g, name, s, source, estimate)
        try:
            _, lay = choose(g)
        except Unsupported as e:
            raise Unsupported(_with_line(g, str(e))) from None
        if lay.template == "cube":
            return _draft_cube(g, name, s, source)
        if lay.template == "conv":
            d = plan_conv(g, name)
            return Draft(d.text, "conv", d.op, 3, g.method, list(g.notes) + d.notes)
        if lay.template in _ROW_TILES and any(o.is_tensor and o.dtype == "bool" for o in g.outputs):
            raise Unsupported(f"a bool output of the {lay.template} template (it computes tiles of rows, and a "
                              "cast of those to the 1-byte bool is not lowered yet)")
        text, w, live = _sized(WRITERS[lay.template], g, lay, name, source, traced, s)
        notes = list(g.notes) + [n for n in w.notes if n not in g.notes]
        if g.method != "fx":
            notes.append(f"traced with {g.method}")
        return Draft(text, lay.template, w.op_name, live, g.method, notes)
    except Unsupported as e:
        text = str(e)
        if text.startswith("internal:"):
            raise DraftError(f"cannot draft {source}: drafter error ({text[len('internal:'):].strip()})") from None
        raise DraftError(f"cannot draft {source}: unsupported: {text}") from None


def _empty_input(traced: dict) -> str:
    """`input 1 has shape [16, 0]` for the first traced tensor input with a zero size, else ""."""
    def shapes(items):
        for item in items:
            if item.get("kind") == "tensor":
                yield item.get("shape") or []
            elif item.get("kind") == "sequence":
                yield from shapes(item.get("items") or [])
    for i, items in enumerate(traced.get("inputs") or [], 1):
        for shape in shapes([items]):
            if 0 in shape:
                return f"input {i} has shape {list(shape)}"
    return ""


def _sized(writer_cls, g, lay, name: str, source: str, traced: dict, s) -> tuple[str, object, int]:
    """(text, writer, live) of the draft whose ub_elems(f32, live=K) has the smallest K whose UB plan
    (dsl/buffers.py, what the init pass allocates) fits on the traced shapes and on shapes 64 times
    larger. The writer renders once; each K is checked by the verifier on that program with its
    ub_elems constants set to K (a template's `live` is only ever such a constant), and the plan's
    total shrinks as K grows, so K is bisected."""
    w = writer_cls(g, lay, name, MAX_LIVE)
    w.source = source
    program = _parsed(w.render(), name, lay.template)
    shapes, scalars = _bindings(w, traced)
    sizes = (shapes, _scaled(w, shapes))
    odd = _odd(shapes)
    over: dict[int, DslError | None] = {}

    def fits(live: int) -> bool:
        if live not in over:
            over[live] = _over_budget_at(_with_live(program, live), s, sizes, scalars, lay.template) or \
                _over_budget_at(_with_live(program, live), s, (odd,), scalars, lay.template, other_errors=False)
        return over[live] is None
    if not fits(MAX_LIVE):
        raise Unsupported(f"no tile size fits UB on {s.name} ({over[MAX_LIVE].message})")
    lo, hi = 1, MAX_LIVE
    while lo < hi:
        mid = (lo + hi) // 2
        if fits(mid):
            hi = mid
        else:
            lo = mid + 1
    if lo != MAX_LIVE:
        w = writer_cls(g, lay, name, lo)
        w.source = source
    text = w.render()
    if lo != MAX_LIVE and _parsed(text, name, lay.template) != _with_live(program, lo):
        raise Unsupported(f"internal: the {lay.template} draft's `live` is not only its ub_elems constants")
    return text, w, lo


def _parsed(text: str, name: str, template: str):
    try:
        return parse(text, f"{name}.dsl.py")
    except DslError as e:
        raise Unsupported(f"internal: the {template} draft does not verify: {e.message}") from None


def _over_budget_at(program, s, sizes: tuple, scalars: dict, template: str,
                    other_errors: bool = True) -> DslError | None:
    """The verifier's UB-budget error of `program` on any of `sizes` (None: it fits them all); any
    other verifier error is the drafter's bug (or, without `other_errors`, a size the draft does not take)."""
    try:
        for shapes in sizes:
            verify(program, s, shapes=shapes, scalars=scalars)
    except DslError as e:
        if not _over_budget(e):
            if not other_errors:
                return None
            raise Unsupported(f"internal: the {template} draft does not verify: {e.message}") from None
        return e
    return None


def _odd(shapes: dict) -> dict:
    """The traced shapes with every dim halved plus one (2048 -> 1025): a row whose pitch rounds up by most
    of a block, where a tile count that fits the traced and the scaled shapes by rounding can overflow (the
    UB plan is checked there too; a size the draft does not take, a slice's literal length, is skipped)."""
    return {name: tuple(d // 2 + 1 if d >= 4 else d for d in shp) for name, shp in shapes.items()}


def _with_live(program, live: int):
    """`program` (rendered with live=MAX_LIVE) with the live count of its ub_elems calls set to `live`."""
    if live == MAX_LIVE:
        return program

    def count(e):
        if isinstance(e, Const) and e.kind == "int" and e.value == MAX_LIVE:
            return replace(e, value=live)
        return replace(e, args=tuple(count(a) for a in e.args)) if isinstance(e, Call) else e

    def fn(e):
        if isinstance(e, Call) and e.op == "ub_elems" and len(e.args) > 1:
            return replace(e, args=(e.args[0], count(e.args[1]), *e.args[2:]))
        return e
    return replace(program, host=map_exprs(program.host, fn))


def _draft_cube(g, name: str, s, source: str, share: int = 1, phase: bool = False) -> Draft:
    """A matrix product (cube.py): the smallest epilogue `live` whose UB plan fits, verified on the
    traced shapes and on shapes 4 times larger (the base tiles are bounded by L0, not by the shape);
    rendered once and checked per live count as `_sized` does (a product alone has no ub_elems)."""
    d = plan_cube(g, name, MAX_LIVE, share, phase)
    program = _parsed(d.text, name, d.template)
    for live in range(2, MAX_LIVE + 1):
        over = _over_budget_at(_with_live(program, live), s, (d.shapes, d.scaled), {}, d.template)
        if over is not None and d.template == "matmul":
            raise Unsupported(f"internal: the {d.template} draft does not verify: {over.message}")
        if over is not None:
            continue
        d = plan_cube(g, name, live, share, phase)
        notes = list(g.notes) + d.notes
        if g.method != "fx":
            notes.append(f"traced with {g.method}")
        return Draft(d.text, d.template, d.op, live, g.method, notes)
    raise Unsupported(f"no epilogue tile size fits UB on {s.name}")


# a layout refusal's construct -> the calls whose reference line it names
_VIEW_CALLS = {"slice": ("getitem", "narrow", "slice", "split", "chunk"),
               "`split`": ("split", "chunk", "tensor_split", "unbind", "split_with_sizes"),
               "`cat`": ("cat", "stack", "concat", "repeat", "tile"),
               "`flip`": ("flip", "fliplr", "flipud"),
               "pad, flip or roll": ("pad", "roll", "flip", "fliplr", "flipud"),
               "`select`": ("getitem", "select", "unbind"),
               "expand": ("expand", "expand_as", "broadcast_to"), "reshape": ("view", "reshape", "flatten"),
               "`permute`": ("permute", "transpose", "t", "movedim", "moveaxis", "swapaxes", "swapdims")}


def _with_line(g, text: str) -> str:
    """A layout refusal with the reference line of the view construct it names, when recorded."""
    if text.startswith("internal:") or "reference line" in text:
        return text
    for word, calls in _VIEW_CALLS.items():
        if word in text:
            line = next((g.lines[c] for c in calls if c in g.lines), None)
            if line:
                return f"{text} (reference line {line})"
    return text


def _over_budget(e: DslError) -> bool:
    """The verifier's UB-plan budget error (the plan's total over the SoC's usable UB or L1)."""
    return "UB" in e.message and ("over the" in e.message or "exceeds" in e.message)


def _bindings(w, traced) -> tuple[dict, dict]:
    shapes = {t.name: tuple(t.shape) for t in w.tensors if not t.reads}
    scalars = {name: d["value"] for _, _, name, d in w._scalar_params}
    return shapes, scalars


def _scaled(w, shapes: dict) -> dict:
    """Every dim x64 (windows, pool: the row length stays, a tile holds whole rows). A parameter
    declared with the input's dims (a normalization's weight) scales with them, and a tensor of one
    value per row (class indices) with the rows. A writer that knows better (the index template)
    scales its own tensors."""
    if hasattr(w, "scaled_shapes"):
        return w.scaled_shapes(shapes)
    base = tuple(w.lay.base)
    keep = ({len(base) - 1} if w.template == "pool" else set(w.lay.axes)) if w.whole_rows else set()
    factor = [1 if i in keep else 64 for i in range(len(base))]
    nodes = {t.name: t.node for t in w.tensors}
    lead = tuple(base[i] for i in w.lay.lead)
    out = {}
    for name, shp in shapes.items():
        node = nodes.get(name)
        dims = node.attrs.get("dims") if node is not None else None
        if tuple(shp) == base:
            out[name] = tuple(d * f for d, f in zip(shp, factor))
        elif dims and all(d.is_dim for d in dims) and not keep:
            out[name] = tuple(d.value * 64 for d in dims)
        elif node is not None and node.is_input and "actual" in node.attrs and not keep:
            out[name] = tuple(d * 64 for d in shp)
        elif node is not None and node.is_param and w.lay.axes and not keep and \
                tuple(shp) == tuple(base[i] for i in w.lay.axes):
            out[name] = tuple(d * 64 for d in shp)             # one value per position along the row (a bias)
        elif w.lay.axes and lead and tuple(shp) == lead:
            out[name] = tuple(d * 64 for d in shp)
        elif w.lay.axes and lead and tuple(shp) == tuple(1 if i in w.lay.axes else d for i, d in enumerate(base)):
            out[name] = tuple(d if i in w.lay.axes else d * 64 for i, d in enumerate(shp))   # (..., 1): per row
        else:
            out[name] = shp
    return out


# -- phases of one kernel (phases.py, compose.py) -----------------------------------------------------
def _draft_phases(g, name: str, s, source: str, estimate) -> Draft:
    """A graph no single template takes: each cover of it by segments drafted phase by phase and composed
    into one kernel; the cheapest by `estimate` (else by GM bytes moved) that verifies wins. A cover that
    cannot be drafted is refused with its first segment's reason; the best refusal is raised when none can."""
    drafted, refusals = [], []
    for cover in covers(g):
        try:
            drafted.append((cover, _draft_cover(g, cover, name, s, source)))
        except Unsupported as e:
            if str(e).startswith("internal:"):
                raise
            refusals.append(str(e))
    if not drafted:
        raise Unsupported(_with_line(g, refusals[0]))
    rank = (lambda c: estimate(c.summary(), s)) if estimate else (lambda c: c.traffic)
    cover, (text, notes) = min(drafted, key=lambda cd: rank(cd[0]))
    units = " -> ".join(seg.unit for seg in cover.segments)
    notes = list(g.notes) + notes + [f"{len(cover.segments)} phases ({units}), intermediates in GM Workspaces"
                                     + ("; elementwise work fused into the products' epilogues" if cover.epilogues
                                        else "")]
    return Draft(text, "phases", name if name.isidentifier() else "kernel", 0, g.method, notes)


def _draft_cover(g, cover, name: str, s, source: str) -> tuple[str, list[str]]:
    """The kernel of one cover: every segment drafted by its template, the drafts composed (compose.py)
    and the result verified on the traced shapes."""
    drafts, notes, keys = [], [], _kernel_names(g, cover)
    share = sum(seg.unit == "cube" for seg in cover.segments)
    for i, seg in enumerate(cover.segments):
        pc = piece(g, seg)
        try:
            d = _draft_cube(pc.graph, f"{name}_p{i}", s, source, share, phase=True) if seg.unit == "cube" else \
                _draft_graph(pc.graph, f"{name}_p{i}", s, source)
        except Unsupported as e:
            raise Unsupported(_segment_line(g, seg, str(e))) from None
        sizes = {k: tuple(pc.graph.inputs[j]["shape"]) for j, k in enumerate(pc.ins)}
        sizes.update({k: tuple(o.shape) for k, o in zip(pc.outs, pc.graph.outputs)})
        sizes.update({("param", n.attrs["name"]): tuple(n.attrs.get("actual", n.shape)) for n in pc.graph.nodes()
                      if n.is_param})
        drafts.append(PhaseDraft(d.text, seg.unit, pc.ins, pc.outs, sizes))
        notes += [f"phase {i + 1} ({d.template}): {n}" for n in d.notes]
    kname = name if name.isidentifier() else "kernel"
    doc = (f"{kname}: {len(drafts)} phases of one kernel (drafted): "
           + ", ".join(f"{d.unit} ({t})" for d, t in zip(drafts, _templates(drafts)))
           + ";\nthe values between phases in GM Workspaces, sync_all() between phases.")
    text, shapes = compose(drafts, kname, doc, keys)
    program = _parsed(text, kname, "phases")
    try:
        verify(program, s, shapes=shapes, scalars=_number_values(g, program))
    except DslError as e:
        raise Unsupported(f"internal: the phases draft does not verify: {e.message}") from None
    return print_program(program), notes


def _number_values(g, program) -> dict:
    """The values of a composed kernel's scalar parameters: the forward's and get_init_inputs()'s numbers,
    by the names the templates give them (Graph.numbers)."""
    values = {name: d["value"] for _, _, name, d in g.numbers()}
    return {p.name: values[p.name] for p in program.scalars if p.name in values}


def _segment_line(g, seg, text: str) -> str:
    """A segment's refusal with the reference line of what it names (a call the message mentions, else the
    first of the segment's operations the trace recorded a line for)."""
    text = _with_line(g, text)
    if text.startswith("internal:") or "reference line" in text:
        return text
    line = next((v for k, v in g.lines.items() if f"`{k}`" in text), None) or \
        next((g.lines[n.op] for n in seg.nodes if n.op in g.lines), None)
    return f"{text} (reference line {line})" if line else text


def _templates(drafts) -> list[str]:
    return ["product" if d.unit == "cube" else "vector" for d in drafts]


def _kernel_names(g, cover) -> dict:
    """The kernel's name of each tensor key (compose.py): the forward's inputs by name, the outputs y / y0 ..,
    the values between phases ws0, ws1 ..."""
    keys = {("input", i): (n if n.isidentifier() else f"x{i}") for i, n in enumerate(g.input_names)}
    keys.update({("output", k): "y" if len(g.outputs) == 1 else f"y{k}" for k in range(len(g.outputs))})
    values = [w for seg in cover.segments for w in seg.writes if all(w is not o for o in g.outputs)]
    keys.update({("value", v): f"ws{j}" for j, v in enumerate(values)})
    return keys


def _draft_graph(g, name: str, s, source: str) -> Draft:
    """One vector segment by the rule list's template (as draft_from_trace drafts a whole graph)."""
    _, lay = choose(g)
    if lay.template == "cube":
        raise Unsupported("internal: a vector segment with a product")
    if lay.template == "map" and len(lay.base) > 1:
        broadcast_fit(lay, rows=True)        # rows x columns, as the products beside it read and write
    text, w, live = _sized(WRITERS[lay.template], g, lay, name, source, {}, s)
    return Draft(text, lay.template, w.op_name, live, g.method, list(w.notes))
