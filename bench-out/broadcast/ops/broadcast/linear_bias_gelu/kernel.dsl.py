"""Drafted from linear_bias_gelu.py: elementwise with broadcasting (broadcast template): a per-column vector loaded once per column tile and reused by every block of rows. The full tensors move as 2-D tiles of rows, one strided copy each; the lowering reads the smaller operands in place with repeat strides."""


@host
def tiling(x: Tensor[f32, (B, N)]):
    cores = min(VECTOR_CORES, B)
    per_core = cdiv(B, cores)
    cores = cdiv(B, per_core)
    # a row's pitch is a vector repeat stride: at most 255 blocks of 32 bytes (2040 f32)
    cols = min(align_up(N, 8), 2040)
    tile_rows = max(ub_elems(f32, live=6, buffers=1) // cols, 1)
    return Launch(cores, per_core=per_core, cols=cols, tile_rows=min(min(tile_rows, per_core), 4095))


@kernel
def linear_bias_gelu(
    x: GM[f32, (B, N)],
    bias: Param[f32, (N,), "bias"],
    y: Out[f32, (B, N)],
    t: Tiling,
):
    for part in core_chunk(t.per_core, B):
        for k in tiles(N, t.cols):
            with copyin:
                biasu = load(bias[k])
            for c in tiles(part, t.tile_rows):
                with copyin:
                    xu = load(x[c, k])
                with compute:
                    v = xu + biasu
                    yu = v * 0.5 * (tanh((v + v * v * v * 0.044715) * 0.7978845608028654) + 1.0)
                with copyout:
                    store(y[c, k], yu)
