@host
def tiling(x: Tensor[f16, (B, N)]):
    return Launch(B, tile=N)


@kernel
def k(x: GM[f16, (B, N)], z: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):
    for r in core_rows(1, B):
        with copyin:
            xu = load(x[r, :])
            zu = load(z[r, :])
        with compute:
            yu = xu + zu   # error: `add` of a f16 tile and a f32 tile
        with copyout:
            store(y[r, :], yu)
