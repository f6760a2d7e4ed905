"""Row-wise cumulative sum: a scan per tile, continued across tiles through a scalar carry."""


@host
def tiling(x: Tensor[f32, (B, N)]):
    cores = min(VECTOR_CORES, B)
    rows = cdiv(B, cores)
    cores = cdiv(B, rows)
    # 5 tile-sized buffers: xu and yu double-buffered, and the scan's ping-pong scratch tile.
    tile = ub_elems(f32, live=5, buffers=1)
    return Launch(cores, rows=rows, tile=min(tile, N))


@kernel
def cumsum_rows(x: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):
    for r in core_rows(t.rows, B):
        carry = 0.0                            # the row's running total before this tile
        for c in tiles(N, t.tile):
            with copyin:
                xu = load(x[r, c])
            with compute:
                yu = cumsum(xu, init=carry)
                carry = last(yu)               # vector -> scalar: the passes insert the sync
            with copyout:
                store(y[r, c], yu)
