"""Triplet-margin loss: two distances per row in one sweep, a hinge, then a mean over the rows.

PyTorch's pairwise_distance adds eps = 1e-6 to the DIFFERENCE before the norm: d(a, p) =
|a - p + eps|_2, so the kernel does too (on random data the effect is tiny, but it is the definition).
One sweep over a row's tiles reads a, p and n once and accumulates both squared distances; the
tile `d` is reused for a - p and a - n (one buffer less, a larger tile).

The row's loss max(d_ap - d_an + margin, 0) is scalar work, once per row; `margin` comes from the
Model's get_init_inputs. Cores split the rows and each adds its share of the mean into the scalar
output with an atomic add (store with accumulate=True; see mse_loss).
"""


@host
def tiling(a: Tensor[f32, (B, N)], margin: f32):
    cores = min(VECTOR_CORES, B)
    rows = cdiv(B, cores)
    cores = cdiv(B, rows)
    # au, pu, nu double-buffered (6), d (1) and 2 scratch tiles for reduce_sum(d * d): 9 buffers.
    tile = ub_elems(f32, live=9, buffers=1)
    return Launch(cores, rows=rows, tile=min(tile, N), inv_rows=1.0 / B)


@kernel
def triplet_margin_loss(a: GM[f32, (B, N)], p: GM[f32, (B, N)], n: GM[f32, (B, N)], margin: f32,
                        loss: Out[f32, ()], t: Tiling):
    acc = 0.0                                   # sum of the rows' losses on this core
    for r in core_rows(t.rows, B):
        sp = 0.0
        sn = 0.0
        for c in tiles(N, t.tile):
            with copyin:
                au = load(a[r, c])
                pu = load(p[r, c])
                nu = load(n[r, c])
            with compute:
                d = au - pu + 1e-06
                sp = sp + reduce_sum(d * d)
                d = au - nu + 1e-06
                sn = sn + reduce_sum(d * d)
        with compute:
            acc = acc + max(sqrt(sp) - sqrt(sn) + margin, 0.0)
    share = acc * t.inv_rows
    with copyout:
        store(loss, share, accumulate=True)
