"""Embedding lookup: every output row is a copy of the weight row its token names.

No vector unit work is needed to *find* a row: the token is read as a scalar straight from GM
(`load` of zero axes is GlobalTensor::GetValue on the scalar unit), and it becomes the GM
address of the next copy-in, w[token, c]. Each output row is then whole-tile DataCopys
GM -> UB -> GM of the picked weight row (DataCopyPad for a ragged last tile), so a row of any
length moves at copy speed and a repeated token simply copies its row again.

The weight is the instantiated Model's own parameter (`Param[..., "embedding.weight"]`), bound
by name. A token outside [0, num_embeddings) makes the copy-in read GM outside the weight:
on the emulator that is a gm-out-of-bounds finding at the load line of this file (on the NPU
it would read whatever lies there).
"""


@host
def tiling(tokens: Tensor[i64, (B, L)], w: Tensor[f32, (V, D)]):
    rows = B * L                                    # one output row per token
    cores = min(VECTOR_CORES, rows)
    per_core = cdiv(rows, cores)
    cores = cdiv(rows, per_core)
    # the copied row (wu in, yu out), each double-buffered
    tile = ub_elems(f32, live=2)
    return Launch(cores, rows=per_core, tile=min(tile, D))


@kernel
def embedding(
    tokens: GM[i64, ((B, L),)],
    w: Param[f32, (V, D), "embedding.weight"],
    y: Out[f32, ((B, L), D)],
    t: Tiling,
):
    for r in core_rows(t.rows, B * L):
        with copyin:
            k = load(tokens[r])                     # the token: a scalar read from GM
        for c in tiles(D, t.tile):
            with copyin:
                wu = load(w[k, c])                  # the picked row's tile: its GM address depends on k
            with compute:
                yu = wu                             # UB -> UB (the output queue is its own buffer)
            with copyout:
                store(y[r, c], yu)
