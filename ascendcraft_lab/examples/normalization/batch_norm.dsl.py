"""BatchNorm2d as built (training mode): per-channel statistics over N, H and W, then the affine map.

A channel's elements are not contiguous: they are B planes of H * W floats, one every C * H * W.
The cores split the channels (`core_rows` over C); a core walks each of its channels plane by
plane (`for n in range(B)`) and each plane in tiles, so every copy is one contiguous run of GM
that lands at the start of its UB buffer: vector instructions always start 32-byte aligned, no
strided or gathered copy is needed, and a plane that is not a whole number of 32-byte blocks only
turns its last tile's copy into a DataCopyPad.

Three sweeps per channel: the sum (mean), the sum of squared deviations (the biased variance in
two passes: E[x^2] - E[x]^2 would cancel away digits when |mean| >> std), then the output. Each
sum adds one ReduceSum per tile into a scalar, so a channel of a million floats is a sum of a few
hundred tile sums, not a million-step running sum. The weight and bias are folded with the
statistics once per channel into one scale and one shift, so the output sweep costs two vector
instructions per tile (Muls, Adds).
"""


@host
def tiling(x: Tensor[f32, (B, C, H, W)]):
    cores = min(VECTOR_CORES, C)
    rows = cdiv(C, cores)
    cores = cdiv(C, rows)
    # At most 8 tile-sized buffers: xu and yu double-buffered (4), d (1), and 2 scratch tiles
    # for reduce_sum(d * d) (the square and ReduceSum's work tensor).
    tile = ub_elems(f32, live=4)
    return Launch(cores, rows=rows, tile=min(tile, H * W), inv_n=1.0 / (B * H * W))


@kernel
def batch_norm(
    x: GM[f32, (B, C, (H, W))],
    w: Param[f32, (C,), "bn.weight"],
    b: Param[f32, (C,), "bn.bias"],
    y: Out[f32, (B, C, (H, W))],
    t: Tiling,
):
    for ch in core_rows(t.rows, C):
        with copyin:
            wc = load(w[ch])                    # one number each: scalar loads
            bc = load(b[ch])
        s = 0.0
        for n in range(B):
            for c in tiles(H * W, t.tile):
                with copyin:
                    xu = load(x[n, ch, c])
                with compute:
                    s = s + reduce_sum(xu)
        mean = s * t.inv_n
        ss = 0.0
        for n in range(B):
            for c in tiles(H * W, t.tile):
                with copyin:
                    xu = load(x[n, ch, c])
                with compute:
                    d = xu - mean
                    ss = ss + reduce_sum(d * d)
        scale = wc * rsqrt(ss * t.inv_n + 1e-05)   # weight / sqrt(var + eps)
        shift = bc - mean * scale
        for n in range(B):
            for c in tiles(H * W, t.tile):
                with copyin:
                    xu = load(x[n, ch, c])
                with compute:
                    yu = xu * scale + shift
                with copyout:
                    store(y[n, ch, c], yu)
