@host
def tiling(x: Tensor[f32, (B, N)]):
    cores, per_core = core_split(B)
    cols = min(align_up(N, 8), 2040)
    tile_rows = max(fit_tile(f32) // cols, 1)   # error: fit_tile() reaches no UB buffer
    return Launch(cores, per_core=per_core, cols=cols, tile_rows=min(tile_rows, per_core))


@kernel
def bias_add(x: GM[f32, (B, N)], b: GM[f32, (N,)], y: Out[f32, (B, N)], t: Tiling):
    for part in core_chunk(t.per_core, B):
        for k in tiles(N, t.cols):
            with copyin:
                bu = load(b[k])
            for c in tiles(part, t.tile_rows):
                with copyin:
                    xu = load(x[c, k])
                with compute:
                    yu = xu + bu
                with copyout:
                    store(y[c, k], yu)
