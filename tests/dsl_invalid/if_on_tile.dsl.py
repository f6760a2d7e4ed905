@host
def tiling(x: Tensor[f32, (B, N)]):
    return Launch(B, tile=N)


@kernel
def k(x: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):
    for r in core_rows(1, B):
        with copyin:
            xu = load(x[r, :])
        if xu > 0.0:   # error: tile `xu` is used outside a compute stage
            with compute:
                yu = xu * 2.0
            with copyout:
                store(y[r, :], yu)
