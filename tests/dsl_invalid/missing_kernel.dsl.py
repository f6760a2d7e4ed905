@host
def tiling(x: Tensor[f32, (N,)]):
    return Launch(1, tile=N)   # error: no @kernel function
