"""Reflection padding: every output element is one input element, found by an index map per axis.

Output (oh, ow) reads input (h, w) with h = reflect(oh - 2, H), w = reflect(ow - 3, W), where
reflect(u, n) = (n - 1) - |(n - 1) - |u||: indices before the image bounce off its first row or
column, indices past it off its last (PyTorch's mode="reflect": the edge itself is not repeated).

Along H the map is scalar arithmetic on the output row, so each output row reads one source row:
copied into UB whole by one DataCopyPad from the GM address the scalar unit computes. Along W the
elements must be *reordered* within the row (the left border reads columns 3, 2, 1), and a DataCopy
only moves runs forwards. So the tile's source columns are computed on the vector unit from its
output columns (CreateVecIndex: `iota`), in f32 (exact below 2^24), and one vector Gather (`take`)
reads them from the row in UB at byte offsets. The same pattern serves every pad mode (replicate:
a clamp; circular: a wrap; constant: a clamp plus a Select of the value outside), torch.flip within
a row ((W - 1) - w) and torch.roll.

The vector work runs over whole 256-byte repeats, so lanes past c.len hold indices too: the last
clamp keeps them inside the row (a Gather reading past its source would read a neighbouring buffer).
"""


@host
def tiling(x: Tensor[f32, (N, C, H, W)]):
    cores, per_core = core_split(N * C * (H + 4))     # one output row per (plane, oh)
    tile = fit_tile(f32)
    return Launch(cores, rows=per_core, tile=min(tile, W + 6))


@kernel
def pad_reflect(x: GM[f32, ((N, C), H, W)], y: Out[f32, ((N, C), H + 4, W + 6)], t: Tiling):
    for r in core_rows(t.rows, N * C * (H + 4)):
        p = r // (H + 4)
        oh = r % (H + 4)
        d = max(oh - 2, 2 - oh)                       # |oh - 2|
        h = H - 1 - max(H - 1 - d, d - (H - 1))       # the source row, reflected at both ends
        with copyin:
            xu = load(x[p, h, :])                     # the whole source row, read by every column tile
        for c in tiles(W + 6, t.tile):
            with compute:
                col = iota(c.len, c.start)            # the tile's output columns
                src = (W - 1) - abs((W - 1) - abs(col - 3.0))
                src = clamp(src, 0, W - 1)            # lanes past the tile stay in the row
                yu = take(xu, cast(src, i32))         # one vector Gather: each lane reads its source column
            with copyout:
                store(y[p, oh, c], yu)
