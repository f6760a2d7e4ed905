"""SGD with momentum over a flat parameter vector: one contiguous chunk per core."""


@host
def tiling(p: Tensor[f32, (N,)]):
    # Chunks are a multiple of 8 floats (32 bytes), so every core's GM offset is 32-byte
    # aligned and only the very last tile of the vector can be ragged.
    chunk = align_up(cdiv(N, VECTOR_CORES), 8)
    cores = cdiv(N, chunk)
    # 5 queues (p, g, buf in; p', buf' out), each double-buffered: 10 tile-sized buffers.
    tile = ub_elems(f32, live=5)
    return Launch(cores, chunk=chunk, tile=min(tile, chunk))


@kernel
def sgd(
    p: GM[f32, (N,)],
    g: GM[f32, (N,)],
    buf: GM[f32, (N,)],
    lr: f32,
    momentum: f32,
    p_out: Out[f32, (N,)],
    buf_out: Out[f32, (N,)],
    t: Tiling,
):
    for part in core_chunk(t.chunk, N):
        for c in tiles(part, t.tile):
            with copyin:
                pu = load(p[c])
                gu = load(g[c])
                bu = load(buf[c])
            with compute:
                bn = momentum * bu + gu          # Muls, Add
                pn = pu - lr * bn                # Muls, Sub
            with copyout:
                store(p_out[c], pn)
                store(buf_out[c], bn)
