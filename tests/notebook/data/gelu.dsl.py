"""GELU (tanh form) on small rows: the test kernel of the notebook workbench."""

@host
def tiling(x: Tensor[f32, (B, N)]):
    cores = min(VECTOR_CORES, B)
    rows = cdiv(B, cores)
    cores = cdiv(B, rows)
    tile = ub_elems(f32, live=3)
    return Launch(cores, rows=rows, tile=min(tile, N))

@kernel
def gelu(x: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):
    for r in core_rows(t.rows, B):
        for c in tiles(N, t.tile):
            with copyin:
                xu = load(x[r, c])
            with compute:
                inner = (xu + 0.044715 * xu * xu * xu) * 0.7978845608028654
                yu = 0.5 * xu * (1.0 + tanh(inner))
            with copyout:
                store(y[r, c], yu)
