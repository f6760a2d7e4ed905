"""y = x[:, 40:40 + W] + b: a slice of the last axis is a strided copy that starts further on.

Nothing is copied to make the slice: a 2-D tile of the cropped columns is ONE DataCopyPad whose
source address is the first cropped column of the first row (`k.start + 40`), with blockCount =
rows, blockLen = the tile's row bytes and srcStride = the GM gap from the end of one row's cropped
part to the start of the next (the columns the crop skips, N - k.len floats). In UB each row is
padded to its pitch, exactly as for a tile of whole rows, so the Add that follows does not know
it reads a crop: the bias tile is read with repeat stride 0 by every row (examples/broadcast).

The crop's width W is a dim of the bias; the offset is a literal here, as the reference's `start`
(a scalar parameter would do as well: an int expression is allowed in a GM index).
"""


@host
def tiling(x: Tensor[f32, (B, N)], b: Tensor[f32, (W,)]):
    cores = min(VECTOR_CORES, B)
    per_core = cdiv(B, cores)
    cores = cdiv(B, per_core)
    cols = min(align_up(W, 8), 2040)         # a row's pitch is a repeat stride: at most 255 blocks
    # per row of a tile: xu and yu, double-buffered (4 pitches); the bias tile is one more row
    tile_rows = max(ub_elems(f32, live=5, buffers=1) // cols, 1)
    return Launch(cores, per_core=per_core, cols=cols, tile_rows=min(tile_rows, per_core))


@kernel
def crop_bias(x: GM[f32, (B, N)], b: GM[f32, (W,)], y: Out[f32, (B, W)], t: Tiling):
    for part in core_chunk(t.per_core, B):              # this core's rows
        for k in tiles(W, t.cols):                      # k: a tile of the cropped columns
            with copyin:
                bu = load(b[k])                         # the bias of these columns, once per core and k
            for c in tiles(part, t.tile_rows):          # c: a block of rows
                with copyin:
                    xu = load(x[c, k.start + 40:k.start + 40 + k.len])   # one strided copy from column 40 + k.start
                with compute:
                    yu = xu + bu
                with copyout:
                    store(y[c, k], yu)                  # the output is dense: no offset
