"""Anti-aliased downscaling: a filter as wide as the scale, a variable number of taps per output.

Plain bilinear reads 2 source pixels per axis, so a 2.4x downscale skips most of the image and
aliases. antialias=True (PyTorch's _upsample_bilinear2d_aa) widens the triangle filter by the
scale s = in / out (when s > 1): output o centres at c = (o + 0.5) * s and reads every source
pixel in [max(int(c - s + 0.5), 0), min(int(c + s + 0.5), in)), weighted by max(1 - |d|, 0) at
d = (tap - c + 0.5) / s, normalised by the taps' sum. About 2s + 1 taps, fewer at the borders.

The work is separable, as in plain bilinear (resize/bilinear):
1. Along H the taps of output row oh are scalars of oh: a scalar loop over [h0, h1) copies each
   source row into UB whole (DataCopyPad from a GM address computed on the scalar unit) and adds
   it in by its weight (Muls + Add over the row); the weights' sum normalises the row once.
2. Along W every output column has its own taps: CreateVecIndex (`iota`) gives the tile's
   columns, vector arithmetic their centres and first tap j0 (Cast with CAST_FLOOR), and a loop
   over the most taps any column reads (`t.taps`, from the host: 2 * ceil(s) + 1) does one vector
   Gather per tap from the weighted row. A column with fewer taps weighs the extra ones 0 (a
   Compare + Select against the row's end), and reads them clamped, so a Gather never leaves the
   row. The lanes past the tile's columns (the vector unit works on whole 256-byte repeats, a
   compare pads to them) compute garbage that is never stored: they are clamped too.
"""


@host
def tiling(x: Tensor[f32, ((N, C), H, W)]):
    rows = N * C * 25                      # one output row per (plane, oh)
    cores, per_core = core_split(rows)
    sh = H / 25                            # the scales; > 1: the filter widens by them
    sw = W / 36
    # one tile holds a whole output row (36 columns); the source rows are held whole beside it
    return Launch(cores, rows=per_core, tile=36, sh=sh, sw=sw, invh=1.0 / max(sh, 1.0), invw=1.0 / max(sw, 1.0),
                  suph=max(sh, 1.0), supw=max(sw, 1.0), taps=2 * max(cdiv(W, 36), 1) + 1)


@kernel
def antialias(x: GM[f32, ((N, C), H, W)], y: Out[f32, ((N, C), 25, 36)], t: Tiling):
    for r in core_rows(t.rows, N * C * 25):
        p = r // 25
        oh = r % 25
        ch = (oh + 0.5) * t.sh                                   # the row's centre in the source
        h0 = max(cast(ch - t.suph + 0.5, i32, round="floor"), 0)   # its taps [h0, h1)
        h1 = min(cast(ch + t.suph + 0.5, i32, round="floor"), H)
        w = max(1.0 - abs((h0 - ch + 0.5) * t.invh), 0.0)       # the triangle filter (scalar unit)
        with copyin:
            xu = load(x[p, h0, :])
        with compute:
            acc = xu * w
        total = w
        for q in range(1, h1 - h0):                             # the row's other taps: a row load each
            wq = max(1.0 - abs((h0 + q - ch + 0.5) * t.invh), 0.0)
            total = total + wq
            with copyin:
                xv = load(x[p, h0 + q, :])
            with compute:
                acc = acc + xv * wq
        with compute:
            row = acc * (1.0 / total)                           # normalised: the weights sum to 1
        for c in tiles(36, t.tile):
            with compute:
                cw = (iota(c.len, c.start) + 0.5) * t.sw        # every column's centre (CreateVecIndex)
                j0 = clamp(cast(cw - t.supw + 0.5, i32, round="floor"), 0, W - 1)
                wt = relu(1.0 - abs((cast(j0, f32) - cw + 0.5) * t.invw))
                yacc = take(row, j0) * wt                       # one vector Gather per tap
                ytot = wt
            for j in range(1, t.taps):
                with compute:
                    jj = j0 + j
                    wj = where(cast(jj, f32) < W, relu(1.0 - abs((cast(jj, f32) - cw + 0.5) * t.invw)), 0.0)
                    yacc = yacc + take(row, min(jj, W - 1)) * wj
                    ytot = ytot + wj
            with compute:
                yu = yacc / ytot
            with copyout:
                store(y[p, oh, c], yu)
