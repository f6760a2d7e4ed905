"""Sum over the last dim, many rows per tile: a row is one window of N elements.

A 256-float row is only 1 KiB; moving rows one at a time would waste GM bandwidth (a transfer
reaches full speed from ~16 KiB). So the tensor is viewed flat, a tile holds `tile_rows` whole
rows, and window_sum with k = stride = N gives one sum per row (WholeReduceSum per row on the
vector unit). The sums of a tile leave in one contiguous store.
"""


@host
def tiling(x: Tensor[f32, (B, M, N)]):
    rows = B * M
    cores = min(VECTOR_CORES, rows)
    per_core = cdiv(rows, cores)
    cores = cdiv(rows, per_core)
    # Each row costs N input floats plus 1 output float, both double-buffered: a tile of
    # `tile_rows` rows needs 2 * tile_rows * (N + 1) floats.
    tile_rows = max(ub_elems(f32, live=1) // (N + 1), 1)
    return Launch(cores, per_core=per_core, tile_rows=min(tile_rows, per_core))


@kernel
def sum_last(x: GM[f32, ((B, M, N),)], y: Out[f32, ((B, M),)], t: Tiling):
    for part in core_chunk(t.per_core, B * M):          # this core's rows
        for c in tiles(part, t.tile_rows):              # c: a block of rows
            with copyin:
                xu = load(x[windows(c, N, N)])          # rows c.start .. c.start + c.len, whole
            with compute:
                su = window_sum(xu, N, N)               # one sum per row
            with copyout:
                store(y[c], su)
