"""Cosine-similarity loss: per-row reductions, then a mean over the rows that every core adds to.

cos(p_r, t_r) = p.t / (max(|p|, eps) * max(|t|, eps)) with PyTorch's eps = 1e-8 on each norm.
Three sums per row (p.t, p.p, t.t) come from ONE sweep over the row's tiles: both rows are read
once. A 4096-float row is 16 KiB, a contiguous copy long enough to move at full speed, so rows go
one at a time (short rows would be batched into tiles instead: see cross_entropy).

The cosine itself is scalar work, once per row: max(|p|, eps) * max(|t|, eps) is
sqrt(max(p.p, eps^2) * max(t.t, eps^2)), one square root (a round trip through the vector unit:
the scalar unit has none) instead of two.

Cores split the rows; a core keeps the running sum of its rows' 1 - cos and adds its share, already
divided by B, into the scalar output (store with accumulate=True: SetAtomicAdd; see mse_loss).
"""


@host
def tiling(p: Tensor[f32, (B, N)]):
    cores = min(VECTOR_CORES, B)
    rows = cdiv(B, cores)
    cores = cdiv(B, rows)
    # pu and tu double-buffered (4) and 2 scratch tiles for reduce_sum(pu * tu) (the product and
    # ReduceSum's work tensor): 6 tile buffers.
    tile = ub_elems(f32, live=3)
    return Launch(cores, rows=rows, tile=min(tile, N), inv_rows=1.0 / B)


@kernel
def cosine_similarity_loss(p: GM[f32, (B, N)], q: GM[f32, (B, N)], loss: Out[f32, ()], t: Tiling):
    acc = 0.0                                   # sum of 1 - cos over this core's rows
    for r in core_rows(t.rows, B):
        pq = 0.0
        pp = 0.0
        qq = 0.0
        for c in tiles(N, t.tile):
            with copyin:
                pu = load(p[r, c])
                qu = load(q[r, c])
            with compute:
                pq = pq + reduce_sum(pu * qu)
                pp = pp + reduce_sum(pu * pu)
                qq = qq + reduce_sum(qu * qu)
        with compute:
            acc = acc + 1.0 - pq / sqrt(max(pp, 1e-16) * max(qq, 1e-16))
    share = acc * t.inv_rows
    with copyout:
        store(loss, share, accumulate=True)
