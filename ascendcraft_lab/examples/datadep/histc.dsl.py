"""A histogram: each element's bin on the vector unit, one count per bin, atomic adds across cores.

Where an element lands depends on its value, so a histogram is a scatter: bin[pos(x)] += 1.
The vector unit has no scatter-add, but with few bins the scatter turns around into a gather
of counts: for each bin j, Compare the tile of bin positions with j (one mask bit per element),
Select 1.0 / 0.0 by that mask and ReduceSum it, which is how many of the tile's elements fall
in bin j. That is bins x 3 vector instructions per tile, each over the whole tile, instead of
one scalar read-modify-write per element.

The bin position is computed exactly as PyTorch does, (x - low) * bins / (high - low), with a
true Div by a tile holding the range (`clamp(xu, w, w)` fills a tile with w): multiplying by
the reciprocal instead rounds differently, and an element right at a bin edge would move to
the neighbouring bin. floor() is a Cast to the same type with CAST_FLOOR; x == high belongs to
the last bin (Mins), values outside [low, high] get position -1 (Select), so no bin counts them.

The cores split the flattened input into 64-element-aligned chunks; every core adds its
per-tile counts into the output with `store(y[j], n, accumulate=True)` (SetAtomicAdd around a
one-element DataCopyPad), so the cores' partial histograms add up in GM in any order and the
output needs no second pass. The output starts at zero: the launch zeroes an output that only
takes atomic adds.
"""


@host
def tiling(x: Tensor[f32, (B, N)], bins: i32, low: f32, high: f32):
    chunk = align_up(cdiv(B * N, VECTOR_CORES), 64)
    cores = cdiv(B * N, chunk)
    # xu double-buffered (2), width and pos (2), and the scratch of the count line (Compare's mask
    # and the Select result beside ReduceSum's work tile).
    tile = ub_elems(f32, live=4)
    return Launch(cores, chunk=chunk, tile=min(tile, chunk))


@kernel
def histc(x: GM[f32, ((B, N),)], bins: i32, low: f32, high: f32, y: Out[f32, (bins,)], t: Tiling):
    for part in core_chunk(t.chunk, B * N):
        for c in tiles(part, t.tile):
            with copyin:
                xu = load(x[c])
            with compute:
                width = clamp(xu, high - low, high - low)      # the range as a tile: a true Div below
                pos = min(floor((xu - low) * bins / width), bins - 1)
                pos = where(xu > high, -1.0, pos)              # outside [low, high]: no bin
                pos = where(xu < low, -1.0, pos)
            for j in range(bins):
                with compute:
                    n = reduce_sum(where(pos == j, 1.0, 0.0))  # elements of this tile in bin j
                with copyout:
                    store(y[j], n, accumulate=True)            # atomic: every core adds its count
