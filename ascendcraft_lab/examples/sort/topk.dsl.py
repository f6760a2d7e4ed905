"""Top-k of every row on the vector unit: Sort32, MrgSort and Extract on (score, index) pairs.

AscendC has no comparison sort of arbitrary length. It has Sort32, which sorts 32 scores at a
time (largest first) into 8-byte (score, index) pairs, the index taken from a second tensor of
uint32 positions, and MrgSort, which merges up to four sorted queues of pairs into one. So a row
is sorted bottom-up: Sort32 over groups of 32, then MrgSort rounds of four queues each (32 ->
128 -> 512 -> 2048 pairs), then Extract splits the positions off the pairs. argsort() writes all
of that; the row is padded with -inf up to whole Extract repeats (64 floats), so the padding
sorts after every real element and never reaches the result.

Equal scores: Sort32 puts the lower position first, and the queues are merged in position
order, so equal values keep their input order (PyTorch's stable order). torch.topk does not
promise an order among equal values; the indices of randn rows have no ties in f32.

The whole row must be in UB at once (sorting is not a tile-by-tile operation): 1024 f32 is
4 KiB, and argsort's scratch is 6 slots of the padded row (scores, positions, two buffers of
pairs at 8 bytes each), so rows up to a few thousand elements fit. The values are gathered
from the row by the sorted positions (take: one vector Gather), exactly the input's bits.
"""


@host
def tiling(x: Tensor[f32, (B, N)], k: i32):
    cores = min(VECTOR_CORES, B)
    rows = cdiv(B, cores)
    cores = cdiv(B, rows)
    return Launch(cores, rows=rows)


@kernel
def topk(x: GM[f32, (B, N)], k: i32, values: Out[f32, (B, k)], indices: Out[i64, (B, k)], t: Tiling):
    for r in core_rows(t.rows, B):
        with copyin:
            xu = load(x[r, :])                         # the whole row: a sort needs every element
        with compute:
            at = argsort(xu, descending=True, k=k)     # positions of the k largest, largest first
            vu = take(xu, at)                          # their values, gathered from the row
            iu = cast(at, i64)                         # PyTorch's indices are int64
        with copyout:
            store(values[r, :], vu)
            store(indices[r, :], iu)
