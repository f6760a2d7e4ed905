@host
def tiling(x: Tensor[f32, (B, N)]):
    return Launch(1, rows=B)


@kernel
def k(x: GM[f32, (B, N)], m: GM[bool, (B, N)], y: Out[f32, (B, N)], t: Tiling):
    for c in tiles(B, t.rows):
        with copyin:
            xu = load(x[c, :])
            mu = load(m[c, :])
        with compute:
            yu = where(mu, xu, 0.0)   # error: a byte-per-element bool mask of a tile of rows is not lowered yet
        with copyout:
            store(y[c, :], yu)
