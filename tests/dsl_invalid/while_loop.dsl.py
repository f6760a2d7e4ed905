@host
def tiling(x: Tensor[f32, (N,)]):
    return Launch(1, tile=N)


@kernel
def k(x: GM[f32, (N,)], y: Out[f32, (N,)], t: Tiling):
    i = 0
    while i < N:   # error: `while` loops are not part of the DSL
        i = i + 1
