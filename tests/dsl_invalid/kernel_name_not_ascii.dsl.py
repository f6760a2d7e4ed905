@host
def tiling(x: Tensor[f32, (B, N)]):
    return Launch(B, rows=1, tile=min(ub_elems(f32, live=2), N))


@kernel
def gelué(x: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):   # error: has characters C++ names and file names cannot carry
    for r in core_rows(t.rows, B):
        for c in tiles(N, t.tile):
            with copyin:
                xu = load(x[r, c])
            with compute:
                yu = xu * 2.0
            with copyout:
                store(y[r, c], yu)
