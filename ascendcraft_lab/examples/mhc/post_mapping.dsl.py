"""mHC's post-mapping: every token's n streams remixed by its n x n matrix, plus the layer output.

x_next[t, i, :] = sum_j h_res[t, i, j] x[t, j, :] + h_post[t, i] f[t, :]. A token's streams are
n rows of C features; a core takes whole tokens, and a column tile of all n streams comes in as
one tile of rows (one strided copy), read once. For output stream i, row i of the token's matrix
is n consecutive floats: declared with a trailing axis of 1 they load as an (n, 1) tile, one
coefficient per stream row, so `h * xu` scales every stream by its coefficient (Brcb, one repeat
per row) and `reduce_sum(.., axis=0)` folds the n rows into the mixed row. GM traffic is the
minimum: x and f read once, x_next written once; the coefficients are n (n + 1) floats a token.
"""


@host
def tiling(x: Tensor[f32, (T, N, C)], f: Tensor[f32, (T, C)], h_post: Tensor[f32, (T, N)],
           h_res: Tensor[f32, (T, N, N, 1)]):
    cores, per_core = core_split(T)
    # xu (n rows) and fu in, yu out (x2 each); the scaled streams (n rows); the scratch of a line
    tile = ub_elems(f32, live=2 * N + 3)
    return Launch(cores, rows=per_core, tile=min(tile, C, 2040))   # a row of a tile: at most 255 blocks


@kernel
def post_mapping(x: GM[f32, (T, N, C)], f: GM[f32, (T, C)], h_post: GM[f32, (T, N)],
                 h_res: GM[f32, (T, N, N, 1)], y: Out[f32, (T, N, C)], t: Tiling):
    for r in core_rows(t.rows, T):
        for c in tiles(C, t.tile):
            with copyin:
                xu = load(x[r, :, c])                    # the token's n streams, one tile of rows
                fu = load(f[r, c])
            for i in range(N):
                with copyin:
                    h = load(h_res[r, i, :, :])          # row i of the matrix: one coefficient per stream
                    p = load(h_post[r, i])
                with compute:
                    yu = reduce_sum(h * xu, axis=0) + p * fu
                with copyout:
                    store(y[r, i, c], yu)
