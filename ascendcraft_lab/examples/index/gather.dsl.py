"""Gather along a row: the source row held whole in UB, one vector Gather per tile of indices.

out[b, k] = x[b, index[b, k]] reads any element of the row, so the row itself is copied into UB
once (4096 f32 = 16 KiB) and every tile of indices is answered from there; GM is read exactly
once per element of x, however often an index repeats. AscendC's Gather takes per-lane *byte*
offsets (uint32) relative to the source tensor, so the int64 indices are cast to i32 on the
vector unit and multiplied by 4 (take() does the Muls); the offsets may point anywhere in the
source, unlike the aligned operands of every other vector instruction.

The indices are not clamped: they are the reference's. take() hands Gather a handle sized to
the row's valid elements (LocalTensor::SetSize), so on the emulator an index outside [0, N)
is a finding at this file's take() line rather than a silent read of the row's padding.
"""


@host
def tiling(x: Tensor[f32, (B, N)], index: Tensor[i64, (B, K)]):
    cores = min(VECTOR_CORES, B)
    rows = cdiv(B, cores)
    cores = cdiv(B, rows)
    # Beside the row (N, double-buffered across rows): per index tile the int64 indices
    # (2 f32-sized slots, double-buffered: 4), the result (double-buffered: 2) and two scratch
    # slots (the i32 cast and the Gather offsets): 8 tiles, i.e. live=4, plus room for the row.
    tile = ub_elems(f32, live=6)
    return Launch(cores, rows=rows, tile=min(tile, K))


@kernel
def gather_last(x: GM[f32, (B, N)], index: GM[i64, (B, K)], y: Out[f32, (B, K)], t: Tiling):
    for r in core_rows(t.rows, B):
        with copyin:
            xu = load(x[r, :])                      # the whole source row, read by every index tile
        for c in tiles(K, t.tile):
            with copyin:
                iu = load(index[r, c])              # int64 indices: 8 bytes each
            with compute:
                yu = take(xu, cast(iu, i32))        # Cast to i32, Muls by 4, one Gather
            with copyout:
                store(y[r, c], yu)
