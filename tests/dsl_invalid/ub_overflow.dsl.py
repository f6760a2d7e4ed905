# shapes: {"x": [4, 65536]}
@host
def tiling(x: Tensor[f32, (B, N)]):
    cores = min(VECTOR_CORES, B)
    tile = ub_elems(f32, live=1)   # one tile's worth, but xu and yu are two double-buffered queues
    return Launch(cores, rows=cdiv(B, cores), tile=min(tile, N))


@kernel
def scale(x: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):
    for r in core_rows(t.rows, B):
        for c in tiles(N, t.tile):
            with copyin:
                xu = load(x[r, c])   # error: over the 191.75 KiB of UB usable on Ascend910B2
            with compute:
                yu = xu * 2.0
            with copyout:
                store(y[r, c], yu)
