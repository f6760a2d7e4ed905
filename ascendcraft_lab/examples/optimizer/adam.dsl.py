"""Adam over a flat parameter vector; the step-dependent scalars are computed once on the host."""


@host
def tiling(p: Tensor[f32, (N,)], step: i32, lr: f32, beta1: f32, beta2: f32):
    chunk = align_up(cdiv(N, VECTOR_CORES), 8)      # 32-byte aligned per-core offsets
    cores = cdiv(N, chunk)
    # 16 tile-sized buffers: 4 queues in and 3 out, double-buffered (14), `denom` (1), and
    # one scratch tile for the two-product lines (mn, vn).
    tile = ub_elems(f32, live=8)
    # Bias corrections depend only on the step: host math, passed in the tiling struct.
    step_size = lr / (1.0 - pow(beta1, step))
    bc2_sqrt = pow(1.0 - pow(beta2, step), 0.5)
    return Launch(cores, chunk=chunk, tile=min(tile, chunk), step_size=step_size, bc2_sqrt=bc2_sqrt)


@kernel
def adam(
    p: GM[f32, (N,)],
    g: GM[f32, (N,)],
    m: GM[f32, (N,)],
    v: GM[f32, (N,)],
    step: i32,
    lr: f32,
    beta1: f32,
    beta2: f32,
    eps: f32,
    p_out: Out[f32, (N,)],
    m_out: Out[f32, (N,)],
    v_out: Out[f32, (N,)],
    t: Tiling,
):
    for part in core_chunk(t.chunk, N):
        for c in tiles(part, t.tile):
            with copyin:
                pu = load(p[c])
                gu = load(g[c])
                mu = load(m[c])
                vu = load(v[c])
            with compute:
                mn = mu * beta1 + gu * (1.0 - beta1)
                vn = vu * beta2 + gu * gu * (1.0 - beta2)
                denom = sqrt(vn) / t.bc2_sqrt + eps    # a tile / scalar is Muls by the reciprocal
                pn = pu - t.step_size * mn / denom
            with copyout:
                store(p_out[c], pn)
                store(m_out[c], mn)
                store(v_out[c], vn)
