# shapes: {"x": [5, 64]}
@host
def tiling(x: Tensor[f32, (B, N)]):
    return Launch(1, rows=B + 1, tile=N)


@kernel
def k(x: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):
    for r in core_rows(t.rows, B + 1):
        with copyin:
            xu = load(x[r, :])   # error: index 5 is outside axis 0 of `x` (size 5)
        with compute:
            yu = xu * 2.0
        with copyout:
            store(y[r, :], yu)
