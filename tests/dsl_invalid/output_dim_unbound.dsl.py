@host
def tiling(x: Tensor[f32, (B, N)]):
    return Launch(B, tile=N)


@kernel
def k(x: GM[f32, (B, N)], y: Out[f32, (B, L)], t: Tiling):   # error: output dim `L` is not bound by any input
    for r in core_rows(1, B):
        with copyin:
            xu = load(x[r, :])
        with compute:
            yu = xu * 2.0
        with copyout:
            store(y[r, :], yu)
