"""Sum over the last dim, many rows per tile: a tile of rows, one sum per row on the vector unit.

A 256-float row is only 1 KiB; moving rows one at a time would waste GM bandwidth (a transfer
reaches full speed from ~16 KiB) and cost one copy per row. So the leading dims are viewed as one
axis of rows and a tile holds `tile_rows` whole rows: `x[c, :]` is a 2-D tile of c.len rows of N,
brought in by ONE strided DataCopyPad (blockCount = rows, blockLen = a row's bytes). In UB each row
starts on a 32-byte block (its *row pitch* is N rounded up to 8 floats), because vector repeats
start on blocks and a repeat stride counts blocks. reduce_sum(xu, axis=1) then sums every row at
once: WholeReduceSum takes one row per repeat (repeat stride = the pitch), its mask covers the N
real columns so the padding never counts, and rows longer than one 256-byte repeat are first
folded into their first repeat with Add. The sums of a tile leave in one contiguous store.
"""


@host
def tiling(x: Tensor[f32, (B, M, N)]):
    rows = B * M
    cores, per_core = core_split(rows)
    # A row costs its pitch (N rounded up to 8 floats) in the input tile and one float of the sums,
    # both double-buffered, plus the pitch again for the fold's work tile.
    tile_rows = max(ub_elems(f32, live=1, buffers=1) // (3 * align_up(N, 8) + 2), 1)
    return Launch(cores, per_core=per_core, tile_rows=min(tile_rows, per_core))


@kernel
def sum_last(x: GM[f32, ((B, M), N)], y: Out[f32, ((B, M),)], t: Tiling):
    for part in core_chunk(t.per_core, B * M):          # this core's rows
        for c in tiles(part, t.tile_rows):              # c: a block of rows
            with copyin:
                xu = load(x[c, :])                      # c.len rows of N: one strided copy
            with compute:
                su = reduce_sum(xu, axis=1)             # one sum per row (WholeReduceSum)
            with copyout:
                store(y[c], su)
