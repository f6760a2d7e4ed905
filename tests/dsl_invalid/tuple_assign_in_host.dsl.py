@host
def tiling(x: Tensor[f32, (B, N)]):
    cores, rows = B, 1   # error: only core_split() gives two values in the host function
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
