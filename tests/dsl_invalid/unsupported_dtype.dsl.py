@host
def tiling(x: Tensor[i32, (B, N)]):
    return Launch(B, tile=N)


@kernel
def k(x: GM[i32, (B, N)], y: Out[i32, (B, N)], t: Tiling):
    for r in core_rows(1, B):
        with copyin:
            xu = load(x[r, :])
        with compute:
            yu = exp(xu)   # error: `exp` does not support i32 tiles
        with copyout:
            store(y[r, :], yu)
