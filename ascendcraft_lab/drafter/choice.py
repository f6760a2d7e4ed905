"""Which template drafts a canonical graph: an ordered, commented rule list.

`RULES` is `[Rule(matches, template, why)]`, read top to bottom: the first rule whose `matches`
accepts the graph hands it to its template, whose `plan` lays it out (`Layout`), refuses it in one
line (`Unsupported`: the rule claimed the graph, no later rule is tried), or passes (None: the next
rule is tried). `why` says why the rule comes before the next ones: the order is the precedence.

A `Template` says which subgraph of canonical nodes it takes: `takes`, the node kinds of its
pattern (graph.OPS), and `plan`, its constraints on them. Today every template takes the whole
graph or nothing; the programs issue (#32) turns this list into a cover of the graph by templates,
each taking the subgraph it matches, and chooses between covers by `cost`: the hook where the perf
model's estimate of a template's kernel plugs in (`no_estimate` until then).

The rules read the graph through `Canon`: its nodes after the layouts' preparation (layout.prepare)
and two analyses the loop templates share, computed once, when the first rule asks: `loop` (base
shape, reduced axes, totals; layout.loop_layout) and `spaced` (each node's space: full, reduced,
scalar, row, plane, total; layout.with_spaces). An analysis that cannot lay the graph out refuses it
(Unsupported) at the first rule that asks, so a refusal names the first thing, in the order of the
list, that no template takes.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable

from . import layout as L
from .cube import uses_cube
from .graph import (CONV, COUNT, CUBE, DATA, ELEMENTWISE, FILL, INDEX, MOVE, NUMBER, PERMUTE, PICK, POOL, REDUCE, REMAP,
                    RESIZE, SCAN, SORT, SPLIT, STRETCH, VIEW, Graph, Node, Unsupported)
from .layout import Layout


class Canon:
    """The graph as the rules see it (see the module docstring)."""

    def __init__(self, g: Graph):
        self.g = g

    @cached_property
    def outputs(self) -> list[Node]:
        return L.prepare(self.g)

    @cached_property
    def nodes(self) -> list[Node]:
        return L.nodes_of(self.outputs)

    def has(self, kind: str) -> bool:
        return any(n.kind == kind for n in self.nodes)

    @cached_property
    def loop(self) -> Layout:
        """The loop templates' layout before spaces (layout.loop_layout)."""
        return L.loop_layout(self.nodes, self.outputs)

    @cached_property
    def spaced(self) -> Layout:
        """`loop` with every node's space (layout.with_spaces)."""
        return L.with_spaces(self.loop)


def no_estimate(lay: Layout, soc: str) -> float | None:
    """No estimate yet: the cost hook's default (see Template.cost)."""
    return None


@dataclass(frozen=True)
class Template:
    """One template as the rule list sees it.

    `names`: the `Draft.template` names it drafts as (a family decides between them in `plan`);
    `takes`: the node kinds of its pattern, the subgraph it can take (graph.OPS kinds);
    `plan(canon) -> Layout | None`: its constraints, checked on the graph (Unsupported: one line why not);
    `cost(layout, soc) -> seconds | None`: the estimated time of its kernel on the traced shapes, where
    the perf model's estimate plugs in to choose between covers (#32); `no_estimate` until then."""
    names: tuple[str, ...]
    takes: frozenset[str]
    plan: Callable[[Canon], Layout | None]
    cost: Callable[[Layout, str], float | None] = field(default=no_estimate)

    def subgraph(self, nodes: list[Node]) -> list[Node]:
        """The nodes of `nodes` its pattern takes (all of them when it can take the whole graph)."""
        return [n for n in nodes if n.kind in self.takes]


@dataclass(frozen=True)
class Rule:
    matches: Callable[[Canon], bool]
    template: Template
    why: str


def _refuse(why: Callable[[Canon], str]) -> Callable[[Canon], Layout | None]:
    """A plan that refuses, in one line: a rule that claims what no later template can draft."""
    def plan(c: Canon):
        raise Unsupported(why(c))
    return plan


def _whole(fn) -> Callable[[Canon], Layout]:
    """A plan over the prepared graph (a layout function of (nodes, outputs))."""
    return lambda c: fn(c.nodes, c.outputs)


# -- the templates -------------------------------------------------------------------------------
LEAVES = frozenset({DATA, NUMBER})
ARITH = LEAVES | {ELEMENTWISE, VIEW}
LOOPS = ARITH | {REDUCE, SCAN}

CUBE_T = Template(("matmul", "epilogue", "matvec", "rowscale", "colscale"), ARITH | {CUBE, PERMUTE},
                  lambda c: Layout("cube", ()))        # cube.plan_cube lays out and writes the draft itself
