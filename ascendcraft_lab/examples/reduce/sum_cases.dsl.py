"""Sum over the last dim for every case of an NPUKernelBench task: any row length, any rank, three dtypes.

What this example teaches, beside reduce/sum.dsl.py (many short rows of one float32 shape in a
2-D tile, WholeReduceSum per row):

- One tiling that serves every case. A 2-D tile of whole rows walks its rows one vector repeat
  each, so a row's pitch must stay within a repeat stride (255 blocks: 2040 floats); a case of
  rows of 20011 or 50003 elements cannot use it. Here each core takes whole rows (`core_split`)
  and sweeps a row tile by tile: ReduceSum of a tile (its work tensor is the statement's
  scratch) added to a scalar accumulator on the scalar unit, one value stored per row, so the
  same kernel runs a row of 1 element and a row longer than UB.
- `@kernel(T=(f32, f16, bf16))`: one source, three variants; a case's x picks its variant, each
  variant is compiled once for all its cases. A half-type tile is cast to f32 after the load,
  so the sum accumulates in f32 and is rounded once when the per-row value is cast back for
  the store, as PyTorch sums half types in float.
- `(*S, N)` and `(*S,)`: dim packs. S is the product of the dims before the last, whatever the
  case's rank (1 for a 1-D x, 0 for an empty batch, which never launches); the binding folds
  each case's shape into S and N and gives y the case's own shape back.
"""


@host
def tiling(x: Tensor[T, (*S, N)]):
    cores, per_core = core_split(S)
    # xr double-buffered (2 tiles), its f32 copy in a half-type variant and ReduceSum's work
    # tile: 4 f32 tiles' worth at most, so live=2 (x2 buffers) fits every variant.
    tile = ub_elems(f32, live=2)
    return Launch(cores, per_core=per_core, tile=min(tile, N))


@kernel(T=(f32, f16, bf16))
def sum_cases(x: GM[T, (*S, N)], y: Out[T, (*S,)], t: Tiling):
    for r in core_rows(t.per_core, S):
        s = 0.0                              # the row's running sum, on the scalar unit
        for k in tiles(N, t.tile):
            with copyin:
                xr = load(x[r, k])           # one tile of the row (DataCopyPad: any length)
            with compute:
                s = s + reduce_sum(xr)       # ReduceSum, then a vector -> scalar sync
        with compute:
            ys = s                           # the stage that casts the sum back to a half type
        with copyout:
            store(y[r], ys)                  # one scalar per row, through a 32-byte queue
