@host
def tiling(x: Tensor[f32, (B, N)]):
    return Launch(B, tile=N)


@kernel
def k(x: GM[f32, (B, N)], w: GM[f32, (N,)], y: Out[f32, (B, N)], t: Tiling):
    for r in core_rows(1, B):
        for c in tiles(N, t.tile):
            with copyin:
                xu = load(x[r, c])
                wu = load(w[:])
            with compute:
                yu = xu * wu   # error: tile shapes [c.len] and [N] do not broadcast in `mul`
            with copyout:
                store(y[r, c], yu)
