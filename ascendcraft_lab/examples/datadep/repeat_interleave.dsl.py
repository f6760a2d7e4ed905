"""repeat_interleave: the output address of every element is computed, and one Gather moves them.

Output element i is input element i // r. Row boundaries do not matter (a row of N elements
becomes a row of N * r), so the tensors are viewed flat and the cores split the input into
64-element-aligned chunks; an input chunk starting at s becomes the output run starting at
s * r, r times as long, so every output copy starts 32-byte aligned too.

Inside a tile, `repeat(xu, r)` is one vector Gather: the lowering builds the byte offsets
floor((i + 0.5) / r) * 4 on the vector unit (CreateVecIndex, Adds, Muls by 1/r, a Cast that
floors, Muls by 4; the + 0.5 keeps i / r off the integer it must not reach), and Gather reads
UB at those offsets. No element goes through the scalar unit.

`repeats` is a kernel scalar, so a tail shape with another repeat count reuses the kernel; the
output tile is r times the input tile, and the host sizes the tile for that at run time
(ub_elems with a live count that grows with r).
"""


@host
def tiling(x: Tensor[f32, (B, N)], repeats: i32):
    chunk = align_up(cdiv(B * N, VECTOR_CORES), 64)
    cores = cdiv(B * N, chunk)
    # xu (x2), yu (r tiles, x2) and Gather's offsets (r tiles): 2 + 3r tile-sized copies <= 2 (2r + 1)
    tile = ub_elems(f32, live=2 * repeats + 1)
    return Launch(cores, chunk=chunk, tile=min(tile, chunk))


@kernel
def repeat_interleave(x: GM[f32, ((B, N),)], repeats: i32, y: Out[f32, ((B, N * repeats),)], t: Tiling):
    for part in core_chunk(t.chunk, B * N):
        for c in tiles(part, t.tile):
            with copyin:
                xu = load(x[c])
            with compute:
                yu = repeat(xu, repeats)      # y[i] = x[i // repeats]: one Gather
            with copyout:
                store(y[c.start * repeats:c.start * repeats + c.len * repeats], yu)
