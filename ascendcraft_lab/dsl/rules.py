"""The rules the verifier enforces, each with the one-line statement the DSL reference gives.

One source of truth: every place in the verifier (`verifier.py`, the typing rules of `typerules.py`)
that refuses a draft names its rule (`err(..., rule="stage.kinds")`), and the DSL reference
(`docs.py`, the section "Rules the verifier enforces", which the LLM engine's prompt holds) lists
every statement below, by topic. A refusal can therefore never be of a rule the reference does not
state: `tests/dsl/test_rules.py` checks that every refusal site names a rule of this table, that
every rule here has a site, and that every statement is in the generated reference.

A few rules are enforced outside the verifier proper (the parser's names, the host function's
evaluator, the UB plan's fitted sizes); their sites name them the same way.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    id: str
    topic: str
    statement: str


TOPICS = {
    "names": "Names",
    "params": "Parameters and shapes",
    "host": "The host function",
    "stage": "Stages and queues",
    "gm": "GM views: load and store",
    "loops": "Loops, `if` and synchronisation",
    "ops": "Operations and their operands",
    "cube": "The cube (cube + vector kernels)",
}

_RULES = (
    # -- names ---------------------------------------------------------------------------------
    Rule("names.reserved", "names",
         "The DSL's own words cannot name anything: the operations (`exp`, `where`, `max`, ...), the comparison "
         "names (`ge`, `gt`, `le`, `lt`, `eq`, `ne`), the builtins and SoC constants (`cdiv`, `VECTOR_CORES`, ...) "
         "and `load`, `store`, `Launch`, `Tiling`, `GM`, `Out`, `inf`, ... (rename: `ge_`, `gv`); a kernel name "
         "is not a C++ keyword or reserved identifier, and a Launch field is not named `cores`."),
    Rule("names.defined", "names",
         "A name is used after its definition and within its scope (loop and `if` bodies are scopes, stages are "
         "not); host constants are not visible in the kernel (read them as tiling fields `t.name`)."),
    Rule("names.fixed", "names",
         "Dims, parameters, loop variables and the tiling struct cannot be assigned, and a loop variable does "
         "not hide an existing name."),
    Rule("names.one-kind", "names",
         "A name keeps one kind: a scalar stays a scalar and a tile a tile of one dtype. So `acc = 0.0` makes a "
         "scalar: a UB tile has no constant constructor; zero one as a product of a tile of its shape "
         "(`acc = xu * 0.0`), or start a sum from its first term (`acc = h0 * x0`, then `acc = acc + ...`)."),
    Rule("names.one-origin", "names",
         "A tile is either loaded or computed: a loaded tile is a read-only copy-in buffer, so a result gets "
         "its own name (`xu2 = xu * 2.0`, not `xu = xu * 2.0`)."),
    Rule("names.fields", "names",
         "Only the tiling struct (`t.rows`, the host function's Launch fields) and ranges (`.start`, `.len`, "
         "`.index`) have fields."),
    Rule("names.values", "names",
         "An assignment's value is a scalar or a tile expression; a range is used through its fields and the "
         "tiling struct through `t.field`."),
    # -- parameters ---------------------------------------------------------------------------
    Rule("params.one-tiling", "params", "A kernel takes at most one Tiling parameter; scalar parameters are "
         "f32 or integers, never bf16."),
    Rule("params.dims-bound", "params",
         "Input shapes bind the dims: each dim appears alone as an axis of some input (an expression in an "
         "input shape, `(B, N * 2)`, binds nothing: declare `(B, M)` and derive); output and workspace shapes "
         "may be expressions of the input dims and int scalars (`(N - K) // S + 1`); a dim has its own name, "
         "not a parameter's, and a dim read from a scalar parameter is an integer."),
    Rule("params.row-count", "params",
         "A row count `n: Out[i64, (1,), \"y\"]` is one i64 element counting the rows of another output `y` "
         "of at least one axis; an output has at most one."),
    Rule("params.outputs-stored", "params", "Every output is stored somewhere in the kernel."),
    # -- host ---------------------------------------------------------------------------------
    Rule("host.params", "host",
         "The host function's parameters are the kernel's inputs, declared the same (`Tensor[dtype, shape]` "
         "for a GM input); its locals do not reuse a dim, parameter or constant name."),
    Rule("host.expressions", "host",
         "Host expressions are integer arithmetic on dims, int scalars, SoC constants and earlier locals: "
         "`+ - * // %`, comparisons, `a if c else b`, and the builtins (`min`, `max`, `cdiv`, `align_up`, "
         "`ub_elems(dtype, live=K)`, ...). `/` is float division, which tile sizes and core counts cannot take: "
         "write `//` or `cdiv(a, b)`; the builtins take integers; no attributes, no True/False; a dtype "
         "appears only as the first argument of `ub_elems`, `fit_tile`, `fit_rows`."),
    Rule("host.cores", "host", "The launch's core count is an integer expression (its first argument)."),
    Rule("host.fit", "host",
         "`fit_tile(dtype)` / `fit_rows(dtype, cols)` appear once in the host function, as the size of the "
         "tiles (a Launch field such as `tile=min(fit_tile(f32), N)`, read by `tiles(N, t.tile)`), not divided "
         "by a row's length before it sizes them (a tile of rows is `fit_rows(f32, cols)`); the UB plan solves "
         "that one size: size other tiles with `ub_elems`."),
    Rule("host.launch", "host",
         "For the given shapes: the host function runs, a tile step, rows or chunk per core and a range() step "
         "are at least 1, and a cube + vector kernel launches at most CUBE_CORES blocks."),
    # -- stages -------------------------------------------------------------------------------
    Rule("stage.kinds", "stage",
         "`with copyin:` holds only loads, `with compute:` the tile work (assignments of tile expressions, "
         "operations), `with copyout:` only stores; `with split:` the L1 -> L0A / L0B moves; stages do not "
         "nest, and a loop or `if` is never inside a stage."),
    Rule("stage.flow", "stage",
         "A tile crosses stages only copyin -> compute -> copyout: a loaded tile is read in compute (never "
         "stored as it is: copy it, `yu = xu + 0.0`), and every loaded tile is read."),
    Rule("stage.stored-queue", "stage",
         "A stored tile is an output queue (VECOUT), taken afresh by each compute stage that writes it: it "
         "cannot carry a value across stages or loop iterations. Carry the value in another tile "
         "(`acc = acc + ...`) and copy it into the stored one (`yu = acc`) in the stage before the store."),
    # -- GM views -----------------------------------------------------------------------------
    Rule("gm.tensors", "gm",
         "Loads read GM inputs, Params and Workspaces; stores write outputs and Workspaces; a GM tensor is "
         "read only through load() in copyin. One input may be loaded through several views (`x[r, c]` and "
         "`x[r, :]`), each its own tile."),
    Rule("gm.index", "gm",
         "A GM view has one index per axis (a dim pack counts as one axis): a range variable, a slice "
         "`lo:hi[:step]`, `windows(...)` or an integer scalar; index scalars are integers."),
    Rule("gm.contiguous", "gm",
         "The last kept axis of a view is the tensor's last axis (or only axes of size 1 follow it): a row is a "
         "contiguous run in GM. A slice step goes forward (`s >= 1`) and never along the last axis (take() "
         "every s-th element of a loaded row instead)."),
    Rule("gm.one-per-row", "gm",
         "A tile whose last axis is 1, an (n, 1) tile of one value per row, is one contiguous run in GM. A "
         "1-D tile broadcasts as a row (NumPy), not as a column: to get an (n, 1) tile load a view whose last "
         "axis is 1 (declare the tensor `(B, S, 1)`), or reduce a tile of rows with `keepdim=True`; a column of "
         "a wider tensor (`h[b, :, j:j + 1]`) is refused."),
    Rule("gm.store", "gm",
         "A store writes a tile of the view's shape, or a scalar into a one-element view, of the tensor's dtype "
         "(cast first); from UB, or from L0C for the cube; never a comparison's bit mask (where() it into "
         "values first)."),
    Rule("gm.accumulate", "gm",
         "`store(..., accumulate=True)` adds atomically into f32, f16 or i32 tensors, and a tensor gets either "
         "accumulating stores or plain ones, not both."),
    # -- loops --------------------------------------------------------------------------------
    Rule("loops.cores", "loops",
         "The cores are split once: one core loop (`core_rows`, `core_chunk`, `core_tiles`) per loop nest, not "
         "inside another, and its variable names one split. In a cube + vector kernel `cores` counts blocks "
         "(AI cores, at most CUBE_CORES): each block has one cube core and two vector cores, and `core_rows("
         "t.rows, B)` gives a block its `rows`, which its two vector cores split between them (the first "
         "cdiv(rows, 2), the second the rest; the cube core keeps the block's whole share)."),
    Rule("loops.if", "loops",
         "`if` tests a scalar comparison (or a loaded bool), outside the stages; tiles are selected with "
         "where()."),
    Rule("loops.sync", "loops",
         "`sync_all()` stands at the top level of the kernel (every core reaches it as often), a Workspace is "
         "loaded only after one, and `barrier()` stands between stages."),
    # -- operations ---------------------------------------------------------------------------
    Rule("ops.known", "ops", "Calls are the DSL's operations (the table above); tile operations run in a "
                             "compute stage."),
    Rule("ops.lowered", "ops",
         "An operation takes the tile kinds and dtypes its row of the table lists (scalars, 1-D tiles, tiles of "
         "rows, ...): a form the lowering cannot translate faithfully is refused with what to write instead."),
    Rule("ops.scalars", "ops",
         "Scalar math covers the elementwise operations: `exp`, `log`, `sqrt`, `tanh`, ... of a scalar are "
         "allowed (the lowering runs them on one vector block and syncs back); `//` and `%` are for integer "
         "scalars; bool values are conditions and masks, not numbers."),
    Rule("ops.dtypes", "ops",
         "Both operands of an operation have one dtype (a scalar takes the tile's dtype; a f32 scalar with a "
         "f16 tile is refused: cast); bool tiles are masks for where()."),
    Rule("ops.broadcast", "ops",
         "Tile shapes broadcast by NumPy rules (aligned at the last axis, a size-1 axis stretches); a where() "
         "mask has the result's shape (compare at the full shape); a bool mask of one byte per element "
         "selects 1-D tiles only."),
    Rule("ops.binary", "ops", "Elementwise binary operations take the forms the table lists (tile op tile, "
                              "tile op scalar, scalar op tile), each with its instruction."),
    Rule("ops.reduce", "ops",
         "Reductions reduce a whole tile to a scalar, or a tile of rows along its last axis (`axis=-1`, "
         "`keepdim=True` for an (n, 1) tile), or a 2-D tile along axis 0 (one row); keepdim needs an axis."),
    Rule("ops.scan", "ops", "A scan's `init` is a scalar carry; window sizes, strides and counts are at "
                            "least their minimum (a window of at least 1)."),
    Rule("ops.rows", "ops",
         "repeat(), pick(), take(), transpose() and argsort() take the tile kinds and index dtypes their rows "
         "list: indices are i32 tiles, pick() one index per row, transpose() a 2-D tile, argsort() one row."),
    Rule("ops.cast", "ops", "cast() converts i8 to and from f16 only, and a tile of rows is not cast from or to "
                            "a 1-byte dtype."),
    Rule("ops.iota", "ops", "iota(n, start) starts at a number; an i32 iota starts at an integer."),
    # -- cube ---------------------------------------------------------------------------------
    Rule("cube.levels", "cube",
         "The cube's path is GM -> L1 (`load(a[mi, ki], L1)` in copyin, a 2-D view of f16, bf16, f32 or i8) -> "
         "L0A / L0B (`load(a1, L0A)` in `with split:`) -> mmad into L0C (compute) -> store (copyout). Every L1 "
         "tile is moved to L0; transpose=True is for L1 -> L0 moves; windows() and stepped slices do not reach "
         "L1."),
    Rule("cube.one-layout", "cube",
         "An L1 tile has one layout, fixed by the one L0 tile it feeds: to feed L0A and L0B (or one transposed "
         "and one not) load the GM view into a second L1 tile."),
    Rule("cube.i8-layout", "cube",
         "An i8 A goes to L0A as [M, K] (`load(a1, L0A)`) and an i8 B to L0B as [N, K] (`load(b1, L0B, "
         "transpose=True)` of a B declared (N, K)): i8 fractals are not transposed on the way."),
    Rule("cube.mmad", "cube",
         "mmad(a, b, acc) multiplies an L0A by an L0B tile of one dtype, of matching inner sizes, into an L0C "
         "accumulator (`zeros(m, n, L0C)`, f32, or i32 for i8) assigned to itself; each L0 tile is one "
         "operand; a stored L0C tile is written as f32, f16 or bf16 by Fixpipe."),
    Rule("cube.steps", "cube",
         "A cube tile's step along an axis is a whole number of fractals (16 rows; 32 bytes of columns) unless "
         "it covers the axis."),
    Rule("cube.units", "cube",
         "Between two sync_all()s a kernel uses either the cube or the vector unit (Atlas A2: separate AIC and "
         "AIV cores): the cube's result goes to a Workspace, `sync_all()`, then vector work loads it into UB."),
)

RULES: dict[str, Rule] = {r.id: r for r in _RULES}
assert len(RULES) == len(_RULES), "two rules with one id"
assert all(r.topic in TOPICS for r in _RULES)


def by_topic() -> list[tuple[str, list[Rule]]]:
    """(topic title, its rules) in the table's order."""
    return [(title, [r for r in _RULES if r.topic == key]) for key, title in TOPICS.items()]


__all__ = ["RULES", "Rule", "TOPICS", "by_topic"]
