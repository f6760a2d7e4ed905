"""Smooth L1: 0.5 d^2 / beta where |d| < beta, else |d| - beta / 2; the mean accumulates
into the scalar output from every core (see mse_loss)."""


@host
def tiling(p: Tensor[f32, (B, N)]):
    total = B * N
    chunk = align_up(cdiv(total, VECTOR_CORES), 8)
    cores = cdiv(total, chunk)
    # pu, qu double-buffered (4), d and l (2), and 2 scratch tiles: both branches of where()
    # are computed (vector units do not branch) while the mask is held. 8 buffers.
    tile = ub_elems(f32, live=8, buffers=1)
    return Launch(cores, chunk=chunk, tile=min(tile, chunk), inv_total=1.0 / total)


@kernel
def smooth_l1(p: GM[f32, ((B, N),)], q: GM[f32, ((B, N),)], beta: f32, loss: Out[f32, ()], t: Tiling):
    half_beta = 0.5 * beta
    inv_beta = 1.0 / beta
    for part in core_chunk(t.chunk, B * N):
        acc = 0.0
        for c in tiles(part, t.tile):
            with copyin:
                pu = load(p[c])
                qu = load(q[c])
            with compute:
                d = abs(pu - qu)
                l = where(d < beta, 0.5 * d * d * inv_beta, d - half_beta)
                acc = acc + reduce_sum(l)
        share = acc * t.inv_total
        with copyout:
            store(loss, share, accumulate=True)
