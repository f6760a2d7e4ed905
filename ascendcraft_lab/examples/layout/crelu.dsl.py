"""y = cat([relu(x), relu(-x)], dim=1): a concatenation is stores at offsets, never a copy of its own.

Each half of a row of y is a run of N floats, so a tile of y's columns is a strided copy like a
tile of x's: `store(y[c, k], left)` writes rows of k.len floats N + N apart in GM (DataCopyPad's
dstStride = the GM gap to the next row, here the other half and the rest of this one), and
`store(y[c, k.start + N:...], right)` the same tile of the second half, the destination address moved
by N floats. The input tile is loaded once and feeds both halves: the concatenation costs no extra
read, and no part of y is written twice.
"""


@host
def tiling(x: Tensor[f32, (B, N)]):
    cores = min(VECTOR_CORES, B)
    per_core = cdiv(B, cores)
    cores = cdiv(B, per_core)
    cols = min(align_up(N, 8), 2040)         # a row's pitch is a repeat stride: at most 255 blocks
    # per row of a tile: xu, left and right, double-buffered (6 pitches)
    tile_rows = max(ub_elems(f32, live=6, buffers=1) // cols, 1)
    return Launch(cores, per_core=per_core, cols=cols, tile_rows=min(tile_rows, per_core))


@kernel
def crelu(x: GM[f32, (B, N)], y: Out[f32, (B, 2 * N)], t: Tiling):
    for part in core_chunk(t.per_core, B):              # this core's rows
        for k in tiles(N, t.cols):                      # k: a tile of x's columns
            for c in tiles(part, t.tile_rows):          # c: a block of rows
                with copyin:
                    xu = load(x[c, k])                  # one strided copy, read once for both halves
                with compute:
                    left = relu(xu)
                    right = relu(-xu)
                with copyout:
                    store(y[c, k], left)                                  # the first half: columns k of y
                    store(y[c, k.start + N:k.start + N + k.len], right)   # the second half: N columns further
