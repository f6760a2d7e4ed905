@host
def tiling(x: Tensor[f32, (B, K, N)]):
    cores, rows = core_split(B)
    return Launch(cores, rows=rows, tile=min(ub_elems(f32, live=4), N))


@kernel
def k(x: GM[f32, (B, K, N)], y: Out[f32, (B, N)], t: Tiling):
    for r in core_rows(t.rows, B):
        for c in tiles(N, t.tile):
            with copyin:
                xu = load(x[r, 0, c])
            with compute:
                yu = xu
            for q in range(1, K):
                with copyin:
                    xv = load(x[r, q, c])
                with compute:
                    yu = yu + xv   # error: `yu` is stored, and this compute stage reads the value an earlier stage gave it
            with copyout:
                store(y[r, c], yu)
