@host
def tiling(x: Tensor[f32, (B, N)]):
    return Launch(B, tile=N)


@kernel
def k(x: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):
    for r in core_rows(1, B):
        m = 0.0
        with copyin:
            xu = load(x[r, :])
        with compute:
            m = xu * 2.0   # error: one name has one kind in a kernel
        with copyout:
            store(y[r, :], m)