CONV_T = Template(("conv",), frozenset({CONV, DATA}), lambda c: Layout("conv", ()))   # conv.plan_conv writes it
POOL_T = Template(("pool",), frozenset({POOL, DATA}), _whole(L.pool_layout))
PERMUTE_T = Template(("permute",), ARITH | {PERMUTE}, _whole(L.permute_layout))
SPLIT_T = Template(("split",), frozenset({SPLIT, DATA}), _whole(L.split_layout))
RESIZE_T = Template(("resize", "gridsample", "gridinput"), frozenset({RESIZE, DATA}), _whole(L.resize_layout))
SORT_T = Template(("sort",), LEAVES | {SORT}, _whole(L.sort_layout))
COUNT_T = Template(("histc", "interleave", "nonzero"), LEAVES | {COUNT}, _whole(L.datadep_layout))
INDEX_T = Template(("index",), LEAVES | {INDEX}, _whole(L.index_layout))
INTERLEAVE_T = Template(("interleave_last",), ARITH | {MOVE}, _whole(L.interleave_layout))
REMAP_T = Template(("remap",), ARITH | {REMAP, MOVE}, _whole(L.remap_layout))
CONCAT_T = Template(("bcast_fold",), ARITH | {MOVE}, lambda c: L.concat_layout(c.outputs))
LEFTOVER = Template((), frozenset(), _refuse(lambda c: L.leftover(c.nodes, c.outputs)))
BCAST_T = Template(("bcast", "bcast_fold"), ARITH | {MOVE, STRETCH, FILL},
                   lambda c: L.broadcast_layout(c.loop))
WINDOWS_TOTAL_T = Template(("windows_total",), LOOPS | {PICK}, lambda c: L.totals_layout(c.spaced, "windows_total"))
ROWS_TOTAL_T = Template(("rows_total",), LOOPS | {PICK}, lambda c: L.totals_layout(c.spaced, "rows_total"))
COLUMNS_T = Template(("cols",), ARITH, lambda c: L.columns_layout(c.spaced))
PLANES_T = Template(("planes",), LOOPS, lambda c: L.planes_layout(c.spaced))
ROW_PARAM = Template((), frozenset(), _refuse(
    lambda c: "a parameter broadcast along the reduced axes of a reduction over a middle axis"))
MAP_T = Template(("map",), ARITH, lambda c: L.finish(c.spaced, "map"))
COLS_T = Template(("cols",), LOOPS, lambda c: L.finish(c.spaced, "cols"))
WINDOWS_T = Template(("windows",), LOOPS, lambda c: L.finish(c.spaced, "windows"))
ROW_BLOCKS_T = Template(("row_blocks",), LOOPS, lambda c: L.finish(c.spaced, "row_blocks"))
TOTAL_T = Template(("total",), LOOPS, lambda c: L.finish(c.spaced, "total"))
ROWS_T = Template(("rows",), LOOPS, lambda c: L.finish(c.spaced, "rows"))


def _bool_output(c: Canon) -> bool:
    return any(o.is_tensor and o.dtype == "bool" for o in c.g.outputs)


def _row_param(c: Canon) -> bool:
    lay = c.spaced
    return any(lay.is_row(n) for n in lay.nodes) and bool(lay.trail or not lay.axes)


