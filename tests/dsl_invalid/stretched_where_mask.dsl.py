@host
def tiling(x: Tensor[f32, (B, N)]):
    return Launch(1, rows=B)


@kernel
def k(x: GM[f32, (B, N)], s: GM[f32, (B, 1)], y: Out[f32, (B, N)], t: Tiling):
    for c in tiles(B, t.rows):
        with copyin:
            xu = load(x[c, :])
            su = load(s[c, :])
        with compute:
            yu = where(su > 0.0, xu, 0.0)   # error: where() stretches its mask: a bool mask has the shape of the result
        with copyout:
            store(y[c, :], yu)
