"""GELU (tanh approximation): rows split over the cores, each row streamed through UB in tiles."""


@host
def tiling(x: Tensor[f32, (B, N)]):
    cores = min(VECTOR_CORES, B)
    rows = cdiv(B, cores)      # rows per core
    cores = cdiv(B, rows)      # no idle blocks when B is not a multiple of the core count
    # UB holds 6 tile-sized buffers: xu and yu are double-buffered queues (2 + 2) so copy-in,
    # compute and copy-out of neighbouring tiles overlap; `inner` is one VECCALC buffer; and
    # the `yu = ...` line needs one scratch tile ((1.0 + tanh(inner)) while 0.5 * xu is held).
    # 6 = live 3 x 2 buffers -> 7744 floats (30.25 KiB) on a 910B: a 64 KiB row takes 3 tiles.
    tile = ub_elems(f32, live=3)
    return Launch(cores, rows=rows, tile=min(tile, N))


@kernel
def gelu(x: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):
    for r in core_rows(t.rows, B):
        for c in tiles(N, t.tile):          # the last tile of a row may be short (c.len)
            with copyin:
                xu = load(x[r, c])
            with compute:
                # tanh is not a vector instruction: the lowering expands it into Exp and friends.
                inner = (xu + 0.044715 * xu * xu * xu) * 0.7978845608028654
                yu = 0.5 * xu * (1.0 + tanh(inner))
            with copyout:
                store(y[r, c], yu)
