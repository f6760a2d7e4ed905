# shapes: {"x": [4, 64]}
@host
def tiling(x: Tensor[f32, (B, N)]):
    return Launch(B, rows=1, tile=N - 72)


@kernel
def k(x: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):
    for r in core_rows(t.rows, B):
        for c in tiles(N, t.tile):   # error: tiles() gets a step of -8 for these shapes (Launch field `tile`
            with copyin:
                xu = load(x[r, c])
            with compute:
                yu = xu * 2.0
            with copyout:
                store(y[r, c], yu)
