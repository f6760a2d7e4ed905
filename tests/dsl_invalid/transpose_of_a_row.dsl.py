@host
def tiling(x: Tensor[f32, (B, N)]):
    return Launch(1, tile=N)


@kernel
def k(x: GM[f32, (B, N)], y: Out[f32, (N, B)], t: Tiling):
    for r in range(B):
        for c in tiles(N, t.tile):
            with copyin:
                xu = load(x[r, c])
            with compute:
                yu = transpose(xu)   # error: transpose() turns the rows of a 2-D tile into its columns
            with copyout:
                store(y[c, r], yu)
