"""Frobenius-norm normalisation: one sum over the whole tensor, shared by all cores through GM.

y = x / sqrt(sum(x * x)) needs one number made from every element before any element can be
written. Rather than each core sweeping the whole tensor for it, each core sums the squares of
its own chunk and ADDS that partial sum into a one-element GM workspace
(`store(sq, ss, accumulate=True)`: SetAtomicAdd around the copy-out; a workspace starts at
zero). `sync_all()` (AscendC SyncAll) then waits until every core has added its share, after
which each core reads the total, takes one rsqrt of it (a scalar, through one vector block: the scalar
unit has no rsqrt) and scales its own chunk.
GM traffic is 2 reads + 1 write per element, with every core busy in both sweeps.

The barrier: the generated project launches with <<<>>> (a kernel-launch project), where CANN
does not support SyncAll's hardware form, so sync_all() lowers to the soft form
SyncAll(gmWorkspace, ubWorkspace): 32 bytes of GM flags per core, placed after `sq` in the
launch's host-zeroed workspace, and a 32-byte-per-core UB work area. ub_elems below leaves that
UB area out of the tiles (VECTOR_CORES x 32 bytes, the widest launch that may sync).

Accuracy: a core's sum is a sum of per-tile ReduceSum results (one addition per tile of
thousands of elements), not a running sum of single elements, so its rounding error stays
close to f32 epsilon even for a 67 M-element tensor.

Alignment: chunks start at multiples of 8 floats (32 bytes), so every tile's GM offset is
block aligned; only the last tile of the last chunk is short, which the copy lowering pads
(DataCopyPad) instead of reading or writing past its end.
"""


@host
def tiling(x: Tensor[f32, (B, C, H, W)]):
    total = B * C * H * W
    chunk = align_up(cdiv(total, VECTOR_CORES), 8)
    cores = cdiv(total, chunk)
    # xu and yu double-buffered (4) plus 2 scratch tiles for reduce_sum(xu * xu).
    tile = ub_elems(f32, live=3)
    return Launch(cores, chunk=chunk, tile=min(tile, chunk))


@kernel
def frobenius_norm(
    x: GM[f32, ((B, C, H, W),)],
    sq: Workspace[f32, ()],
    y: Out[f32, ((B, C, H, W),)],
    t: Tiling,
):
    ss = 0.0
    for part in core_chunk(t.chunk, B * C * H * W):
        for c in tiles(part, t.tile):
            with copyin:
                xu = load(x[c])
            with compute:
                ss = ss + reduce_sum(xu * xu)
    with copyout:
        store(sq, ss, accumulate=True)          # every core adds its partial sum
    sync_all()                                  # ... and waits for all the others
    with copyin:
        total = load(sq)                        # the sum over the whole tensor
    scale = rsqrt(total)
    for chunk in core_chunk(t.chunk, B * C * H * W):
        for c in tiles(chunk, t.tile):
            with copyin:
                xu = load(x[c])
            with compute:
                yu = xu * scale
            with copyout:
                store(y[c], yu)
