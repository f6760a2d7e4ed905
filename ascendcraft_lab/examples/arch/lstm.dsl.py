"""nn.LSTM over a sequence: one cube launch for every step's input projection, then a host loop
of two launches per time step.

The input projection x_t @ W_ih^T does not depend on the state, so it runs once for the whole
sequence (S * B rows: `x.view(S * B, I)`, one launch with enough blocks for the cube cores).
Each step then needs the previous hidden state: `matmul_bt` gives h_{t-1} @ W_hh^T (the cube),
and `lstm_cell` (the vector cores) adds the two projections and both biases, applies the gates
and writes the new cell and hidden state. The state ping-pongs between two halves of `hc` and
`cc` (step s reads half s % 2 and writes the other), so no launch reads what it writes; the first
step reads the intermediates' zeros, nn.LSTM's default initial state.
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
def cell_tiling(gx: Tensor[f32, (B, 4, H)]):
    cores = min(VECTOR_CORES, B)
    rows = cdiv(B, cores)
    cores = cdiv(B, rows)
    return Launch(cores, rows=rows, tile=min(fit_tile(f32), H))


@kernel
def lstm_cell(
    gx: GM[f32, (B, 4, H)],
    gh: GM[f32, (B, 4, H)],
    bi: GM[f32, (4, H)],
    bh: GM[f32, (4, H)],
    c0: GM[f32, (B, H)],
    c1: Out[f32, (B, H)],
    h1: Out[f32, (B, H)],
    y: Out[f32, (B, H)],
    t: Tiling,
):
    for r in core_rows(t.rows, B):
        for c in tiles(H, t.tile):
            with copyin:
                xi = load(gx[r, 0, c])
                xf = load(gx[r, 1, c])
                xg = load(gx[r, 2, c])
                xo = load(gx[r, 3, c])
                hi = load(gh[r, 0, c])
                hf = load(gh[r, 1, c])
                hg = load(gh[r, 2, c])
                ho = load(gh[r, 3, c])
                bii = load(bi[0, c])
                bif = load(bi[1, c])
                big = load(bi[2, c])
                bio = load(bi[3, c])
                bhi = load(bh[0, c])
                bhf = load(bh[1, c])
                bhg = load(bh[2, c])
                bho = load(bh[3, c])
                cu = load(c0[r, c])
            with compute:
                ig = sigmoid(xi + hi + bii + bhi)
                fg = sigmoid(xf + hf + bif + bhf)
                gg = tanh(xg + hg + big + bhg)
                og = sigmoid(xo + ho + bio + bho)
                cn = fg * cu + ig * gg
                hn = og * tanh(cn)
            with copyout:
                store(c1[r, c], cn)
                store(h1[r, c], hn)
                store(y[r, c], hn)                 # the step's output is its hidden state


@program
def lstm(
    x: GM[f32, (S, B, I)],
    w_ih: Param[f32, (4 * H, I), "lstm.weight_ih_l0"],
    w_hh: Param[f32, (4 * H, H), "lstm.weight_hh_l0"],
    b_ih: Param[f32, (4 * H,), "lstm.bias_ih_l0"],
    b_hh: Param[f32, (4 * H,), "lstm.bias_hh_l0"],
    y: Out[f32, (S, B, H)],
    gx: Workspace[f32, (S, B, 4, H)],
    gh: Workspace[f32, (B, 4, H)],
    hc: Workspace[f32, (2, B, H)],
    cc: Workspace[f32, (2, B, H)],
):
    matmul_bt(x.view(S * B, I), w_ih, gx.view(S * B, 4 * H))        # every step's x_t @ W_ih^T at once
    for s in range(S):
        matmul_bt(hc[s % 2], w_hh, gh.view(B, 4 * H))                # h_{s-1} @ W_hh^T (zeros at s = 0)
        lstm_cell(gx[s], gh, b_ih.view(4, H), b_hh.view(4, H), cc[s % 2], cc[(s + 1) % 2], hc[(s + 1) % 2], y[s])
