@host
def tiling(x: Tensor[f32, (B, N)]):
    return Launch(B, tile=N)


@kernel
def k(x: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):
    for c in tiles(N, t.tile):
        with copyin:
            xu = load(x[:, c])   # error: keeps 2 axes; tiles are 1-D
        with compute:
            yu = xu * 2.0
        with copyout:
            store(y[0, c], yu)
