@host
def tiling(x: Tensor[f32, (N,)]):
    chunk = align_up(cdiv(N, VECTOR_CORES), 8)
    return Launch(cdiv(N, chunk), chunk=chunk)


@kernel
def k(x: GM[f32, (N,)], total: Workspace[f32, ()], y: Out[f32, (N,)], t: Tiling):
    for part in core_chunk(t.chunk, N):
        with copyin:
            xu = load(x[part])
        with compute:
            s = reduce_sum(xu)
        with copyout:
            store(total, s, accumulate=True)
        with copyin:
            all = load(total)   # error: loading it before sync_all() reads whatever the other cores have stored so far
        with compute:
            yu = xu / all
        with copyout:
            store(y[part], yu)
