@host
def tiling(x: Tensor[f32, (B, H, W)]):
    cores, per_core = core_split(B)
    return Launch(cores, rows=per_core)


@kernel
def k(x: GM[f32, (B, H, W)], y: Out[f32, (B, W)], t: Tiling):
    for r in core_rows(t.rows, B):
        with copyin:
            xu = load(x[r, :, :])
        with compute:
            yu = reduce_max(xu, axis=0, keepdim=True)   # error: `reduce_max` along axis 0 gives one row, a 1-D tile of the columns
        with copyout:
            store(y[r, :], yu)
