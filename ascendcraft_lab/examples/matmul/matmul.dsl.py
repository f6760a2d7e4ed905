"""C = A @ B on the cube unit: GM -> L1 -> L0A / L0B -> mmad -> L0C -> GM.

The cube multiplies matrices kept as fractals: blocks of 16 rows of 32 bytes (16 x 8 for f32).
C is cut into base_m x base_n blocks, which the cube cores take round-robin; for each block the
K axis is walked in base_k slices: a slice of A (base_m x base_k) and of B (base_k x base_n)
goes GM -> L1 (copyin, MTE2), L1 -> L0A / L0B (split, MTE1), and mmad adds their product into the
block's accumulator in L0C (compute, the M pipe). When every slice is in, Fixpipe writes the
block to GM (copyout). The last block of a row or column, and the last K slice, may be short:
the lowering pads them to whole fractals and the cube ignores the padding.
"""


@host
def tiling(a: Tensor[f32, (M, K)], b: Tensor[f32, (K, N)]):
    # f32 fractals are 16 x 8, so base_m and base_n step in 16s and base_k in 8s (16s where B is
    # transposed on the way to L0B, as here: in 16 x 16 squares). 128 x 64 f32 is 32 KiB, so two
    # of them (double buffering) fill the 64 KiB of L0A, and 64 x 128 two fill L0B; the 128 x 128
    # f32 accumulator takes half of L0C. A matrix smaller than that is one block, rounded up to
    # whole fractals. The tiling report shows the table and the neighbours that were not taken.
    base_m = min(128, align_up(M, 16))
    base_n = min(128, align_up(N, 16))
    base_k = min(64, align_up(K, 16))
    # one block per cube core at a time; more blocks than cores go round in several rounds
    cores = min(CUBE_CORES, cdiv(M, base_m) * cdiv(N, base_n))
    return Launch(cores, base_m=base_m, base_n=base_n, base_k=base_k)


@kernel
def matmul(a: GM[f32, (M, K)], b: GM[f32, (K, N)], c: Out[f32, (M, N)], t: Tiling):
    for mi, ni in core_tiles((M, N), (t.base_m, t.base_n)):   # this core's blocks of C
        acc = zeros(mi.len, ni.len, L0C)                     # the block's sum over K starts at 0
        for ki in tiles(K, t.base_k):
            with copyin:
                a1 = load(a[mi, ki], L1)                     # GM rows -> L1 fractals (ND -> Nz)
                b1 = load(b[ki, ni], L1)
            with split:
                a0 = load(a1, L0A)                           # L1 -> L0A: A as Mmad reads it
                b0 = load(b1, L0B)                           # L1 -> L0B: each fractal transposed
            with compute:
                acc = mmad(a0, b0, acc)                      # L0C += A slice x B slice
        with copyout:
            store(c[mi, ni], acc)                            # L0C -> GM (Fixpipe: fractals -> rows)
