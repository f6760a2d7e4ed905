# shapes: {"x": [4, 100000]}
@host
def tiling(x: Tensor[f32, (B, N)]):
    return Launch(B, rows=1)


@kernel
def scale(x: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):
    for r in core_rows(t.rows, B):
        with copyin:
            xu = load(x[r, :])   # error: tile `xu` of 100000 f32
        with compute:
            yu = xu * 2.0
        with copyout:
            store(y[r, :], yu)
