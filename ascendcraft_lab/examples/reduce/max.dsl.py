"""Max over the last dim, many rows per tile (as sum_last): a 2-D tile of whole rows, one
WholeReduceMax per group of rows on the vector unit.

The row maxima come from repeat-form instructions that take one row per repeat: the repeat
stride is the row pitch in 32-byte blocks, and the mask covers the N real columns, so the zeros
DataCopyPad wrote into each row's padding can never win the max.
"""


@host
def tiling(x: Tensor[f32, (B, M, N)]):
    rows = B * M
    cores, per_core = core_split(rows)
    # per row: its pitch in the input tile and one max, double-buffered, and the fold's work pitch
    tile_rows = max(ub_elems(f32, live=1, buffers=1) // (3 * align_up(N, 8) + 2), 1)
    return Launch(cores, per_core=per_core, tile_rows=min(tile_rows, per_core))


@kernel
def max_last(x: GM[f32, ((B, M), N)], y: Out[f32, ((B, M),)], t: Tiling):
    for part in core_chunk(t.per_core, B * M):
        for c in tiles(part, t.tile_rows):
            with copyin:
                xu = load(x[c, :])                      # c.len rows of N, one strided copy
            with compute:
                mu = reduce_max(xu, axis=1)             # WholeReduceMax per row
            with copyout:
                store(y[c], mu)
