"""relu(x @ W^T + b): the cube multiplies, the vector unit adds the bias and clamps.

On Atlas A2 the cube (AIC) and the vector unit (AIV) are separate cores of an AI core, with their
own memories: L0C cannot reach UB. So the kernel has two parts. The cube part writes x @ W^T to
a GM Workspace; `sync_all()` waits until every cube core is done (the lowering hands over with
cross-core flags, and launches one AI core, a cube core and two vector cores, per block); the
vector part streams that product row by row, adds the bias and applies relu. The weight is
nn.Linear's [out, in]: B^T, which needs no transpose on its way to L0B.
"""


@host
def tiling(x: Tensor[f32, (M, K)], w: Tensor[f32, (N, K)], bias: Tensor[f32, (N,)]):
    base_m = min(128, align_up(M, 16))
    base_n = min(128, align_up(N, 16))
    base_k = min(64, align_up(K, 8))           # B^T is not transposed in the split: K steps in f32 fractals of 8
    cores = min(CUBE_CORES, cdiv(M, base_m) * cdiv(N, base_n))
    rows = cdiv(M, cores)
    # the epilogue: the product's tile, the bias's and the result's, each double-buffered
    return Launch(cores, base_m=base_m, base_n=base_n, base_k=base_k, rows=rows, tile=min(ub_elems(f32, live=3), N))


@kernel
def linear_relu(
    x: GM[f32, (M, K)],
    w: Param[f32, (N, K), "linear.weight"],
    bias: Param[f32, (N,), "linear.bias"],
    y: Out[f32, (M, N)],
    xw: Workspace[f32, (M, N)],
    t: Tiling,
):
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
            store(xw[mi, ni], acc)                  # the cube's result leaves for GM
    sync_all()                                      # every cube core is done: the vector cores take over
    for r in core_rows(t.rows, M):
        for c in tiles(N, t.tile):
            with copyin:
                hu = load(xw[r, c])
                bu = load(bias[c])
            with compute:
                yu = relu(hu + bu)
            with copyout:
                store(y[r, c], yu)
