@host
def tiling(a: Tensor[f32, (M, K)], b: Tensor[f32, (K, N)]):
    return Launch(1, base_m=64, base_n=64, base_k=64)


@kernel
def mm(a: GM[f32, (M, K)], b: GM[f32, (K, N)], c: Out[f32, (M, N)], t: Tiling):
    for mi, ni in core_tiles((M, N), (t.base_m, t.base_n)):
        with copyin:
            a1 = load(a[mi, :], L1)
            b1 = load(b[:, ni], L1)
        with split:
            a0 = load(a1, L0A)
            b0 = load(b1, L0B)
        with compute:
            acc = mmad(a0, b0)
            yu = relu(acc)   # error: is an L0C tile (the cube's accumulator)
        with copyout:
            store(c[mi, ni], yu)
