"""Nearest-neighbour upsampling: a scalar source row per output row, one Gather per column tile.

Output element (oh, ow) copies source (floor(oh * s), floor(ow * s)) with s = 1 / scale_factor
(PyTorch's "nearest", in f32). The source row is a scalar of the output row, so the kernel
copies that row into UB whole (a DataCopyPad from a GM address the scalar unit computes, like
an embedding row); the source columns of a tile of output columns are vector arithmetic on
CreateVecIndex (`iota`), Cast with CAST_FLOOR, and one vector Gather (`take`) answers the tile
from the row in UB. Every source element is read from GM once per output row that uses it;
the Gather repeats it along the row on chip, so no widened copy of the image exists in GM.
"""


@host
def tiling(x: Tensor[f32, ((N, C), H, W)]):
    rows = N * C * (H * 2)                          # one output row per (plane, oh)
    cores = min(VECTOR_CORES, rows)
    per_core = cdiv(rows, cores)
    cores = cdiv(rows, per_core)
    tile = ub_elems(f32, live=6)
    return Launch(cores, rows=per_core, tile=min(tile, W * 2), scale=1.0 / 2.0)


@kernel
def upsample_nearest(x: GM[f32, ((N, C), H, W)], y: Out[f32, ((N, C), H * 2, W * 2)], t: Tiling):
    for r in core_rows(t.rows, N * C * (H * 2)):
        p = r // (H * 2)
        oh = r % (H * 2)
        h = min(cast(oh * t.scale, i32, round="floor"), H - 1)     # the source row (scalar unit)
        with copyin:
            xu = load(x[p, h, :])                   # the whole source row, read by every column tile
        for c in tiles(W * 2, t.tile):
            with compute:
                w = min(cast(iota(c.len, c.start) * t.scale, i32, round="floor"), W - 1)
                yu = take(xu, w)                    # one vector Gather: each lane reads its source column
            with copyout:
                store(y[p, oh, c], yu)
