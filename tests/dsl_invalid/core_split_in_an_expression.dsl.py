@host
def tiling(x: Tensor[f32, (B, N)]):
    rows = min(core_split(B), 4)   # error: core_split() gives two values (cores and per_core), so it is a line of its own
    return Launch(rows, rows=rows)


@kernel
def copy(x: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):
    for r in core_rows(t.rows, B):
        with copyin:
            xu = load(x[r, :])
        with compute:
            yu = xu * 2.0
        with copyout:
            store(y[r, :], yu)
