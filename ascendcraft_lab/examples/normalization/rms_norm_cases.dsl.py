"""RMSNorm over the last dim for every case of an NPUKernelBench task: one kernel, any rank, three dtypes.

What this example teaches, beside normalization/rms_norm.dsl.py (the same two sweeps for one
float32 shape):

- `@kernel(T=(f32, f16, bf16))`: one source, three variants. T is the dtype of x and y; each
  case's x picks its variant, each variant is compiled once for all its cases. Tiles of a half
  type are computed in f32 (Cast in after the load, Cast back with rint before the store), as
  PyTorch computes half types in float and rounds once; so `ub_elems(f32, ...)` sizes the tiles.
- `(*S, N)`: a dim pack. S is the product of every dim before the last, whatever the case's rank
  (1 for a 1-D x, 0 for an empty batch); the host function sees one S and one N, the binding
  folds the case's shape into them and gives y the case's own shape back.
- `eps: f32` is a per-case attribute of the JSON cases (`{"type": "attr", "name": "eps"}`):
  a forward argument, so it reaches the kernel as a scalar of the launch, not a constant.
"""


@host
def tiling(x: Tensor[T, (*S, N)]):
    # Whole rows per core: a row's sum of squares stays on one core, no cross-core combine.
    # An empty batch (S == 0) never launches: the binding returns the empty y before the launch.
    cores = min(VECTOR_CORES, S)
    rows = cdiv(S, cores)
    cores = cdiv(S, rows)
    # The tile is sized for the variant that needs most UB. float32: xu and yu double-buffered (4
    # tiles) plus the square and ReduceSum's work tile (2) = 6. f16/bf16: the half-type xu and yu
    # (2 x 2 half-size = 2 tiles), xu cast to f32 in each sweep (2), yu in f32 (1) and the same 2
    # of scratch = 7. live=4 gives 8 tiles' worth: every variant fits, and a case whose row is
    # longer than the tile (N = 50003 in bf16) is swept tile by tile.
    tile = ub_elems(f32, live=4)
    return Launch(cores, rows=rows, tile=min(tile, N), inv_n=1.0 / N)


@kernel(T=(f32, f16, bf16))
def rms_norm_cases(x: GM[T, (*S, N)], eps: f32, y: Out[T, (*S, N)], t: Tiling):
    for r in core_rows(t.rows, S):
        # Sweep 1: the row's sum of squares, tile by tile, so a row longer than UB works too.
        ss = 0.0
        for c in tiles(N, t.tile):
            with copyin:
                xu = load(x[r, c])
            with compute:
                ss = ss + reduce_sum(xu * xu)
        scale = rsqrt(ss * t.inv_n + eps)       # one scalar per row, on the scalar unit
        # Sweep 2: the same tiles again, scaled (Muls) and stored in the case's dtype.
        for c in tiles(N, t.tile):
            with copyin:
                xu = load(x[r, c])
            with compute:
                yu = xu * scale
            with copyout:
                store(y[r, c], yu)
