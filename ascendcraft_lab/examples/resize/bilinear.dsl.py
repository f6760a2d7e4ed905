"""Bilinear resampling: two source rows per output row, two Gathers per tile of output columns.

Bilinear interpolation is separable. An output row oh reads source rows h0 and h1 = h0 + 1 at
the weight ly of the second: those are scalars (scalar-unit arithmetic on oh), so the two rows
are copied into UB whole and blended once per output row with one vector lerp
(row = a + (b - a) * ly). Along the row every output column ow has its own source position
sx = (ow + 0.5) * scale - 0.5 (PyTorch's align_corners=False, clamped at 0): the tile's columns
come from CreateVecIndex (`iota(c.len, c.start)`), the positions, their floor w0 (Cast with
CAST_FLOOR) and the weight sx - w0 are vector arithmetic, and the two taps are vector Gathers
(`take`) from the blended row at byte offsets w0 * 4 and (w0 + 1) * 4. No index table is read from GM.

The scale is PyTorch's: 1 / scale_factor when the reference gives a scale factor (not the
ratio of the sizes, which differs when the size was rounded down), computed on the host.
"""


@host
def tiling(x: Tensor[f32, ((N, C), H, W)]):
    rows = N * C * (H * 3 // 4)                              # one output row per (plane, oh)
    cores = min(VECTOR_CORES, rows)
    per_core = cdiv(rows, cores)
    cores = cdiv(rows, per_core)
    tile = ub_elems(f32, live=8)
    return Launch(cores, rows=per_core, tile=min(tile, W * 3 // 4), scale=1.0 / 0.75)


@kernel
def bilinear(x: GM[f32, ((N, C), H, W)], y: Out[f32, ((N, C), H * 3 // 4, W * 3 // 4)], t: Tiling):
    OH = H * 3 // 4                                 # floor(H * 0.75), PyTorch's output size
    OW = W * 3 // 4
    for r in core_rows(t.rows, N * C * (H * 3 // 4)):
        p = r // OH
        oh = r % OH
        sy = max((oh + 0.5) * t.scale - 0.5, 0.0)   # the source row position (scalar unit)
        h0 = cast(sy, i32, round="floor")
        h1 = min(h0 + 1, H - 1)
        ly = sy - h0
        with copyin:
            a = load(x[p, h0, :])                   # the two source rows, whole
            b = load(x[p, h1, :])
        with compute:
            row = a + (b - a) * ly                  # blended once per output row
        for c in tiles(OW, t.tile):
            with compute:
                sx = max((iota(c.len, c.start) + 0.5) * t.scale - 0.5, 0.0)
                w0 = cast(sx, i32, round="floor")
                left = take(row, w0)                # vector Gathers from the blended row; w0 + 1 is the
                yu = left + (take(row, min(w0 + 1, W - 1)) - left) * (sx - cast(w0, f32))   # right tap
            with copyout:
                store(y[p, oh, c], yu)
