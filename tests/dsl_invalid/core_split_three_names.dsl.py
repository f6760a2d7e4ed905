@host
def tiling(x: Tensor[f32, (B, N)]):
    cores, rows, extra = core_split(B)   # error: core_split() gives two values: cores and per_core
    return Launch(cores, rows=rows)


@kernel
def copy(x: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):
    for r in core_rows(t.rows, B):
        with copyin:
            xu = load(x[r, :])
        with compute:
            yu = xu * 2.0
        with copyout:
            store(y[r, :], yu)
