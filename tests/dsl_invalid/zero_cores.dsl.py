# shapes: {"x": [4, 64]}
@host
def tiling(x: Tensor[f32, (B, N)]):
    return Launch(B - 4, tile=N)   # error: Launch cores is 0 but a launch needs 1..65535 blocks


@kernel
def k(x: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):
    for r in core_rows(1, B):
        with copyin:
            xu = load(x[r, :])
        with compute:
            yu = xu * 2.0
        with copyout:
            store(y[r, :], yu)
