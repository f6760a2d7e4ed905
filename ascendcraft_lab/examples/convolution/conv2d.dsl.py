"""A 3x3 convolution with padding 1 and a bias, as a matrix product on the cube.

The cube multiplies matrices; a convolution becomes one through an image-to-column view:
y[n] (K x P) = W (K x C*9) @ col[n] (C*9 x P), where P = OH * OW output positions and row
(c, kh, kw) of col[n] holds, for every output position, the input value tap (kh, kw) of channel
c reads there (0 in the padding). The weight [K, C, 3, 3] already is W, row by row: no copy.

1. im2col on the vector unit, into the GM Workspace `col`. One unit of work is one input plane
   x[n, c] and one tap row kh; its OH x OW output positions are cut into blocks of whole output
   rows (`blk`, sized in the host so the input rows a block reads fit UB). A block loads those
   input rows as one contiguous run (`rin` rows from h0, clamped into the plane); each tap kw is
   one Gather (`take`) over the whole block at offsets computed on the vector unit from the
   positions (`iota`: output row and column, then input row and column), and a `where` puts the
   padding's zeros (rows and columns). Each result is one contiguous run of col (the positions of
   a block are consecutive): one DataCopyPad per tap and block, not one per output row.
2. `sync_all()`, then the cube: blocks of (base_m output channels) x (base_n positions), K
   stepped over C * 9 in base_k slices through L1 -> L0A / L0B, summed in L0C. col arrives as
   [K, N] (not B^T), so the split transposes it into L0B.
3. `sync_all()`, then the bias, one value per output row (n, k), on the vector unit.

The cube's alternative is the image-to-column load from L1 into L0A (LoadData with img2col
parameters), which skips the GM round trip of col; this draft is the route that composes with
what the lowering has today (issue 34).
"""


@host
def tiling(x: Tensor[f32, (N, C, H, W)], w: Tensor[f32, (K, Cg, 3, 3)], bias: Tensor[f32, (KB,)]):
    OH = H
    OW = W
    P = OH * OW
    rows = N * C * 3
    cores = min(CUBE_CORES, rows)           # the im2col units and the cube's blocks share the cores
    base_m = min(128, align_up(K, 16))
    base_n = min(128, align_up(P, 16))
    base_k = min(64, align_up(C * 9, 8))
    E = ub_elems(f32, live=12)              # the input rows, the gathered block, the index temporaries
    blk_rows = max(1, min(OH, H, E // OW, E // W))
    return Launch(cores, rows=cdiv(rows, cores), base_m=base_m, base_n=base_n, base_k=base_k, blk=blk_rows * OW, rin=blk_rows, span=blk_rows * W, erows=cdiv(N * K, cores), tile=min(ub_elems(f32, live=3), P))


@kernel
def conv2d(
    x: GM[f32, (N, (C, H, W))],               # a channel's rows as one run: a block of rows is one copy
    w: Param[f32, (K, (Cg, 3, 3)), "conv.weight"],
    bias: Param[f32, (KB,), "conv.bias"],
    y: Out[f32, ((N, K), (H, W))],
    col: Workspace[f32, (N, C * 9, H * W)],
    prod: Workspace[f32, (N, K, H * W)],
    t: Tiling,
):
    OH = H
    OW = W
    for r in core_rows(t.rows, N * C * 3):
        kh = r % 3
        nc = r // 3
        for c in tiles(OH * OW, t.blk):               # a block of whole output rows
            h0 = min(max(c.start // OW - 1 + kh, 0), H - t.rin)   # its first input row, kept in the plane
            x0 = ((nc % C) * H + h0) * W
            with copyin:
                xu = load(x[nc // C, x0:x0 + t.span])             # the rows the block reads: one copy
            with compute:                                 # per block: the input row each position reads
                pos = iota(c.len, c.start)                # the block's output positions
                orow = floor((pos + 0.5) / OW)            # their output rows
                ih = orow + (kh - 1)                      # the input row each one reads
                in_h = abs(ih - (H - 1) * 0.5) <= (H - 1) * 0.5
                base = (ih - h0) * W                      # where that row starts in xu
                ow0 = pos - orow * OW                     # the output column
            for kw in range(3):
                with compute:                             # per tap: the input column, then one Gather
                    iw = ow0 + (kw - 1)
                    in_w = abs(iw - (W - 1) * 0.5) <= (W - 1) * 0.5
                    at = clamp(base + iw, 0, t.span - 1)
                    v = where(in_h, where(in_w, take(xu, cast(at, i32)), 0.0), 0.0)
                with copyout:
                    store(col[nc // C, (nc % C) * 9 + kh * 3 + kw, c], v)   # one run of col per tap
    sync_all()                                    # col is complete: the cube takes over
    for gi, mi, ni in core_tiles((N, K, H * W), (1, t.base_m, t.base_n)):
        acc = zeros(mi.len, ni.len, L0C)
        wr = mi.start
        for ki in tiles(C * 9, t.base_k):
            with copyin:
                a1 = load(w[wr:wr + mi.len, ki], L1)
                b1 = load(col[gi.start, ki, ni], L1)
            with split:
                a0 = load(a1, L0A)
                b0 = load(b1, L0B)                    # col is [K, N]: transposed on its way to L0B
            with compute:
                acc = mmad(a0, b0, acc)
        with copyout:
            store(prod[gi.start, mi, ni], acc)
    sync_all()                                    # the products are in GM: the vector cores add the bias
    for q in core_rows(t.erows, N * K):
        for c in tiles(H * W, t.tile):
            with copyin:
                hu = load(prod[q // K, q % K, c])
                bu = load(bias[q % K])
            with compute:
                yu = hu + bu
            with copyout:
                store(y[q, c], yu)
