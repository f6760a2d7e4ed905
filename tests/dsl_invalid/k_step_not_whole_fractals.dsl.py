# shapes: {"a": [64, 100], "b": [100, 64]}
@host
def tiling(a: Tensor[f32, (M, K)], b: Tensor[f32, (K, N)]):
    return Launch(1, base_m=64, base_n=64, base_k=20)


@kernel
def mm(a: GM[f32, (M, K)], b: GM[f32, (K, N)], c: Out[f32, (M, N)], t: Tiling):
    for mi, ni in core_tiles((M, N), (t.base_m, t.base_n)):
        acc = zeros(mi.len, ni.len, L0C)
        for ki in tiles(K, t.base_k):
            with copyin:
                a1 = load(a[mi, ki], L1)   # error: steps by t.base_k = 20 f32 columns
                b1 = load(b[ki, ni], L1)
            with split:
                a0 = load(a1, L0A)
                b0 = load(b1, L0B, transpose=False)
            with compute:
                acc = mmad(a0, b0, acc)
        with copyout:
            store(c[mi, ni], acc)
