@host
def tiling(x: Tensor[f32, (B, S, C)]):
    return Launch(1, tile=64)


@kernel
def k(h: GM[f32, (B, S, S)], x: GM[f32, (B, S, C)], y: Out[f32, (B, S, C)], t: Tiling):
    for b in range(B):
        for c in tiles(C, t.tile):
            with copyin:
                h0 = load(h[b, :, 0:1])   # error: `h[b, :, 0:1]` is one value per row (a tile whose last axis is 1), but its values are S apart in GM
                x0 = load(x[b, 0, c])
            with compute:
                yu = h0 * x0
            with copyout:
                store(y[b, :, c], yu)
