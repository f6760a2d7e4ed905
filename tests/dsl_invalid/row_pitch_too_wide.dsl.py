# shapes: {"x": [8, 4096]}
@host
def tiling(x: Tensor[f32, (B, N)]):
    cores = min(VECTOR_CORES, B)
    per_core = cdiv(B, cores)
    return Launch(cdiv(B, per_core), per_core=per_core)


@kernel
def k(x: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):
    for part in core_chunk(t.per_core, B):
        for c in tiles(part, 1):
            with copyin:
                xu = load(x[c, :])   # error: tile `xu` has rows of 4096 f32 (512 blocks of 32 bytes); a vector repeat stride reaches 255 blocks
            with compute:
                yu = xu * 2.0
            with copyout:
                store(y[c, :], yu)
