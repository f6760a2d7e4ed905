"""fc2(gelu(fc1(x))) as a program of three kernels, four launches.

The products run on the cube cores (24 on Ascend910B2, one C block each), the bias and the
activation on the vector cores (48, a block of rows each): a split a single kernel's phases
cannot make, since one launch has one block dim. `matmul_bt` is launched twice with different
shapes (each launch runs its own tiling function); the products and the activation pass between
the launches through GM intermediates the host allocates (`h`, `a`, `z`).
"""


@host
def mm_tiling(x: Tensor[f32, (M, K)], w: Tensor[f32, (N, K)]):
    base_m = min(128, align_up(M, 16))
    base_n = min(128, align_up(N, 16))
    base_k = min(64, align_up(K, 8))          # B^T is not transposed in the split: K steps in f32 fractals of 8
    cores = min(CUBE_CORES, cdiv(M, base_m) * cdiv(N, base_n))
    return Launch(cores, base_m=base_m, base_n=base_n, base_k=base_k)


@kernel
def matmul_bt(x: GM[f32, (M, K)], w: GM[f32, (N, K)], y: Out[f32, (M, N)], t: Tiling):
    for mi, ni in core_tiles((M, N), (t.base_m, t.base_n)):
        acc = zeros(mi.len, ni.len, L0C)
        for ki in tiles(K, t.base_k):
            with copyin:
                a1 = load(x[mi, ki], L1)
                b1 = load(w[ni, ki], L1)
            with split:
                a0 = load(a1, L0A)
                b0 = load(b1, L0B, transpose=True)
            with compute:
                acc = mmad(a0, b0, acc)
        with copyout:
            store(y[mi, ni], acc)


@host
def act_tiling(h: Tensor[f32, (B, N)]):
    cores = min(VECTOR_CORES, B)
    rows = cdiv(B, cores)
    cores = cdiv(B, rows)
    return Launch(cores, rows=rows, tile=min(ub_elems(f32, live=4), N))


@kernel
def bias_gelu(h: GM[f32, (B, N)], b: GM[f32, (N,)], y: Out[f32, (B, N)], t: Tiling):
    for r in core_rows(t.rows, B):
        for c in tiles(N, t.tile):
            with copyin:
                hu = load(h[r, c])
                bu = load(b[c])
            with compute:
                xu = hu + bu
                inner = (xu + 0.044715 * xu * xu * xu) * 0.7978845608
                yu = 0.5 * xu * (1.0 + tanh(inner))
            with copyout:
                store(y[r, c], yu)


@host
def add_tiling(h: Tensor[f32, (B, N)]):
    cores = min(VECTOR_CORES, B)
    rows = cdiv(B, cores)
    cores = cdiv(B, rows)
    return Launch(cores, rows=rows, tile=min(ub_elems(f32, live=3), N))


@kernel
def bias_add(h: GM[f32, (B, N)], b: GM[f32, (N,)], y: Out[f32, (B, N)], t: Tiling):
    for r in core_rows(t.rows, B):
        for c in tiles(N, t.tile):
            with copyin:
                hu = load(h[r, c])
                bu = load(b[c])
            with compute:
                yu = hu + bu
            with copyout:
                store(y[r, c], yu)


@program
def mlp(
    x: GM[f32, (M, K)],
    w1: Param[f32, (H, K), "fc1.weight"],
    b1: Param[f32, (H,), "fc1.bias"],
    w2: Param[f32, (N, H), "fc2.weight"],
    b2: Param[f32, (N,), "fc2.bias"],
    y: Out[f32, (M, N)],
    h: Workspace[f32, (M, H)],
    a: Workspace[f32, (M, H)],
    z: Workspace[f32, (M, N)],
):
    matmul_bt(x, w1, h)          # cube: h = x @ fc1.weight^T
    bias_gelu(h, b1, a)          # vector: a = gelu(h + fc1.bias)
    matmul_bt(a, w2, z)          # cube: z = a @ fc2.weight^T
    bias_add(z, b2, y)           # vector: y = z + fc2.bias
