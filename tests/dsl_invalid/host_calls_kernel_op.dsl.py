@host
def tiling(x: Tensor[f32, (B, N)]):
    scale = exp(1.0)   # error: `exp` is a kernel operation, not available in the host function
    return Launch(B, scale=scale)
