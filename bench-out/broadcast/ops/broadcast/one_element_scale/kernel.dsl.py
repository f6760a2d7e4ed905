"""Drafted from one_element_scale.py: elementwise with broadcasting (broadcast template): a one-element tensor loaded once. The full tensors move as 2-D tiles of rows, one strided copy each; the lowering reads the smaller operands in place with repeat strides."""


@host
def tiling(x: Tensor[f32, (B, M, N)]):
    cores = min(VECTOR_CORES, B * M)
    per_core = cdiv(B * M, cores)
    cores = cdiv(B * M, per_core)
    # a row's pitch is a vector repeat stride: at most 255 blocks of 32 bytes (2040 f32)
    cols = min(align_up(N, 8), 2040)
    tile_rows = max(ub_elems(f32, live=5, buffers=1) // cols, 1)
    return Launch(cores, per_core=per_core, cols=cols, tile_rows=min(min(tile_rows, per_core), 4095))


@kernel
def one_element_scale(
    x: GM[f32, ((B, M), N)],
    s: GM[f32, (1,)],
    y: Out[f32, ((B, M), N)],
    t: Tiling,
):
    with copyin:
        su = load(s[:])
    for part in core_chunk(t.per_core, B * M):
        for k in tiles(N, t.cols):
            for c in tiles(part, t.tile_rows):
                with copyin:
                    xu = load(x[c, k])
                with compute:
                    yu = xu * su + 1.0
                with copyout:
                    store(y[c, k], yu)
