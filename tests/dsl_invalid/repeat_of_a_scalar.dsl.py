@host
def tiling(x: Tensor[f32, (B, C)]):
    return Launch(1, rows=B)


@kernel
def k(x: GM[f32, ((B, C),)], y: Out[f32, ((B, C),)], t: Tiling):
    for c in tiles(B, t.rows):
        with copyin:
            xu = load(x[windows(c, C, C)])
        with compute:
            m = reduce_max(xu)
            yu = xu - repeat(m, C)   # error: `repeat` takes a tile of rows, not a scalar
        with copyout:
            store(y[windows(c, C, C)], yu)
