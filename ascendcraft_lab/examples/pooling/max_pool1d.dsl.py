"""Max pooling along each (batch, feature) row, tiled over the output (see avg_pool1d)."""


@host
def tiling(x: Tensor[f32, (B, C, L)], k: i32, s: i32):
    rows = B * C
    cores, per_core = core_split(rows)
    tile = max(ub_elems(f32, live=2) // (s + k), 1)      # the input, output and gather tiles (see avg_pool1d)
    return Launch(cores, rows=per_core, tile=min(tile, (L - k) // s + 1))


@kernel
def max_pool1d(x: GM[f32, ((B, C), L)], k: i32, s: i32, y: Out[f32, ((B, C), (L - k) // s + 1)], t: Tiling):
    for r in core_rows(t.rows, B * C):
        for c in tiles((L - k) // s + 1, t.tile):
            with copyin:
                xu = load(x[r, windows(c, k, s)])
            with compute:
                yu = window_max(xu, k, s)
            with copyout:
                store(y[r, c], yu)
