"""Drafted from channel_bias_4d.py: elementwise with broadcasting (folded broadcast template): the output folded to [B x C x H * W], the last axis a row, [C] the rows of a tile, the other axes outer indices a core walks with scalar GM offsets. Each input is loaded in its own shape: a 2-D tile where it varies along rows and columns, one row reused by every row (repeat stride 0), one value per row (Brcb), or a scalar."""


@host
def tiling(x: Tensor[f32, (B, C, H, W)]):
    cores = min(VECTOR_CORES, B)
    per_core = cdiv(B, cores)
    cores = cdiv(B, per_core)
    # a row's pitch is a vector repeat stride: at most 255 blocks of 32 bytes (2040 f32)
    cols = min(align_up(H * W, 8), 2040)
    tile_rows = max(ub_elems(f32, live=5, buffers=1) // cols, 1)
    return Launch(cores, per_core=per_core, cols=cols, tile_rows=min(min(tile_rows, C), 4095))


@kernel
def channel_bias_4d(
    x: GM[f32, (B, C, (H, W))],
    bias: GM[f32, (C, 1)],
    y: Out[f32, (B, C, (H, W))],
    t: Tiling,
):
    for q in core_rows(t.per_core, B):          # an outer index: scalar GM offsets
        for k in tiles(H * W, t.cols):
            for c in tiles(C, t.tile_rows):
                with copyin:
                    xu = load(x[q, c, k])
                    biasu = load(bias[c, :])
                with compute:
                    yu = xu + biasu
                with copyout:
                    store(y[q, c, k], yu)
