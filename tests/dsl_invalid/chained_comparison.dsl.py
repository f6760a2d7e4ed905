@host
def tiling(x: Tensor[f32, (B, N)]):
    return Launch(B, tile=N)


@kernel
def k(x: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):
    for r in core_rows(1, B):
        if 0 < r < B:   # error: chained comparisons are not part of the DSL
            with copyin:
                xu = load(x[r, :])
