@host
def tiling(x: Tensor[f32, (B, N)]):
    cores = min(VECTOR_CORE, B)   # error: `VECTOR_CORE` is not defined in the host function
    return Launch(cores, tile=N)


@kernel
def k(x: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):
    for r in core_rows(1, B):
        with copyin:
            xu = load(x[r, :])
        with compute:
            yu = xu * 2.0
        with copyout:
            store(y[r, :], yu)
