"""Batched C[i] = A[i] @ B[i]^T with f16 inputs: the cube accumulates in f32, Fixpipe writes f16.

Two things differ from the square matmul example. The blocks form a three-axis grid (batch, M, N)
and the cores share all of it, so many small batches still keep every core busy. And B arrives
as [N, K] (an nn.Linear weight has this layout too): loaded as it is, an (n x k) tile in L1 is
already what L0B holds, because L0B keeps each fractal transposed; `transpose=True` says that
the L1 tile is B^T, and the lowering copies it with no transpose at all. (B as [K, N] is the
case that costs a transpose in the split.) An f16 fractal is 16 x 16, so base_k steps in 16s.
"""


@host
def tiling(a: Tensor[f16, (G, M, K)], b: Tensor[f16, (G, N, K)]):
    # 128 x 64 f16 is 16 KiB (two in L0A: 32 KiB), 64 x 256 is 32 KiB (two fill L0B) and the
    # 128 x 256 f32 accumulator fills L0C's 128 KiB.
    base_m = min(128, align_up(M, 16))
    base_n = min(256, align_up(N, 16))
    base_k = min(64, align_up(K, 16))
    cores = min(CUBE_CORES, G * cdiv(M, base_m) * cdiv(N, base_n))
    return Launch(cores, base_m=base_m, base_n=base_n, base_k=base_k)


@kernel
def batched_matmul_bt(a: GM[f16, (G, M, K)], b: GM[f16, (G, N, K)], c: Out[f16, (G, M, N)], t: Tiling):
    for gi, mi, ni in core_tiles((G, M, N), (1, t.base_m, t.base_n)):   # one batch per block row
        acc = zeros(mi.len, ni.len, L0C)
        for ki in tiles(K, t.base_k):
            with copyin:
                a1 = load(a[gi.start, mi, ki], L1)          # the batch index drops its axis
                b1 = load(b[gi.start, ni, ki], L1)          # an (n x k) tile: B^T
            with split:
                a0 = load(a1, L0A)
                b0 = load(b1, L0B, transpose=True)          # B^T in L1 is B as L0B keeps it: no transpose
            with compute:
                acc = mmad(a0, b0, acc)                     # f16 x f16, summed in f32
        with copyout:
            store(c[gi.start, mi, ni], acc)                 # Fixpipe rounds the f32 sums to f16
