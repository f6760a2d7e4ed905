"""MSE: every core sums its chunk, then ADDS its share into the scalar output (atomic add).

The cores cannot see each other's partial sums, so each stores `partial / total` with
accumulate=True: the lowering maps it to SetAtomicAdd around the copy-out, and the output
starts at zero. Scaling before the add keeps every addend small.
"""


@host
def tiling(p: Tensor[f32, (B, N)]):
    total = B * N
    chunk = align_up(cdiv(total, VECTOR_CORES), 8)
    cores = cdiv(total, chunk)
    # pu, qu double-buffered (4), d (1), and 2 scratch tiles for reduce_sum(d * d): 7 buffers.
    tile = ub_elems(f32, live=7, buffers=1)
    return Launch(cores, chunk=chunk, tile=min(tile, chunk), inv_total=1.0 / total)


@kernel
def mse_loss(p: GM[f32, ((B, N),)], q: GM[f32, ((B, N),)], loss: Out[f32, ()], t: Tiling):
    for part in core_chunk(t.chunk, B * N):
        acc = 0.0
        for c in tiles(part, t.tile):
            with copyin:
                pu = load(p[c])
                qu = load(q[c])
            with compute:
                d = pu - qu
                acc = acc + reduce_sum(d * d)
        share = acc * t.inv_total
        with copyout:
            store(loss, share, accumulate=True)
