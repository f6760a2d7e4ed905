"""nn.GRU over a sequence: the LSTM example's schedule with a GRU cell.

One cube launch projects every step's input (x_t @ W_ih^T for the three gates r, z, n at once);
then each step launches `matmul_bt` for h_{t-1} @ W_hh^T and `gru_cell` on the vector cores, which
adds the biases, applies the gates (n's reset gate multiplies the hidden projection with its bias,
as PyTorch defines it) and writes the new state into the other half of `hc` and into y[s].
"""


@host
def mm_tiling(x: Tensor[f32, (M, K)], w: Tensor[f32, (N, K)]):
    base_m = min(128, align_up(M, 16))
    base_n = min(128, align_up(N, 16))
    base_k = min(64, align_up(K, 8))          # B^T is not transposed in the split: K steps in f32 fractals of 8
    cores = min(CUBE_CORES, cdiv(M, base_m) * cdiv(N, base_n))
    return Launch(cores, base_m=base_m, base_n=base_n, base_k=base_k)


@kernel
def matmul_bt(x: GM[f32, (M, K)], w: GM[f32, (N, K)], y: Out[f32, (M, N)], t: Tiling):
    for mi, ni in core_tiles((M, N), (t.base_m, t.base_n)):
        acc = zeros(mi.len, ni.len, L0C)
        for ki in tiles(K, t.base_k):
            with copyin:
                a1 = load(x[mi, ki], L1)
                b1 = load(w[ni, ki], L1)
            with split:
                a0 = load(a1, L0A)
                b0 = load(b1, L0B, transpose=True)
            with compute:
                acc = mmad(a0, b0, acc)
        with copyout:
            store(y[mi, ni], acc)


@host
def cell_tiling(gx: Tensor[f32, (B, 3, H)]):
    cores = min(VECTOR_CORES, B)
    rows = cdiv(B, cores)
    cores = cdiv(B, rows)
    return Launch(cores, rows=rows, tile=min(fit_tile(f32), H))


@kernel
def gru_cell(
    gx: GM[f32, (B, 3, H)],
    gh: GM[f32, (B, 3, H)],
    bi: GM[f32, (3, H)],
    bh: GM[f32, (3, H)],
    h0: GM[f32, (B, H)],
    h1: Out[f32, (B, H)],
    y: Out[f32, (B, H)],
    t: Tiling,
):
    for r in core_rows(t.rows, B):
        for c in tiles(H, t.tile):
            with copyin:
                xr = load(gx[r, 0, c])
                xz = load(gx[r, 1, c])
                xn = load(gx[r, 2, c])
                hr = load(gh[r, 0, c])
                hz = load(gh[r, 1, c])
                hn = load(gh[r, 2, c])
                bir = load(bi[0, c])
                biz = load(bi[1, c])
                bin_ = load(bi[2, c])
                bhr = load(bh[0, c])
                bhz = load(bh[1, c])
                bhn = load(bh[2, c])
                hu = load(h0[r, c])
            with compute:
                rg = sigmoid(xr + bir + hr + bhr)
                zg = sigmoid(xz + biz + hz + bhz)
                ng = tanh(xn + bin_ + rg * (hn + bhn))
                hnew = ng + zg * (hu - ng)               # (1 - z) * n + z * h
            with copyout:
                store(h1[r, c], hnew)
                store(y[r, c], hnew)                     # the step's output is its hidden state


@program
def gru(
    x: GM[f32, (S, B, I)],
    w_ih: Param[f32, (3 * H, I), "gru.weight_ih_l0"],
    w_hh: Param[f32, (3 * H, H), "gru.weight_hh_l0"],
    b_ih: Param[f32, (3 * H,), "gru.bias_ih_l0"],
    b_hh: Param[f32, (3 * H,), "gru.bias_hh_l0"],
    y: Out[f32, (S, B, H)],
    gx: Workspace[f32, (S, B, 3, H)],
    gh: Workspace[f32, (B, 3, H)],
    hc: Workspace[f32, (2, B, H)],
):
    matmul_bt(x.view(S * B, I), w_ih, gx.view(S * B, 3 * H))        # every step's x_t @ W_ih^T at once
    for s in range(S):
        matmul_bt(hc[s % 2], w_hh, gh.view(B, 3 * H))                # h_{s-1} @ W_hh^T (zeros at s = 0)
        gru_cell(gx[s], gh, b_ih.view(3, H), b_hh.view(3, H), hc[s % 2], hc[(s + 1) % 2], y[s])
