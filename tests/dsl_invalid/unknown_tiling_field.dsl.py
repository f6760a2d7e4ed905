@host
def tiling(x: Tensor[f32, (B, N)]):
    return Launch(B, rows=1, tile=N)


@kernel
def k(x: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):
    for r in core_rows(t.rows, B):
        for c in tiles(N, t.tiles):   # error: `tiles` is not a tiling field
            with copyin:
                xu = load(x[r, c])
            with compute:
                yu = xu * 2.0
            with copyout:
                store(y[r, c], yu)
