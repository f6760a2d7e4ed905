@host
def tiling(a: Tensor[f32, (M, K)], b: Tensor[f32, (K, N)]):
    return Launch(1, base_m=64, base_n=64, base_k=64)


@kernel
def mm(a: GM[f32, (M, K)], b: GM[f32, (K, N)], c: Out[f32, (M, N)], t: Tiling):
    for mi, ni in core_tiles((M, N), (t.base_m, t.base_n)):
        acc = zeros(mi.len, ni.len, L0C)
        for ki in tiles(K, t.base_k):
            with copyin:
                a1 = load(a[mi, ki], L1)
                b1 = load(b[ki, ni], L1)
            with split:
                a0 = load(a1, L0A)
                b0 = load(b1, L0B)
            with compute:
                acc = mmad(a0, b0, acc)
        with copyout:
            store(c[mi, ni], acc)
    for r in core_rows(1, M):
        with copyin:
            cu = load(a[r, :])   # error: this uses the vector unit, and line 9 the cube unit
        with compute:
            yu = cu * 2.0
        with copyout:
            store(c[r, 0:K], yu)
