@host
def tiling(x: Tensor[f16, (B, N)]):
    return Launch(1, rows=B)


@kernel
def k(x: GM[f16, (B, N)], y: Out[u8, (B, N)], t: Tiling):
    for c in tiles(B, t.rows):
        with copyin:
            xu = load(x[c, :])
        with compute:
            yu = cast(xu, u8)   # error: a cast of a tile of rows from or to a 1-byte dtype is not lowered yet
        with copyout:
            store(y[c, :], yu)
