@host
def tiling(x: Tensor[f32, (B, C)]):
    return Launch(1, rows=B)


@kernel
def k(x: GM[f32, ((B, C),)], target: GM[i64, (B,)], y: Out[f32, (B,)], t: Tiling):
    for c in tiles(B, t.rows):
        with copyin:
            xu = load(x[windows(c, C, C)])
            tu = load(target[c])
        with compute:
            yu = pick(xu, tu, C)   # error: pick() takes one i32 index per row, not a i64 tile
        with copyout:
            store(y[c], yu)
