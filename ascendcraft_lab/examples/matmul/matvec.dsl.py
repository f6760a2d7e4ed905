"""y = A @ x on the vector unit, not the cube: one dot product per row.

With one column the cube would pad x to a 16-column fractal and do 16 times the work it needs,
and it gains nothing: every element of A is used once, so the kernel is as fast as A streams
from GM. The vector unit streams A row by row in UB-sized tiles, multiplies each tile by the
same tile of x and sums it into a scalar carry; the row's sum is one element of y.
"""


@host
def tiling(a: Tensor[f32, (M, K)], x: Tensor[f32, (K, 1)]):
    cores = min(VECTOR_CORES, M)
    rows = cdiv(M, cores)
    cores = cdiv(M, rows)
    # au and xu double-buffered, plus the scratch of reduce_sum(au * xu): the product and ReduceSum's work tensor
    return Launch(cores, rows=rows, tile=min(ub_elems(f32, live=3), K))


@kernel
def matvec(a: GM[f32, (M, K)], x: GM[f32, (K, 1)], y: Out[f32, (M, 1)], t: Tiling):
    for r in core_rows(t.rows, M):
        s = 0.0
        for c in tiles(K, t.tile):
            with copyin:
                au = load(a[r, c])
                xu = load(x[c, 0])                 # a column of x is contiguous: its one column is 1 wide
            with compute:
                s = s + reduce_sum(au * xu)
        with copyout:
            store(y[r, 0], s)
