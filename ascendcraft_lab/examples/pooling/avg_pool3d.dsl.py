"""3-D average pooling with stride and padding (nn.AvgPool3d(k, s, p), count_include_pad=True).

The unit of work is one output row y[b, c, od, oh, :]; the cores split the B * C * OD * OH
output rows. An average over a k x k x k window is separable like max pooling: the sum along W
of the elementwise sum of the window's k x k input rows, divided by k^3. PyTorch's default
count_include_pad divides by the whole window, padding included, and without ceil mode every
window lies inside the padded input, so the divisor is the constant k^3.

1. The taps inside the input: along D [jd0, jd1), along H [jh0, jh1), on the scalar unit. A
   padding row adds 0 to the sum, so skipping it is exact. One flat loop `q` walks the
   (jd, jh) taps after the first (q // nh along D, q % nh along H): the first tap initialises
   the accumulator row, every other one is added to it. Whole rows from offset 0 of their
   buffers: every vector address is aligned.
2. `window_sum(acc, k, s, pad=p, count=OW)` sums each window along W and `* inv` scales by
   1 / k^3. A window starts at element o * s - p, not on a 32-byte boundary; the lowering
   copies the row behind align_up(p, 8) zero slots (an aligned copy, the padding physically
   there) and gathers element j of every window with one Gather per window offset j (uint32
   byte offsets), adding it in: k Gathers and k - 1 Add per output row on the vector unit.
"""


@host
def tiling(x: Tensor[f32, (B, C, D, H, W)], k: i32, s: i32, p: i32):
    rows = B * C * ((D + 2 * p - k) // s + 1) * ((H + 2 * p - k) // s + 1)
    cores, per_core = core_split(rows)
    return Launch(cores, rows=per_core)


@kernel
def avg_pool3d(
    x: GM[f32, ((B, C), D, H, W)],
    k: i32,
    s: i32,
    p: i32,
    y: Out[f32, ((B, C), (D + 2 * p - k) // s + 1, (H + 2 * p - k) // s + 1, (W + 2 * p - k) // s + 1)],
    t: Tiling,
):
    OD = (D + 2 * p - k) // s + 1
    OH = (H + 2 * p - k) // s + 1
    inv = 1.0 / (k * k * k)                  # count_include_pad: every window counts k^3 positions
    for r in core_rows(t.rows, B * C * ((D + 2 * p - k) // s + 1) * ((H + 2 * p - k) // s + 1)):
        oh = r % OH
        od = r // OH % OD
        bc = r // (OD * OH)
        d0 = od * s - p                      # the window's first input plane and row (may lie in the padding)
        h0 = oh * s - p
        jd0 = max(0, -d0)                    # the taps inside the input: [jd0, jd1) x [jh0, jh1)
        jd1 = min(k, D - d0)
        jh0 = max(0, -h0)
        jh1 = min(k, H - h0)
        nh = jh1 - jh0
        with copyin:
            xu = load(x[bc, d0 + jd0, h0 + jh0, :])
        with compute:
            acc = xu
        for q in range(1, (jd1 - jd0) * nh):
            with copyin:
                xv = load(x[bc, d0 + jd0 + q // nh, h0 + jh0 + q % nh, :])
            with compute:
                acc = acc + xv
        with compute:
            yu = window_sum(acc, k, s, pad=p, count=(W + 2 * p - k) // s + 1) * inv
        with copyout:
            store(y[bc, od, oh, :], yu)
