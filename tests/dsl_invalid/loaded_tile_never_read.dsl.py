@host
def tiling(x: Tensor[f32, (B, N)]):
    return Launch(1, tile=min(ub_elems(f32, live=3), N))


@kernel
def unused(x: GM[f32, (B, N)], m: GM[bool, (B, N)], y: Out[f32, (B, N)], t: Tiling):
    for r in range(B):
        for c in tiles(N, t.tile):
            with copyin:
                xu = load(x[r, c])
                mu = load(m[r, c])   # error: tile `mu` is loaded but never read
            with compute:
                yu = xu * 2.0
            with copyout:
                store(y[r, c], yu)
