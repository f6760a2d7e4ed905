@host
def tiling(x: Tensor[f32, (B, N)]):
    cores, per_core = core_split(B)
    return Launch(cores, rows=per_core)


@kernel
def k(x: GM[f32, (B, N)], y: Out[f32, (B, N // 2)], t: Tiling):
    for r in core_rows(t.rows, B):
        with copyin:
            xu = load(x[r, 0:N:2])   # error: a step along the last axis of `x`: a tile's row is a contiguous run in GM
        with compute:
            yu = xu * 2.0
        with copyout:
            store(y[r, :], yu)
