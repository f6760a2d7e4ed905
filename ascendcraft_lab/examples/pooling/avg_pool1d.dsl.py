"""Average pooling along each (batch, channel) row; tiles run over the OUTPUT positions.

Tiling the output and loading `windows(c, k, s)` of the input makes every tile hold exactly
the windows it needs, so no window straddles two tiles (overlapping windows, k > s, included)
and the last, short tile needs no special case; a row of any length streams through UB.
window_avg lowers to Gathers: element j of every window (byte offset (o * s + j) * 4) into an
aligned tile, added in, so no vector instruction starts at a window's unaligned address.
This kernel has no padding; pooling with padding is in max_pool2d and avg_pool3d.
"""


@host
def tiling(x: Tensor[f32, (B, C, L)], k: i32, s: i32):
    rows = B * C
    cores, per_core = core_split(rows)
    # An output tile of T values reads (T - 1) * s + k inputs; both double-buffered. The window
    # op gathers element j of every window into a scratch tile, with a scratch tile of offsets
    # (as long as the input). T * (s + k) floats, four times, bound them all for any k and s.
    tile = max(ub_elems(f32, live=2) // (s + k), 1)
    return Launch(cores, rows=per_core, tile=min(tile, (L - k) // s + 1))


@kernel
def avg_pool1d(x: GM[f32, ((B, C), L)], k: i32, s: i32, y: Out[f32, ((B, C), (L - k) // s + 1)], t: Tiling):
    for r in core_rows(t.rows, B * C):
        for c in tiles((L - k) // s + 1, t.tile):
            with copyin:
                xu = load(x[r, windows(c, k, s)])
            with compute:
                yu = window_avg(xu, k, s)
            with copyout:
                store(y[r, c], yu)
