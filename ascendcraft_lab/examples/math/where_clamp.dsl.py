"""Elementwise select-and-clamp; the layout does not matter, so the tensors are viewed flat."""


@host
def tiling(x: Tensor[f32, (B, N)]):
    total = B * N
    chunk = align_up(cdiv(total, VECTOR_CORES), 8)   # 32-byte aligned per-core offsets
    cores = cdiv(total, chunk)
    # 3 inputs and 1 output double-buffered (8) + the x > 0 mask and x * y (2 scratch tiles).
    tile = ub_elems(f32, live=5)
    return Launch(cores, chunk=chunk, tile=min(tile, chunk))


@kernel
def where_clamp(
    x: GM[f32, ((B, N),)],
    y: GM[f32, ((B, N),)],
    z: GM[f32, ((B, N),)],
    out: Out[f32, ((B, N),)],
    t: Tiling,
):
    for part in core_chunk(t.chunk, B * N):
        for c in tiles(part, t.tile):
            with copyin:
                xu = load(x[c])
                yu = load(y[c])
                zu = load(z[c])
            with compute:
                ou = clamp(where(xu > 0.0, xu * yu, zu), -1.0, 1.0)   # Compare, Mul, Select, Maxs, Mins
            with copyout:
                store(out[c], ou)
