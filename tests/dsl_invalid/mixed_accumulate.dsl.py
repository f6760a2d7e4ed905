@host
def tiling(x: Tensor[f32, (N,)]):
    return Launch(1, tile=N)


@kernel
def k(x: GM[f32, (N,)], loss: Out[f32, ()], t: Tiling):
    with copyin:
        xu = load(x[:])
    with compute:
        s = reduce_sum(xu)
    with copyout:
        store(loss, s, accumulate=True)
        store(loss, s)   # error: gets both accumulating and plain stores
