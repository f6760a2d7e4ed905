"""Cross entropy of short rows: a tile of whole rows, per-row work on the vector unit.

loss = mean over rows of logsumexp(x_r) - x_r[t_r], with logsumexp(x_r) = m_r + log(sum_j exp(x_rj - m_r))
and m_r the row max, so exp never overflows (the usual log-sum-exp with the row max).

A row of 10 f32 logits is 40 bytes. Copying rows one at a time would move 40 bytes per transfer.
So a tile holds `tile_rows` whole rows as a 2-D tile: `x[c, :]` is c.len rows of C logits, brought
in by ONE strided DataCopyPad, each row padded in UB to a whole 32-byte block (its row pitch: 16
floats for C = 10), because vector repeats start on blocks. Then every per-row step is a
repeat-form instruction that takes one row per repeat:
  - reduce_max(xu, axis=1, keepdim=True): WholeReduceMax, the mask covering the C real columns;
  - xu - mu: mu holds one value per row; Brcb spreads each over a 32-byte block and Sub reads that
    block for the whole row (block stride 0, repeat stride 1): a broadcast, never copied at full size;
  - reduce_sum(exp(z), axis=1): WholeReduceSum per row;
  - pick(z, ti): element t_r of row r, one vector Gather at byte offsets (r * pitch + t_r) * 4.
Each core adds its share of the mean into the scalar output (see mse_loss).
"""


@host
def tiling(x: Tensor[f32, (B, C)]):
    cores = min(VECTOR_CORES, B)
    per_core = cdiv(B, cores)
    cores = cdiv(B, per_core)
    # UB per row, in f32 slots: the row's pitch (C rounded up to 8) for xu double-buffered, for z and
    # for two scratch slots (exp(z) and the per-row reductions' work); the int64 target
    # double-buffered (4) and four one-per-row tiles (mu, su, ti, picked).
    tile_rows = max(ub_elems(f32, live=1, buffers=1) // (5 * align_up(C, 8) + 8), 1)
    return Launch(cores, per_core=per_core, tile_rows=min(tile_rows, per_core), inv_rows=1.0 / B)


@kernel
def cross_entropy(x: GM[f32, (B, C)], target: GM[i64, (B,)], loss: Out[f32, ()], t: Tiling):
    for part in core_chunk(t.per_core, B):              # this core's rows
        acc = 0.0
        for c in tiles(part, t.tile_rows):              # c: a block of whole rows
            with copyin:
                xu = load(x[c, :])                      # c.len rows of C logits: one strided copy
                tu = load(target[c])                    # their int64 class indices
            with compute:
                mu = reduce_max(xu, axis=1, keepdim=True)   # the row maxima, one per row
                z = xu - mu                             # every row shifted by its own max (a broadcast)
                su = reduce_sum(exp(z), axis=1)         # sum_j exp(x_rj - m_r) per row
                ti = cast(tu, i32)                      # int64 -> i32 on the vector unit (Gather offsets are 32-bit)
                picked = pick(z, ti)                    # x_r[t_r] - m_r
                acc = acc + reduce_sum(log(su) - picked)
        share = acc * t.inv_rows
        with copyout:
            store(loss, share, accumulate=True)
