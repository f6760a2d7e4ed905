@host
def tiling(x: Tensor[f32, (B, N)]):
    return Launch(1, tile=B)


@kernel
def k(x: GM[f32, (B, N)], y: Out[f32, (B,)], t: Tiling):
    for c in tiles(B, t.tile):
        with copyin:
            xu = load(x[c, 0])   # error: keeps axis 0 but not the last axis
        with compute:
            yu = xu * 2.0
        with copyout:
            store(y[c], yu)
