"""A transposed 4x4 convolution, stride 2, padding 1 (a learned 2x upsampling), as the adjoint.

A transposed conv scatters: input i of an axis adds into outputs o = i * s - p + t * d. Read
from the output's side it is a gather: o reads input i = (o + p - t * d) / s when that is a
whole number inside the input. So the im2col phase is the forward one with one more mask per
axis: along H the `if`s skip rows whose (oh + 1 - kh) is odd or outside; along W the source
column is floor(num / 2) and a `where` keeps it only when num - 2 * src == 0.

The weight is [C, Kg, 4, 4]: for one input channel ci, w[ci] is a [Kg, 16] matrix, so the cube
steps K one input channel (16 taps) at a time: A = w[ci, mi, 0:16], B = col rows ci*16 ... +16.
Output size: (H - 1) * 2 - 2 + 3 + 1 = 2 H, written `H * 2`.
"""


@host
def tiling(x: Tensor[f32, (N, C, H, W)], w: Tensor[f32, (C, Kg, 4, 4)], bias: Tensor[f32, (KB,)]):
    OH = H * 2
    OW = W * 2
    P = OH * OW
    rows = N * C * 4 * OH
    cores = min(CUBE_CORES, rows)           # the im2col rows and the cube's blocks share the cores
    base_m = min(128, align_up(Kg, 16))
    base_n = min(128, align_up(P, 16))
    return Launch(cores, rows=cdiv(rows, cores), base_m=base_m, base_n=base_n, erows=cdiv(N * Kg, cores), tile=min(ub_elems(f32, live=3), P))


@kernel
def conv_transpose2d(
    x: GM[f32, ((N, C), H, W)],
    w: Param[f32, (C, Kg, (4, 4)), "conv.weight"],
    bias: Param[f32, (KB,), "conv.bias"],
    y: Out[f32, ((N, Kg), (H * 2, W * 2))],
    col: Workspace[f32, (N, C * 16, (H * 2) * (W * 2))],
    prod: Workspace[f32, (N, Kg, (H * 2) * (W * 2))],
    t: Tiling,
):
    OH = H * 2
    OW = W * 2
    for r in core_rows(t.rows, N * C * 4 * (H * 2)):
        oh = r % OH
        kh = (r // OH) % 4
        nc = ((r // OH) // 4)
        h0n = oh + 1 - kh
        if h0n >= 0:
            if h0n % 2 == 0:
                h0 = h0n // 2
                if h0 < H:
                    with copyin:
                        xu = load(x[nc, h0, :])
                    for kw in range(4):
                        with compute:
                            num = iota(OW) + (1 - kw)
                            src = floor(num / 2.0)
                            whole = num - src * 2.0 == 0.0
                            inside = abs(src - (W - 1) * 0.5) <= (W - 1) * 0.5
                            v = where(whole, where(inside, take(xu, cast(clamp(src, 0, W - 1), i32)), 0.0), 0.0)
                        with copyout:
                            store(col[nc // C, (nc % C) * 16 + kh * 4 + kw, oh * OW:oh * OW + OW], v)
    sync_all()
    for gi, mi, ni in core_tiles((N, Kg, (H * 2) * (W * 2)), (1, t.base_m, t.base_n)):
        acc = zeros(mi.len, ni.len, L0C)
        for ci in range(C):
            with copyin:
                a1 = load(w[ci, mi, 0:16], L1)
                b1 = load(col[gi.start, ci * 16:ci * 16 + 16, ni], L1)
            with split:
                a0 = load(a1, L0A)
                b0 = load(b1, L0B)
            with compute:
                acc = mmad(a0, b0, acc)
        with copyout:
            store(prod[gi.start, mi, ni], acc)
    sync_all()
    for q in core_rows(t.erows, N * Kg):
        for c in tiles((H * 2) * (W * 2), t.tile):
            with copyin:
                hu = load(prod[q // Kg, q % Kg, c])
                bu = load(bias[q % Kg])
            with compute:
                yu = hu + bu
            with copyout:
                store(y[q, c], yu)
