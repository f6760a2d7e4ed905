@host
def tiling(x: Tensor[f32, (B, N)]):
    return Launch(B, tile=N)


@kernel
def k(x: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):
    with copyin:
        for r in core_rows(1, B):   # error: a loop inside `with copyin:`
            xu = load(x[r, :])
