"""RMSNorm in two sweeps per row: sum of squares, then scale. Works for rows of any length."""


@host
def tiling(x: Tensor[f32, (B, N)]):
    cores = min(VECTOR_CORES, B)
    rows = cdiv(B, cores)
    cores = cdiv(B, rows)
    # 6 tile-sized buffers: xu, yu double-buffered (4) plus 2 scratch tiles for
    # reduce_sum(xu * xu) (the square and ReduceSum's work tensor).
    tile = ub_elems(f32, live=3)
    return Launch(cores, rows=rows, tile=min(tile, N), inv_n=1.0 / N)


@kernel
def rms_norm(x: GM[f32, (B, N)], eps: f32, y: Out[f32, (B, N)], t: Tiling):
    for r in core_rows(t.rows, B):
        ss = 0.0
        for c in tiles(N, t.tile):
            with copyin:
                xu = load(x[r, c])
            with compute:
                ss = ss + reduce_sum(xu * xu)
        scale = rsqrt(ss * t.inv_n + eps)       # one scalar per row, on the scalar unit
        for c in tiles(N, t.tile):
            with copyin:
                xu = load(x[r, c])
            with compute:
                yu = xu * scale                 # Muls
            with copyout:
                store(y[r, c], yu)
