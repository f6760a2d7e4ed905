"""mHC's pre-mapping: n streams mixed into a layer's input by coefficients computed from them.

h = sigmoid(alpha (W rmsnorm(flat x) + b)); out = sum_i h_i x_i. The projection is a product of
(T, n C) by (n C, n): the cube's work, and since the RMS scale is one number per token it can
wait: W (x / rms) = (W x) / rms. So the cube multiplies the raw streams (x read once, W through
L1), the vector cores take the product after `sync_all()`: one sweep over the token for its sum
of squares, the n coefficients as one small tile (a sigmoid of the scaled product plus the
bias), kept in a GM Workspace so the last sweep reads them back as scalars, and the weighted sum
of the streams, column tile by column tile. x is read three times in all (cube, squares, sum).
"""


@host
def tiling(x: Tensor[f32, (T, (N, C))], w: Tensor[f32, (N, N * C)], bias: Tensor[f32, (N,)]):
    base_m = min(128, align_up(cdiv(T, CUBE_CORES), 16))     # enough blocks of rows for the cube cores
    base_n = align_up(N, 16)
    base_k = min(256, align_up(N * C, 8))    # long K: fewer, larger copies (each costs its set-up)
    cube_cores = min(CUBE_CORES, cdiv(T, base_m))
    rows = cdiv(T, cube_cores)
    # xu and yu (x2 each), the running sum, a stream, the scratch of a line
    tile = ub_elems(f32, live=4)
    return Launch(cube_cores, base_m=base_m, base_n=base_n, base_k=base_k, rows=rows, tile=min(tile, C))


@kernel
def pre_mapping(
    x: GM[f32, (T, (N, C))],
    w: Param[f32, (N, N * C), "phi.weight"],
    bias: Param[f32, (N,), "phi.bias"],
    alpha: f32,
    eps: f32,
    y: Out[f32, (T, C)],
    xw: Workspace[f32, (T, N)],
    hw: Workspace[f32, (T, N)],
    t: Tiling,
):
    for mi, ni in core_tiles((T, N), (t.base_m, t.base_n)):
        acc = zeros(mi.len, ni.len, L0C)
        for ki in tiles(N * C, t.base_k):
            with copyin:
                a1 = load(x[mi, ki], L1)
                b1 = load(w[ni, ki], L1)
            with split:
                a0 = load(a1, L0A)
                b0 = load(b1, L0B, transpose=True)
            with compute:
                acc = mmad(a0, b0, acc)
        with copyout:
            store(xw[mi, ni], acc)                        # W x, before the RMS scale
    sync_all()
    for r in core_rows(t.rows, T):
        ss = 0.0
        for k in tiles(N * C, t.tile):
            with copyin:
                xu = load(x[r, k])
            with compute:
                ss = ss + reduce_sum(xu * xu)
        inv = rsqrt(ss / (N * C) + eps)
        with copyin:
            pu = load(xw[r, :])
            bu = load(bias[:])
        with compute:
            hu = sigmoid(alpha * (inv * pu + bu))        # the n coefficients of this token
        with copyout:
            store(hw[r, :], hu)
        barrier()                                          # stored before the scalar reads below
        for c in tiles(C, t.tile):
            with copyin:
                h = load(hw[r, 0])
                xi = load(x[r, c])
            with compute:
                s = h * xi
            for i in range(1, N):
                with copyin:
                    h = load(hw[r, i])
                    xi = load(x[r, i * C + c.start:i * C + c.start + c.len])
                with compute:
                    s = s + h * xi
            with compute:
                yu = s + 0.0
            with copyout:
                store(y[r, c], yu)
