@host
def tiling(a: Tensor[f32, (N,)]):
    return Launch(1, tile=N)


@kernel
def k(a: GM[f32, (N,)], b: GM[f32, (N,)], y: Out[bool, (N,)], t: Tiling):
    for c in tiles(N, t.tile):
        with copyin:
            au = load(a[c])
            bu = load(b[c])
        with compute:
            yu = au < bu
        with copyout:
            store(y[c], yu)   # error: is a comparison's bit mask (one bit per element)
