"""mHC's residual mapping: Sinkhorn-Knopp on every token's n x n matrix, all in UB.

A token's matrix is n * n consecutive floats (16 for n = 4), far less than a 32-byte block row
of a tile of rows would waste, so the tensor is viewed flat and every core takes whole tokens: a
tile is a run of whole matrices. One iteration divides every element by its row's sum, then by
its column's sum. Those sums are Gathers, not a scalar loop: for every lane, `take` reads the
k-th element of the lane's row (at row_start + k) or of its column (at column_start + k * n), and
n Gathers added give every lane its own sum; a Div normalises the whole tile at once. The Gather
offsets are computed once per tile on the vector unit (iota, a floor, a clamp that keeps the
padding lanes of a ragged last tile inside the tile), then 2 n Gathers, 2 (n - 1) Adds and two
Divs per iteration. GM is read and written once; everything between is vector work.
"""


@host
def tiling(logits: Tensor[f32, (T, N, N)]):
    per_core = cdiv(T, VECTOR_CORES) * N * N      # whole tokens per core
    cores = cdiv(T * N * N, per_core)
    # xu and yu (x2 each); p, row, col, ri, ci, m, s; a Gather's offsets and a sum's operand: 13 tiles
    tile = ub_elems(f32, live=7) // (N * N) * (N * N)      # whole tokens per tile
    return Launch(cores, chunk=per_core, tile=min(tile, per_core))


@kernel
def residual_sinkhorn(logits: GM[f32, ((T, N, N),)], iterations: i32, y: Out[f32, ((T, N, N),)], t: Tiling):
    for part in core_chunk(t.chunk, T * N * N):
        for c in tiles(part, t.tile):
            with copyin:
                xu = load(logits[c])
            with compute:
                p = iota(c.len)                                   # lanes: tile positions (the tile starts a token)
                row = floor((p + 0.5) / N) * N                     # the lane's row start
                col = floor((p + 0.5) / (N * N)) * (N * N) + (p - row)   # its column's first element
                ri = cast(clamp(row, 0, c.len - N), i32)
                ci = cast(clamp(col, 0, c.len - 1 - (N - 1) * N), i32)
                m = exp(xu)
            for it in range(iterations):
                with compute:
                    s = take(m, ri)
                for k in range(1, N):
                    with compute:
                        s = s + take(m, ri + k)
                with compute:
                    m = m / s
                    s = take(m, ci)
                for k in range(1, N):
                    with compute:
                        s = s + take(m, ci + k * N)
                with compute:
                    m = m / s
            with compute:
                yu = m + 0.0
            with copyout:
                store(y[c], yu)
