"""2-D max pooling with padding, dilation and ceil mode (nn.MaxPool2d(k, s, p, d, ceil_mode=True)).

The unit of work is one output row y[b, c, oh, :]; the cores split the B * C * OH output rows.
Max is separable: the max over a k x k window is the max along W of the elementwise max of
the window's k input rows. So an output row

1. combines the input rows x[b, c, oh * s - p + j * d, :] of its window, for the taps j whose
   row lies inside the input, elementwise with max. A tap in the padding would only bring
   -inf, so skipping it is exact; the taps inside form the range [j0, j1), computed on the
   scalar unit. Whole rows from offset 0 of their buffers: every vector address is aligned.
2. pools that one row along W with `window_max(acc, k, s, pad=p, dilation=d, count=OW)`.

Step 2 is where alignment bites: window o starts at element o * s - p of the row, almost never
on a 32-byte boundary, and vector instructions start only at 32-byte aligned UB addresses.
The lowering never addresses a window. It copies the row behind align_up(p, 8) slots of -inf
(the copy starts on a block boundary and the padding is physically there, also past the end
of the row for a ceil-mode window), then for each window offset j one Gather (uint32 byte
offsets, any element) collects element j of every window into a dense aligned tile, folded in
with Max: k Gathers and k - 1 Max per output row, all on the vector unit.

Ceil mode: OW = ceil((W + 2p - d (k - 1) - 1) / s) + 1, but a last window must start inside the
input or its left padding (PyTorch's rule), so at most (W + p - 1) // s + 1 windows: the min().
"""


@host
def tiling(x: Tensor[f32, (B, C, H, W)], k: i32, s: i32, p: i32, d: i32):
    rows = B * C * min((H + 2 * p - d * (k - 1) + s - 2) // s + 1, (H + p - 1) // s + 1)
    cores, per_core = core_split(rows)
    return Launch(cores, rows=per_core)


@kernel
def max_pool2d(
    x: GM[f32, ((B, C), H, W)],
    k: i32,
    s: i32,
    p: i32,
    d: i32,
    y: Out[f32, ((B, C), min((H + 2 * p - d * (k - 1) + s - 2) // s + 1, (H + p - 1) // s + 1),
                 min((W + 2 * p - d * (k - 1) + s - 2) // s + 1, (W + p - 1) // s + 1))],
    t: Tiling,
):
    OH = min((H + 2 * p - d * (k - 1) + s - 2) // s + 1, (H + p - 1) // s + 1)
    for r in core_rows(t.rows, B * C * min((H + 2 * p - d * (k - 1) + s - 2) // s + 1, (H + p - 1) // s + 1)):
        bc = r // OH
        oh = r % OH
        h0 = oh * s - p                      # the window's first input row (may lie in the padding)
        j0 = (max(0, -h0) + d - 1) // d      # the first tap inside the input
        j1 = min(k, (H - 1 - h0) // d + 1)   # one past the last (a ceil-mode window may hang over)
        with copyin:
            xu = load(x[bc, h0 + j0 * d, :])
        with compute:
            acc = xu
        for j in range(j0 + 1, j1):
            with copyin:
                xv = load(x[bc, h0 + j * d, :])
            with compute:
                acc = max(acc, xv)
        with compute:
            yu = window_max(acc, k, s, pad=p, dilation=d,
                            count=min((W + 2 * p - d * (k - 1) + s - 2) // s + 1, (W + p - 1) // s + 1))
        with copyout:
            store(y[bc, oh, :], yu)
