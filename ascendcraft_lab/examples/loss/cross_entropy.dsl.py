"""Cross entropy of short rows: many whole rows per tile, per-row work by window ops and gathers.

loss = mean over rows of logsumexp(x_r) - x_r[t_r], with logsumexp(x_r) = m_r + log(sum_j exp(x_rj - m_r))
and m_r the row max, so exp never overflows (the usual log-sum-exp with the row max).

A row of 10 f32 logits is 40 bytes. Copying rows one at a time would move 40 bytes per transfer
and start every row at a UB address that is not 32-byte aligned, where no vector instruction may
start. So the tensor is viewed flat and a tile holds `tile_rows` whole rows, packed back to back
(one contiguous copy); the rows' int64 targets arrive in one copy beside them. The per-row steps
never address a row by itself:
  - window_max / window_sum with k = stride = C give one value per row;
  - repeat(m, C) broadcasts each row max back over its row, and pick(x, t, C) takes element t_r
    of row r: both are vector Gathers whose per-lane byte offsets are built by vector arithmetic
    on CreateVecIndex, so every vector operand still starts at the tile's aligned base. (A padded
    layout, one row per 32-byte block via DataCopyPad, would waste 6 of every 16 lanes here and
    still need a gather for the target.)
Each core adds its share of the mean into the scalar output (see mse_loss).
"""


@host
def tiling(x: Tensor[f32, (B, C)]):
    cores = min(VECTOR_CORES, B)
    per_core = cdiv(B, cores)
    cores = cdiv(B, per_core)
    # UB per row, in f32 slots: the C logits double-buffered (2C), z (C), two scratch slots of
    # C (exp(z), Gather offsets), the int64 target double-buffered (4) and four one-per-row
    # tiles (mu, su, ti, picked): 5C + 8.
    tile_rows = max(ub_elems(f32, live=1, buffers=1) // (5 * C + 8), 1)
    return Launch(cores, per_core=per_core, tile_rows=min(tile_rows, per_core), inv_rows=1.0 / B)


@kernel
def cross_entropy(x: GM[f32, ((B, C),)], target: GM[i64, (B,)], loss: Out[f32, ()], t: Tiling):
    for part in core_chunk(t.per_core, B):              # this core's rows
        acc = 0.0
        for c in tiles(part, t.tile_rows):              # c: a block of whole rows
            with copyin:
                xu = load(x[windows(c, C, C)])          # c.len rows of C logits, one contiguous copy
                tu = load(target[c])                    # their int64 class indices
            with compute:
                mu = window_max(xu, C, C)               # the row maxima
                z = xu - repeat(mu, C)                  # x - m, every row shifted by its own max
                su = window_sum(exp(z), C, C)           # sum_j exp(x_rj - m_r) per row
                ti = cast(tu, i32)                      # int64 -> i32 on the vector unit (Gather offsets are 32-bit)
                picked = pick(z, ti, C)                 # x_r[t_r] - m_r
                acc = acc + reduce_sum(log(su) - picked)
        share = acc * t.inv_rows
        with copyout:
            store(loss, share, accumulate=True)
