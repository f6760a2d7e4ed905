"""Max over the last dim, many rows per tile (as sum_last): window_max with k = stride = N."""


@host
def tiling(x: Tensor[f32, (B, M, N)]):
    rows = B * M
    cores = min(VECTOR_CORES, rows)
    per_core = cdiv(rows, cores)
    cores = cdiv(rows, per_core)
    # 2 * tile_rows * (N + 1) floats: input rows and their maxima, double-buffered.
    tile_rows = max(ub_elems(f32, live=1) // (N + 1), 1)
    return Launch(cores, per_core=per_core, tile_rows=min(tile_rows, per_core))


@kernel
def max_last(x: GM[f32, ((B, M, N),)], y: Out[f32, ((B, M),)], t: Tiling):
    for part in core_chunk(t.per_core, B * M):
        for c in tiles(part, t.tile_rows):
            with copyin:
                xu = load(x[windows(c, N, N)])
            with compute:
                mu = window_max(xu, N, N)               # WholeReduceMax per row
            with copyout:
                store(y[c], mu)
