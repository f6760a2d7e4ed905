"""A 3x3x3 convolution with padding 1 and stride (1, 2, 2): the same three phases in 3-d.

The unit of im2col work is one input row x[n, c, d, h, :]: the batch-channel, the taps (kd, kh)
and the output coordinates (od, oh) pick it; a row in the padding along D or H is skipped. The
column index of col is (od * OH + oh) * OW: the positions are NCDHW's (od, oh, ow), so the cube's
product [K, P] is y's layout as it is, and no layout changes anywhere. K = C * 27.
"""


@host
def tiling(x: Tensor[f32, (N, C, D, H, W)], w: Tensor[f32, (K, Cg, 3, 3, 3)], bias: Tensor[f32, (KB,)]):
    OD = D
    OH = (H - 1) // 2 + 1
    OW = (W - 1) // 2 + 1
    P = OD * OH * OW
    rows = N * C * 3 * 3 * OD * OH
    cores = min(CUBE_CORES, rows)           # the im2col rows and the cube's blocks share the cores
    base_m = min(128, align_up(K, 16))
    base_n = min(128, align_up(P, 16))
    base_k = min(64, align_up(C * 27, 8))
    return Launch(cores, rows=cdiv(rows, cores), base_m=base_m, base_n=base_n, base_k=base_k, erows=cdiv(N * K, cores), tile=min(ub_elems(f32, live=3), P))


@kernel
def conv3d(
    x: GM[f32, ((N, C), D, H, W)],
    w: Param[f32, (K, (Cg, 3, 3, 3)), "conv.weight"],
    bias: Param[f32, (KB,), "conv.bias"],
    y: Out[f32, ((N, K), (D, (H - 1) // 2 + 1, (W - 1) // 2 + 1))],
    col: Workspace[f32, (N, C * 27, D * ((H - 1) // 2 + 1) * ((W - 1) // 2 + 1))],
    prod: Workspace[f32, (N, K, D * ((H - 1) // 2 + 1) * ((W - 1) // 2 + 1))],
    t: Tiling,
):
    OD = D
    OH = (H - 1) // 2 + 1
    OW = (W - 1) // 2 + 1
    for r in core_rows(t.rows, N * C * 3 * 3 * D * ((H - 1) // 2 + 1)):
        oh = r % OH
        od = (r // OH) % OD
        kh = ((r // OH) // OD) % 3
        kd = (((r // OH) // OD) // 3) % 3
        nc = ((((r // OH) // OD) // 3) // 3)
        d0 = od - 1 + kd
        if d0 >= 0:
            if d0 < D:
                h1 = oh * 2 - 1 + kh
                if h1 >= 0:
                    if h1 < H:
                        with copyin:
                            xu = load(x[nc, d0, h1, :])
                        for kw in range(3):
                            with compute:
                                src = iota(OW) * 2.0 + (kw - 1)
                                inside = abs(src - (W - 1) * 0.5) <= (W - 1) * 0.5
                                v = where(inside, take(xu, cast(clamp(src, 0, W - 1), i32)), 0.0)
                            with copyout:
                                store(col[nc // C, (nc % C) * 27 + kd * 9 + kh * 3 + kw, (od * OH + oh) * OW:(od * OH + oh) * OW + OW], v)
    sync_all()
    for gi, mi, ni in core_tiles((N, K, D * ((H - 1) // 2 + 1) * ((W - 1) // 2 + 1)), (1, t.base_m, t.base_n)):
        acc = zeros(mi.len, ni.len, L0C)
        wr = mi.start
        for ki in tiles(C * 27, t.base_k):
            with copyin:
                a1 = load(w[wr:wr + mi.len, ki], L1)
                b1 = load(col[gi.start, ki, ni], L1)
            with split:
                a0 = load(a1, L0A)
                b0 = load(b1, L0B)
            with compute:
                acc = mmad(a0, b0, acc)
        with copyout:
            store(prod[gi.start, mi, ni], acc)
    sync_all()
    for q in core_rows(t.erows, N * K):
        for c in tiles(D * ((H - 1) // 2 + 1) * ((W - 1) // 2 + 1), t.tile):
            with copyin:
                hu = load(prod[q // K, q % K, c])
                bu = load(bias[q % K])
            with compute:
                yu = hu + bu
            with copyout:
                store(y[q, c], yu)
