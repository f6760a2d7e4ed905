@host
def tiling(x: Tensor[f32, (B, N)]):
    return Launch(B, rows=1, tile=min(ub_elems(f32, live=2), N))


@kernel
def std(x: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):   # error: kernel name `std` is the C++ standard library's namespace
    for r in core_rows(t.rows, B):
        for c in tiles(N, t.tile):
            with copyin:
                xu = load(x[r, c])
            with compute:
                yu = xu * 2.0
            with copyout:
                store(y[r, c], yu)
