"""GELU backward (tanh approximation) for every case of an NPUKernelBench task: one elementwise
kernel, any rank, three dtypes.

d/dx of gelu(x) = 0.5 x (1 + t), t = tanh(u), u = k (x + c x^3), k = sqrt(2 / pi), c = 0.044715:

    grad_input = grad_output * (0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 c x^2))

What this example teaches, beside activation/gelu.dsl.py (the forward for one float32 shape):

- two inputs of one shape streamed together: both loads share the chunk `c`, so one tiling
  serves grad_output and x (the host function reads grad_output's shape only);
- `(*S,)`: every tensor viewed flat, a dim pack of any rank. S is the number of elements (1 for
  a 0-d case, 0 for an empty one, which never launches: the binding returns the empty result);
- `@kernel(T=(f32, f16, bf16))`: the half-type variants load T tiles, cast them to f32 at the
  start of compute and round the result once (rint) before the store, as PyTorch computes half
  types in float. `ub_elems(f32, live=5)`: the f32 tiles of the widest variant.
- x^2 and t are named (`x2`, `t`): each is read twice, and a name is one vector result kept in
  UB instead of an expression computed twice.
"""


@host
def tiling(grad_output: Tensor[T, (*S,)]):
    total = S
    # 32-byte aligned per-core chunks (8 f32 elements): every core's GM offset is aligned; the
    # last core takes what is left, and the align pass pads its short last tile.
    chunk = align_up(cdiv(total, VECTOR_CORES), 8)
    cores = cdiv(total, chunk)
    tile = ub_elems(f32, live=5)
    return Launch(cores, chunk=chunk, tile=min(tile, chunk))


@kernel(T=(f32, f16, bf16))
def gelu_backward_cases(grad_output: GM[T, (*S,)], x: GM[T, (*S,)], y: Out[T, (*S,)], t: Tiling):
    for part in core_chunk(t.chunk, S):
        for c in tiles(part, t.tile):
            with copyin:
                gu = load(grad_output[c])
                xu = load(x[c])
            with compute:
                x2 = xu * xu
                th = tanh((xu + xu * x2 * 0.044715) * 0.7978845608028654)
                # 0.134145 = 3 c; 0.7978845608028654 = k
                yu = gu * ((th + 1.0) * 0.5 + (x2 * 0.134145 + 1.0) * 0.7978845608028654 * xu * 0.5 * (1.0 - th * th))
            with copyout:
                store(y[c], yu)
