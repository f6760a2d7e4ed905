@host
def tiling(x: Tensor[f32, (B, N)]):
    return Launch(B, tile=N)


@kernel
def k(x: GM[f32, (B, N)], y: Out[f32, ()], t: Tiling):
    for r in core_rows(1, B):
        with copyin:
            xu = load(x[r, :])
        with compute:
            s = reduce_sum(xu)
    with copyout:
        store(y, s, accumulate=True)   # error: `s` is not visible here
