"""GroupNorm: statistics per (sample, group of C / num_groups channels), then the per-channel affine map.

The channels of one group are adjacent, so a group of a sample is per_group planes of H * W floats
that follow each other in GM. x is viewed as ((B, C), (H, W)): one row per (sample, channel) plane.
The cores split the B * num_groups groups; group g starts at plane g * per_group (sample g //
num_groups, first channel (g % num_groups) * per_group). Each plane is walked in tiles, every tile a
contiguous copy landing at the start of its UB buffer (32-byte aligned for the vector unit; only a
ragged last tile needs DataCopyPad), so no strided copy is needed.

Three sweeps per group: the sum (mean), the sum of squared deviations (the biased variance in two
passes, no cancellation), then the output. The output sweep loads each channel's weight and bias as
scalars once per plane and folds them with the group's statistics into one scale and one shift, so
a tile costs two vector instructions (Muls, Adds). `num_groups` is the Model's get_init_inputs()
value, so the same kernel serves any group count.
"""


@host
def tiling(x: Tensor[f32, (B, C, H, W)], num_features: i32, num_groups: i32):
    groups = B * num_groups
    cores = min(VECTOR_CORES, groups)
    rows = cdiv(groups, cores)
    cores = cdiv(groups, rows)
    per_group = C // num_groups
    # At most 8 tile-sized buffers: xu and yu double-buffered (4), d (1), 2 scratch tiles.
    tile = ub_elems(f32, live=4)
    return Launch(cores, rows=rows, tile=min(tile, H * W), per_group=per_group, inv_n=1.0 / (per_group * H * W))


@kernel
def group_norm(
    x: GM[f32, ((B, C), (H, W))],
    w: Param[f32, (C,), "gn.weight"],
    b: Param[f32, (C,), "gn.bias"],
    num_features: i32,
    num_groups: i32,
    y: Out[f32, ((B, C), (H, W))],
    t: Tiling,
):
    for g in core_rows(t.rows, B * num_groups):
        plane0 = g * t.per_group                # the group's first plane
        s = 0.0
        for k in range(t.per_group):
            for c in tiles(H * W, t.tile):
                with copyin:
                    xu = load(x[plane0 + k, c])
                with compute:
                    s = s + reduce_sum(xu)
        mean = s * t.inv_n
        ss = 0.0
        for k in range(t.per_group):
            for c in tiles(H * W, t.tile):
                with copyin:
                    xu = load(x[plane0 + k, c])
                with compute:
                    d = xu - mean
                    ss = ss + reduce_sum(d * d)
        rstd = rsqrt(ss * t.inv_n + 1e-05)
        channel = (g % num_groups) * t.per_group  # the group's first channel
        for k in range(t.per_group):
            with copyin:
                wk = load(w[channel + k])
                bk = load(b[channel + k])
            scale = wk * rstd
            shift = bk - mean * scale
            for c in tiles(H * W, t.tile):
                with copyin:
                    xu = load(x[plane0 + k, c])
                with compute:
                    yu = xu * scale + shift
                with copyout:
                    store(y[plane0 + k, c], yu)
