"""Expert examples: per category, a PyTorch reference (KernelBench format) beside its DSL kernel;
CASE_EXAMPLES: NPUKernelBench-format ones, one generic kernel for every case.

`EXAMPLES` is the catalog read by the tests, the bench and the drafter. Each example's
`tail_overrides` are module constants of the reference that give a tail shape: sizes that are
not multiples of the tile or of 32 bytes (and, where a loop carries state across tiles, long
enough for several tiles), so the check covers ragged last tiles and idle cores.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Example:
    category: str
    op: str
    reference: Path          # <category>/<op>.py
    dsl: Path                # <category>/<op>.dsl.py
    tail_overrides: dict = field(default_factory=dict, hash=False)
    about: str = ""          # one line: what the example teaches

    @property
    def name(self) -> str:
        return f"{self.category}/{self.op}"


def _ex(category: str, op: str, tail: dict, about: str) -> Example:
    return Example(category, op, ROOT / category / f"{op}.py", ROOT / category / f"{op}.dsl.py", tail, about)


EXAMPLES: list[Example] = [
    _ex("activation", "gelu", {"batch_size": 50, "dim": 20011},
        "rows over cores, tiles along a row, a function AscendC lacks (tanh) left to the lowering"),
    _ex("activation", "softmax", {"batch_size": 7, "dim": 20011},
        "rows longer than UB: three sweeps (max, sum, normalise) with scalar carries"),
    _ex("normalization", "layer_norm", {"batch_size": 100, "features": 1003},
        "a row that fits UB, Model parameters (Param[...]) loaded once per core"),
    _ex("normalization", "rms_norm", {"batch_size": 37, "dim": 9001},
        "two sweeps per row for any row length; a scalar parameter from get_init_inputs"),
    _ex("normalization", "batch_norm", {"batch_size": 5, "features": 13, "dim1": 37, "dim2": 45},
        "statistics over non-adjacent axes: cores split channels, each channel walked plane by plane"),
    _ex("normalization", "group_norm", {"batch_size": 5, "features": 12, "num_groups": 4, "dim1": 37, "dim2": 45},
        "statistics per group of adjacent channel planes; per-channel weights loaded as scalars per plane"),
    _ex("normalization", "frobenius_norm", {"batch_size": 5, "features": 13, "dim1": 37, "dim2": 45},
        "one sum over the whole tensor: partial sums atomically into a GM workspace, then sync_all()"),
    _ex("optimizer", "sgd", {"n_params": 100003},
        "a flat vector in 32-byte aligned per-core chunks; two outputs"),
    _ex("optimizer", "adam", {"n_params": 100003},
        "step-dependent scalars computed on the host and passed through the tiling struct"),
    _ex("reduce", "sum", {"dim1": 37, "dim2": 1003},
        "many short rows per tile: a 2-D tile of rows (one strided DataCopyPad), reduce_sum(xu, axis=1) "
        "by WholeReduceSum per row"),
    _ex("reduce", "max", {"dim1": 37, "dim2": 1003},
        "as sum, with reduce_max(xu, axis=1) (WholeReduceMax per row)"),
    _ex("pooling", "avg_pool1d", {"input_length": 1003},
        "tiles over the output, windows(c, k, s) loads exactly the inputs those windows read"),
    _ex("pooling", "max_pool1d", {"sequence_length": 1003, "kernel_size": 3, "stride": 2},
        "as avg_pool1d; the tail shape also has overlapping windows (k > s)"),
    _ex("pooling", "max_pool2d", {"channels": 5, "height": 37, "width": 45},
        "padding, dilation and ceil mode: rows of the window combined, then one padded, gathered window op"),
    _ex("pooling", "avg_pool3d", {"channels": 3, "depth": 13, "height": 11, "width": 29},
        "a k x k tap loop over the rows inside the input, window_sum with padding, count_include_pad"),
    _ex("math", "cumsum", {"batch_size": 37, "dim": 30011},
        "a scan continued across tiles through a scalar carry"),
    _ex("math", "where_clamp", {"batch_size": 7, "dim": 1003},
        "comparison mask, where and clamp on a flat view of the tensors"),
    _ex("loss", "mse_loss", {"batch_size": 37, "input_shape": (1003,)},
        "per-core partial sums accumulated atomically into a scalar output"),
    _ex("loss", "smooth_l1", {"batch_size": 37, "input_shape": (1003,), "beta": 0.5},
        "both branches of where() computed, then a reduction and an accumulating store"),
    _ex("loss", "cross_entropy", {"batch_size": 60007, "num_classes": 7},
        "short rows batched into a 2-D tile: per-row max and sum by WholeReduce, the row max broadcast "
        "back by Brcb and block stride 0, pick (the target logit) by a vector Gather, int64 targets cast "
        "to i32; several tiles per core"),
    _ex("loss", "cosine_similarity_loss", {"batch_size": 37, "input_dim": 20011},
        "three sums per row in one sweep, the row's cosine on the scalar unit, then a mean over rows "
        "accumulated atomically"),
    _ex("loss", "triplet_margin_loss", {"batch_size": 37, "input_dim": 20011, "margin": 0.5},
        "two distances per row in one sweep (eps added to the difference, as PyTorch does), a hinge "
        "with a get_init_inputs margin, a mean over rows"),
    _ex("matmul", "matmul", {"N": 333},
        "the cube: base tiles chosen on the host, GM -> L1 -> L0A / L0B -> mmad -> L0C over K slices -> GM, "
        "blocks round-robin over the cube cores, short last tiles padded to whole fractals"),
    _ex("matmul", "batched_matmul_bt", {"batch": 3, "M": 100, "K": 72, "N": 150},
        "a batched grid of blocks, B given transposed ([N, K], no transpose needed), f16 in, f32 sums, f16 out"),
    _ex("matmul", "matvec", {"M": 37, "K": 20011},
        "a matrix times a vector on the vector unit (the cube would pad the vector to 16 columns for nothing)"),
    _ex("matmul", "linear_relu", {"batch_size": 130, "in_features": 300, "out_features": 200},
        "the cube multiplies, a GM workspace and sync_all() hand the product to the vector unit for bias + relu"),
    _ex("mhc", "pre_mapping", {"tokens": 37, "hidden": 520},
        "mHC's pre-mapping: the projection on the cube before the RMS scale (W (x / rms) = (W x) / rms), the "
        "coefficients as one small tile, kept in a Workspace and read back as scalars for the weighted sum"),
    _ex("mhc", "post_mapping", {"tokens": 37, "hidden": 520},
        "mHC's post-mapping: a row of the n x n mix as an (n, 1) tile, so one Mul and one fold of rows mix a "
        "token's streams; x and f read once"),
    _ex("mhc", "residual_sinkhorn", {"tokens": 37},
        "Sinkhorn-Knopp on every token's n x n matrix in UB: row and column sums as Gathers at computed "
        "offsets (iota, floor, clamp), a loop of vector stages, GM read and written once"),
    _ex("broadcast", "bias_add", {"batch_size": 37, "dim": 5003},
        "a bias (N,) against (B, N): 2-D tiles by one strided copy, the bias tile loaded once per core "
        "and column tile and read by every row with repeat stride 0"),
    _ex("broadcast", "row_scale", {"batch_size": 37, "dim": 3001},
        "a per-row factor (B, 1) spread by Brcb and read with block stride 0; a one-element tensor "
        "loaded once per core"),
    _ex("index", "gather", {"batch_size": 37, "dim": 1003, "picks": 20011},
        "torch.gather along a row: the row whole in UB, int64 indices cast to i32 byte offsets, one vector "
        "Gather per tile (take); an out-of-range index is an emulator finding at the take line"),
    _ex("index", "embedding", {"batch_size": 3, "seq_len": 37, "num_embeddings": 1003, "embedding_dim": 20011},
        "nn.Embedding: the token read as a scalar from GM addresses the copy-in of its weight row (the Model's "
        "Param); a token past the table is a gm-out-of-bounds finding at the load line"),
    _ex("resize", "upsample_nearest", {"batch_size": 3, "channels": 5, "height": 37, "width": 45},
        "nearest upsampling: the source row a scalar of the output row, the source columns vector arithmetic "
        "on CreateVecIndex (iota) and one vector Gather (take) per column tile"),
    _ex("resize", "bilinear", {"batch_size": 3, "channels": 5, "height": 37, "width": 45},
        "bilinear by a non-integer scale: two source rows blended once per output row (separable), two "
        "Gathers and a lerp per column tile, PyTorch's 1 / scale_factor on the host"),
    _ex("resize", "antialias", {"batch_size": 3, "channels": 1, "height": 47, "width": 101},
        "anti-aliased downscaling: a filter as wide as the scale, a scalar loop of row loads along H and a "
        "loop of Gathers along W, taps past the row weighted 0 and read clamped"),
    _ex("layout", "crop_bias", {"batch_size": 37, "dim": 3011, "width": 2971},
        "a slice of the last axis: one strided copy whose source starts at the crop's first column, the GM "
        "gap to the next row as srcStride; the crop then reads like whole rows"),
    _ex("layout", "crelu", {"batch_size": 37, "dim": 2045},
        "torch.cat as stores at offsets: each half of the output row a strided copy (dstStride = the other "
        "half), the input tile loaded once for both"),
    _ex("layout", "transpose", {"batch_size": 3, "rows": 77, "cols": 131},
        "a transpose that moves the last axis: a block of rows in by one strided copy, transposed in UB by one "
        "vector Gather at computed offsets (transpose), out by one strided copy into rows M apart"),
    _ex("layout", "pad_reflect", {"batch_size": 3, "channels": 1, "height": 5, "width": 37},
        "padding reorders a row on chip: the source row loaded whole, the source columns computed on the vector "
        "unit from iota, one Gather reads them (reflect here; replicate, circular, constant, flip and roll alike)"),
    _ex("sort", "topk", {"batch_size": 13, "dim": 1003, "k": 37},
        "Sort32 groups of 32, MrgSort rounds of four queues, Extract: top-k positions, values by Gather"),
    _ex("sort", "sort_stable", {"batch_size": 13, "dim": 1003},
        "an ascending, stable fp16 sort: negated scores; equal values keep their order (ties in fp16 randn)"),
    _ex("datadep", "histc", {"batch_size": 3, "dim": 1003, "bins": 37},
        "a histogram without a scatter: per bin a Compare + Select + ReduceSum count, added atomically across cores"),
    _ex("datadep", "repeat_interleave", {"batch_size": 5, "dim": 1003, "repeats": 4},
        "output addresses computed on the vector unit: one Gather repeats every element in place"),
]

CATEGORIES: tuple[str, ...] = tuple(dict.fromkeys(e.category for e in EXAMPLES))

# Examples in NPUKernelBench format: the reference's get_input_groups() reads `<op>.json` beside
# it, and the kernel is generic over the cases' dtypes (T) and ranks (dim packs). Kept apart
# from EXAMPLES, whose readers (goldens, prompts, the demo) take KernelBench-format references.
CASE_EXAMPLES: list[Example] = [
    _ex("normalization", "rms_norm_cases", {},
        "one kernel for every case: T over f32/f16/bf16 (half types computed in f32), (*S, N) for any "
        "rank, a per-case eps attribute, empty batches that never launch, rows longer than the tile"),
    _ex("activation", "gelu_backward_cases", {},
        "an activation's backward (aten.gelu_backward, tanh form): two inputs streamed in one chunk, (*S,) for "
        "0-d to 5-d cases, T over f32/f16/bf16, shared subexpressions named once"),
    _ex("reduce", "sum_cases", {},
        "a reduction for every case: whole rows per core swept tile by tile into a scalar (rows of 1 to 50003 "
        "elements, where a 2-D tile's pitch would pass a repeat stride), T over f32/f16/bf16 summed in f32, "
        "(*S, N) -> (*S,) for any rank"),
]


def get_example(op: str) -> Example:
    """An example by op name (`"gelu"`) or by `category/op`."""
    for e in EXAMPLES:
        if op in (e.op, e.name):
            return e
    raise KeyError(f"no example {op!r}; known: {', '.join(e.name for e in EXAMPLES)}")


def by_category(category: str) -> list[Example]:
    return [e for e in EXAMPLES if e.category == category]


__all__ = ["Example", "EXAMPLES", "CASE_EXAMPLES", "CATEGORIES", "get_example", "by_category", "ROOT"]
