@host
def tiling(x: Tensor[f32, (B, N)]):
    return Launch(B, tile=N)


@kernel
def k(x: GM[f32, (B, N)], e: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):
    for r in core_rows(1, B):
        for c in tiles(N, t.tile):
            with copyin:
                xu = load(x[r, c])
                eu = load(e[r, c])
            with compute:
                yu = xu ** eu   # error: tile ** tile has no AscendC instruction
            with copyout:
                store(y[r, c], yu)
