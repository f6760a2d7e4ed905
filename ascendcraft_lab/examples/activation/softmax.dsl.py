"""Row softmax in three sweeps (max, sum, normalise) because a row does not fit UB comfortably.

A 16384-float row is 64 KiB; double-buffering it in and out would take 256 KiB, more than the
~184 KiB of a 910B UB. So each row is read three times, tile by tile: the maximum (for a
numerically safe exp), the sum of exp(x - max), then exp(x - max) / sum. GM traffic is 3 reads
+ 1 write per element, the price of rows longer than UB.
"""


@host
def tiling(x: Tensor[f32, (B, N)]):
    cores = min(VECTOR_CORES, B)
    rows = cdiv(B, cores)
    cores = cdiv(B, rows)
    # 6 tile-sized buffers: xu and yu double-buffered (4) and 2 scratch tiles for
    # reduce_sum(exp(xu - m)) (the exp result plus ReduceSum's work tensor).
    tile = ub_elems(f32, live=3)
    return Launch(cores, rows=rows, tile=min(tile, N))


@kernel
def softmax(x: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):
    for r in core_rows(t.rows, B):
        m = -inf                               # scalars live on the scalar unit
        for c in tiles(N, t.tile):
            with copyin:
                xu = load(x[r, c])
            with compute:
                m = max(m, reduce_max(xu))
        s = 0.0
        for c in tiles(N, t.tile):
            with copyin:
                xu = load(x[r, c])
            with compute:
                s = s + reduce_sum(exp(xu - m))   # exp(xu - m) broadcasts the scalar m
        for c in tiles(N, t.tile):
            with copyin:
                xu = load(x[r, c])
            with compute:
                yu = exp(xu - m) / s
            with copyout:
                store(y[r, c], yu)
