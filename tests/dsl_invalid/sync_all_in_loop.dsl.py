@host
def tiling(x: Tensor[f32, (B, N)]):
    cores = min(VECTOR_CORES, B)
    rows = cdiv(B, cores)
    return Launch(cdiv(B, rows), rows=rows)


@kernel
def k(x: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):
    for r in core_rows(t.rows, B):
        with copyin:
            xu = load(x[r, :])
        with compute:
            yu = xu * 2.0
        with copyout:
            store(y[r, :], yu)
        sync_all()   # error: sync_all() inside a loop or an if: every core must reach it the same number of times
