"""A depthwise 3x3 convolution, stride 2 (MobileNet): groups = channels.

Each channel is its own group: y[n, g] (1 x P) = W[g] (1 x 9) @ col[n, g] (9 x P). The im2col
phase is the 2-d one (a strided source column: `iota(OW) * 2.0 + (kw - 1)`, rows of the
padding skipped), and the cube's grid is (N * groups, K / groups, P): one block row per
(image, channel), the weight rows of group g at an offset (`wr`), the result stored straight
into y's rows of that group (no bias: no epilogue phase). A depthwise conv keeps the cube mostly
idle (M = 1 of 16 rows, K = 9 of a fractal): the price of one route for every conv; a vector-
only depthwise kernel (9 multiply-adds per output row) is the faster form to add next.
"""


@host
def tiling(x: Tensor[f32, (N, C, H, W)], w: Tensor[f32, (K, Cg, 3, 3)]):
    OH = (H - 1) // 2 + 1
    OW = (W - 1) // 2 + 1
    P = OH * OW
    rows = N * C * 3 * OH
    cores = min(CUBE_CORES, rows)           # the im2col rows and the cube's blocks share the cores
    base_m = min(128, align_up(K // 24, 16))
    base_n = min(128, align_up(P, 16))
    base_k = min(64, align_up(C // 24 * 9, 8))
    return Launch(cores, rows=cdiv(rows, cores), base_m=base_m, base_n=base_n, base_k=base_k)


@kernel
def depthwise_conv2d(
    x: GM[f32, ((N, C), H, W)],
    w: Param[f32, (K, (Cg, 3, 3)), "conv.weight"],
    y: Out[f32, ((N, K), ((H - 1) // 2 + 1, (W - 1) // 2 + 1))],
    col: Workspace[f32, (N * 24, C // 24 * 9, ((H - 1) // 2 + 1) * ((W - 1) // 2 + 1))],
    t: Tiling,
):
    OH = (H - 1) // 2 + 1
    OW = (W - 1) // 2 + 1
    for r in core_rows(t.rows, N * C * 3 * ((H - 1) // 2 + 1)):
        oh = r % OH
        kh = (r // OH) % 3
        nc = ((r // OH) // 3)
        h0 = oh * 2 - 1 + kh
        if h0 >= 0:
            if h0 < H:
                with copyin:
                    xu = load(x[nc, h0, :])
                for kw in range(3):
                    with compute:
                        src = iota(OW) * 2.0 + (kw - 1)
                        inside = abs(src - (W - 1) * 0.5) <= (W - 1) * 0.5
                        v = where(inside, take(xu, cast(clamp(src, 0, W - 1), i32)), 0.0)
                    with copyout:
                        store(col[nc // (C // 24), (nc % (C // 24)) * 9 + kh * 3 + kw, oh * OW:oh * OW + OW], v)
    sync_all()
    for gi, mi, ni in core_tiles((N * 24, K // 24, ((H - 1) // 2 + 1) * ((W - 1) // 2 + 1)), (1, t.base_m, t.base_n)):
        acc = zeros(mi.len, ni.len, L0C)
        yr = gi.start * (K // 24) + mi.start
        wr = (gi.start % 24) * (K // 24) + mi.start
        for ki in tiles((C // 24) * 9, t.base_k):
            with copyin:
                a1 = load(w[wr:wr + mi.len, ki], L1)
                b1 = load(col[gi.start, ki, ni], L1)
            with split:
                a0 = load(a1, L0A)
                b0 = load(b1, L0B)
            with compute:
                acc = mmad(a0, b0, acc)
        with copyout:
            store(y[yr:yr + mi.len, ni], acc)
