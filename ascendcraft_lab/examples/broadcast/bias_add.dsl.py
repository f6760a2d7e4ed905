"""A bias add, y = x + b with b of shape (N,) against x of shape (B, N): b is loaded once and reused.

PyTorch broadcasts b over the rows; a kernel must never build that broadcast tensor in GM (it
would read B times more bias than there is). Here each core loads a column tile of b once and
every block of rows reuses it:

  - `x[c, k]` is a 2-D tile of c.len rows x k.len columns, brought in by ONE strided DataCopyPad
    (blockCount = rows, blockLen = a row's bytes, srcStride = the GM gap to the next row); in UB
    each row starts on a 32-byte block, so rows are `pitch` = align_up(k.len, 8) floats apart.
  - `xu + bu` is one Add per 64 columns over up to REPEAT_ROWS rows: a repeat takes 256 bytes of
    one row, xu and yu move one row per repeat (repeat stride = the pitch in blocks), bu's repeat
    stride is 0, so every row reads the same 256 bytes of the bias.

A row's pitch must fit a repeat stride (255 blocks = 2040 f32), so long rows are split into column
tiles `k`; the bias tile of a column tile is loaded once per core and column tile.
"""


@host
def tiling(x: Tensor[f32, (B, N)]):
    cores, per_core = core_split(B)
    cols = min(align_up(N, 8), 2040)         # a row's pitch is a repeat stride: at most 255 blocks
    tile_rows = fit_rows(f32, cols)          # the compiler counts xu, yu (x2 each) and the bias row
    return Launch(cores, per_core=per_core, cols=cols, tile_rows=min(tile_rows, per_core))


@kernel
def bias_add(x: GM[f32, (B, N)], b: GM[f32, (N,)], y: Out[f32, (B, N)], t: Tiling):
    for part in core_chunk(t.per_core, B):              # this core's rows
        for k in tiles(N, t.cols):                      # k: a tile of columns
            with copyin:
                bu = load(b[k])                         # the bias of these columns, once per core and k
            for c in tiles(part, t.tile_rows):          # c: a block of rows
                with copyin:
                    xu = load(x[c, k])                  # c.len rows of k.len: one strided copy
                with compute:
                    yu = xu + bu                        # bu read with repeat stride 0: the same for every row
                with copyout:
                    store(y[c, k], yu)                  # one strided copy back