# -- the precedence --------------------------------------------------------------------------------
# The single-op templates (pool ... index) each take one operation as the whole forward and refuse
# anything else beside it; among them the order only decides which one names the refusal of a graph
# that mixes two (a pooling of a permuted input is refused by the pool template, naming pooling).
RULES: list[Rule] = [
    Rule(lambda c: uses_cube(c.g), CUBE_T,
         "a matrix product (or diag(v), triu, tril, which only the cube templates read) decides the kernel: no "
         "vector template computes a product, so nothing below could draft it; matched on the graph as traced, "
         "before the layouts' preparation, which has no rule for products"),
    Rule(lambda c: any(n.kind == CONV for n in c.g.nodes()), CONV_T,
         "a convolution is a product over an im2col view: only the conv template reads windows into the cube; "
         "matched on the graph as traced, before the layouts' preparation, which has no rule for it"),
    Rule(lambda c: c.has(POOL), POOL_T,
         "a pooling reads windows of input rows that only the pool template expresses, as the whole forward; "
         "first of the single-op templates"),
    Rule(lambda c: c.has(PERMUTE), PERMUTE_T,
         "a permute or transpose moves elements across rows, which no later template loads; the permute template "
         "also takes elementwise work before and after it, so it must see the graph before the loop templates"),
    Rule(lambda c: c.has(SPLIT), SPLIT_T,
         "the parts of one input as the outputs: several outputs of other shapes, which every later template "
         "refuses with a less precise line"),
    Rule(lambda c: any(n.kind == RESIZE and n.info.what for n in c.nodes), RESIZE_T,
         "F.interpolate / grid_sample read source positions computed per output element (Gather); an "
         "affine_grid alone is not matched: grid_sample reads it"),
    Rule(lambda c: c.has(SORT), SORT_T,
         "a sort holds whole rows in UB and writes values and indices; before the index templates, whose argmax "
         "of a row is a reduction to an index rather than an order"),
    Rule(lambda c: c.has(COUNT), COUNT_T,
         "histc, repeat_interleave and nonzero have data-dependent output sizes; before the index templates, "
         "since masked_select (a nonzero) also reads a bool mask like an index"),
    Rule(lambda c: c.has(INDEX), INDEX_T,
         "argmax / gather / index_select / index_add / scatter read or write by an index tensor; the last single-"
         "op template: the picks of a loss (a PICK, not an INDEX) are left to the loss templates below"),
    Rule(lambda c: L.interleaved(c.outputs), INTERLEAVE_T,
         "a stack along a new last axis (a cat of one-element parts along the last axis) interleaves elements "
         "within a row: before remap and the concat fold, which store whole runs and refuse it"),
    Rule(lambda c: L.remaps(c.nodes), REMAP_T,
         "a pad, roll, repeat or a flip of the last axis needs an index map per axis and a Gather within the row; "
         "before the concat fold, which reads slices and flips of outer axes only"),
    Rule(lambda c: L.moves_outside_reductions(c.nodes), CONCAT_T,
         "a cat that is the whole output (its parts slices or elementwise work of inputs) is stores at offsets; "
         "before the leftover refusals, which refuse every cat; passes (None) when a part is not that"),
    Rule(lambda c: L.leftover(c.nodes, c.outputs) is not None, LEFTOVER,
         "what no loop template reads (a slice, flip or cat left over, shift, select, expand or full at an output, "
         "integer tensors, tensor floor division, computed class indices) is refused here, in one line naming "
         "it, before the loop analysis would refuse it with a less precise one"),
    Rule(lambda c: L.elementwise_only(c.loop), BCAST_T,
         "elementwise work whose inputs broadcast against the outputs' shape (a bias, a per-row value, a per-"
         "channel value) loads each input in its own shape: before the space analysis, which needs every input "
         "of the base shape; passes (None) when every input has the full shape"),
    Rule(lambda c: bool(c.spaced.totals) and L.short_rows(c.spaced), WINDOWS_TOTAL_T,
         "a loss (per-row values summed over all rows) of short rows: many rows per tile; before rows_total, "
         "which walks one row at a time"),
    Rule(lambda c: bool(c.spaced.totals), ROWS_TOTAL_T,
         "a loss over rows: every core adds its share into the output; before the row templates, which write "
         "per-row or full outputs, not one number"),
    Rule(lambda c: L.column_parameters(c.spaced), COLUMNS_T,
         "elementwise work with parameters that vary along a trailing run including the last axis (BatchNorm1d in "
         "eval mode): column tiles of the parameters loaded once; before planes, which needs a plane the "
         "parameters are constant along (the plan re-lays the graph with the leading axes as X)"),
    Rule(lambda c: L.grouped(c.spaced), PLANES_T,
         "a grouped reduction (batch and group norm: a parameter constant along a plane, reduced axes that are "
         "not one run, an axis split into groups): before the row templates, which need one run of reduced axes"),
    Rule(_row_param, ROW_PARAM,
         "a parameter that varies along the reduced axes beside a middle-axis reduction (or none) has no tile "
         "shape in the cols or map templates: refused before them"),
    Rule(lambda c: not c.spaced.axes, MAP_T,
         "no reduced axis: elementwise work on flat per-core chunks, the simplest loop"),
    Rule(lambda c: bool(c.spaced.trail), COLS_T,
         "the reduced axes are followed by others (a reduction over a middle axis): running accumulator tiles "
         "step down contiguous slices; the rest reduce the last axes (rows)"),
    Rule(lambda c: L.windows_fit(c.spaced), WINDOWS_T,
         "short rows whose only results are sum / max / min reductions: whole rows per tile, one window op each; "
         "before row_blocks, which writes full-shaped results"),
    Rule(lambda c: L.row_blocks_fit(c.spaced) and not _bool_output(c), ROW_BLOCKS_T,
         "short rows with full-shaped results (softmax, a layer norm of few features): blocks of whole rows, "
         "every reduction broadcast back in one compute stage; before the one-row-at-a-time templates (a bool "
         "output goes to rows: a cast of a tile of rows to the 1-byte bool is not lowered)"),
    Rule(lambda c: L.total_fit(c.spaced), TOTAL_T,
         "every axis reduced by sums, the outputs linear in them: the cores split the tensor and add their shares; "
         "before rows, which would walk one global row on one core"),
    Rule(lambda c: True, ROWS_T,
         "the general row template: sweeps along each row with scalar accumulators (last: it takes any reduction "
         "or scan of the last axes that the templates above did not)"),
]


def choose(g: Graph) -> tuple[Rule, Layout]:
    """The first rule that takes `g`, and its layout. Raises Unsupported (one line) for a refusal."""
    c = Canon(g)
    for rule in RULES:
        if rule.matches(c):
            lay = rule.template.plan(c)
            if lay is not None:
                return rule, lay
    raise Unsupported("internal: no rule took the graph")      # the last rule takes everything


def candidates(g: Graph) -> list[Rule]:
    """Every rule whose matcher accepts `g`, in order: the templates a cover could choose between (#32).
    A matcher that refuses (a layout analysis raises) ends the list."""
    c = Canon(g)
    out = []
    for rule in RULES:
        try:
            if rule.matches(c):
                out.append(rule)
        except Unsupported:
            break
    return out


__all__ = ["Canon", "RULES", "Rule", "Template", "candidates", "choose", "no_estimate"]
