"""y = x * s + w: a per-row factor s of shape (B, 1) and a one-element shift w of shape (1,).

A value per row is the other broadcast a vector unit needs. A repeat reads 8 blocks of 32 bytes
from each operand, and the block stride says how far apart they are; with block stride 0 all 8
blocks of a repeat are the same block. So the lowering first spreads each row's factor over a
32-byte block of its own with Brcb (8 values -> 8 blocks per repeat), then one Mul per 64 columns
covers up to REPEAT_ROWS rows: xu and yu move one row per repeat (repeat stride = the row pitch in
blocks), the spread factors one block per repeat (block stride 0, repeat stride 1).

The one-element w is loaded once per core, before any loop; Brcb spreads it over one block, read
with block stride 0 and repeat stride 0 by every repeat. `s[c, :]` loads the c.len factors of the
rows (one contiguous copy); they are one value per row, stored densely.
"""


@host
def tiling(x: Tensor[f32, (B, N)]):
    cores, per_core = core_split(B)
    cols = min(align_up(N, 8), 2040)         # a row's pitch is a repeat stride: at most 255 blocks
    # per row of a tile: xu and yu double-buffered (4 pitches) and the Brcb'd factors (one block
    # per row, well under a pitch); the factors themselves are one float per row
    tile_rows = max(ub_elems(f32, live=5, buffers=1) // cols, 1)
    return Launch(cores, per_core=per_core, cols=cols, tile_rows=min(tile_rows, per_core))


@kernel
def row_scale(x: GM[f32, (B, N)], s: GM[f32, (B, 1)], w: GM[f32, (1,)], y: Out[f32, (B, N)], t: Tiling):
    with copyin:
        wu = load(w[:])                                 # the one element, once per core
    for part in core_chunk(t.per_core, B):              # this core's rows
        for k in tiles(N, t.cols):                      # k: a tile of columns
            for c in tiles(part, t.tile_rows):          # c: a block of rows
                with copyin:
                    xu = load(x[c, k])                  # c.len rows of k.len: one strided copy
                    su = load(s[c, :])                  # one factor per row: [c.len x 1]
                with compute:
                    yu = xu * su + wu                   # Brcb, then block stride 0 for su and for wu
                with copyout:
                    store(y[c, k], yu)
