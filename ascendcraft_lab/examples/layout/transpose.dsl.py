"""y[b] = x[b].T: a transpose of the last two axes, as blocks of rows transposed in UB.

A permute that keeps the last axis is only strided copies (each output row is an input row,
DataCopyPad's srcStride / dstStride skip the rest). Moving the last axis is different: an output
row gathers one element from each of many input rows, and GM copies move rows, not columns. So
the kernel moves a BLOCK: a tile of BM input rows x BN columns comes in with ONE strided
DataCopyPad (rows N apart in GM, each padded to a 32-byte pitch in UB), `transpose` turns it into
BN rows x BM columns in UB, and ONE strided DataCopyPad writes those rows into the output, whose
rows are M apart. Each element crosses GM once each way, in 32-byte-aligned runs of BM or BN.

Which AscendC API transposes in UB? `Transpose` (the basic form) takes 16 x 16 blocks of 2-byte
data and `TransDataTo5HD` 16 rows of 32 bytes at a time: neither takes a block of any rows x
columns of 4-byte floats without a loop of fix-ups around it. `Gather` reads any element of a
tile by its byte offset (2- and 4-byte types), so the lowering computes every result lane's
source offset on the vector unit (CreateVecIndex and a few Muls / Sub, no integer division) and
gathers the whole block in one instruction. The offsets take two scratch tiles, which the UB
plan counts; a 64 x 64 block keeps all six tiles (xu and yu double-buffered, the two scratch
tiles) near 96 KiB.

The cores split the rows of every batch (`core_chunk`); a core walks its rows in blocks of BM and
each block's columns in blocks of BN, the last of each possibly short.
"""


@host
def tiling(x: Tensor[f32, (B, M, N)]):
    cores, per_core = core_split(M)
    bm = min(per_core, 64)          # input rows of a block = columns of its transpose
    bn = min(N, 64)                 # input columns of a block = rows of its transpose
    return Launch(cores, per_core=per_core, bm=bm, bn=bn)


@kernel
def transpose(x: GM[f32, (B, M, N)], y: Out[f32, (B, N, M)], t: Tiling):
    for b in range(B):
        for part in core_chunk(t.per_core, M):          # this core's rows of batch b
            for mi in tiles(part, t.bm):
                for ni in tiles(N, t.bn):
                    with copyin:
                        xu = load(x[b, mi, ni])         # mi.len rows of ni.len: one strided copy
                    with compute:
                        yu = transpose(xu)              # ni.len rows of mi.len, in UB
                    with copyout:
                        store(y[b, ni, mi], yu)         # rows M apart in the output: one strided copy
