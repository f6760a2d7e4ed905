@host
def tiling(x: Tensor[f32, (B, N)]):
    cores, rows = core_split(B)
    tile = fit_tile(f32)
    other = fit_tile(f32)   # error: a second fit_tile() in the host function
    return Launch(cores, rows=rows, tile=min(tile, N), other=other)


@kernel
def copy(x: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):
    for r in core_rows(t.rows, B):
        for c in tiles(N, t.tile):
            with copyin:
                xu = load(x[r, c])
            with compute:
                yu = xu * 2.0
            with copyout:
                store(y[r, c], yu)
