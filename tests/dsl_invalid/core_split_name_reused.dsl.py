@host
def tiling(x: Tensor[f32, (N,)], z: Tensor[f32, (M,)]):
    chunk = align_up(cdiv(N, VECTOR_CORES), 8)
    zchunk = align_up(cdiv(M, VECTOR_CORES), 8)
    return Launch(VECTOR_CORES, chunk=chunk, zchunk=zchunk, tile=1024)


@kernel
def k(x: GM[f32, (N,)], z: GM[f32, (M,)], y: Out[f32, (N,)], w: Out[f32, (M,)], t: Tiling):
    for part in core_chunk(t.chunk, N):
        for c in tiles(part, t.tile):
            with copyin:
                xu = load(x[c])
            with compute:
                yu = relu(xu)
            with copyout:
                store(y[c], yu)
    for part in core_chunk(t.zchunk, M):   # error: `part` already names the core split `core_chunk(t.chunk, N)` of line 10
        for c in tiles(part, t.tile):
            with copyin:
                zu = load(z[c])
            with compute:
                wu = relu(zu)
            with copyout:
                store(w[c], wu)
