"""The bench suite: our own KernelBench-format reference files, one folder per category.

`ascendcraft bench ascendcraft_lab/suite` runs all of them: the 52 ops of the paper's seven
categories (activation 15, loss 7, math 6, normalization 8, optimizer 5, pooling 6, reduce 5), and
beyond them (issue 17) broadcast 12 (bias vectors, per-row values, one-element tensors; any NumPy pattern
folded to outer indices, rows and columns: a per-channel bias, a per-plane divisor, (n, 1, d) x (1, n, d),
(r, 1, d) vs (1, s, 1), a where() mask) and index 14 (argmax/argmin, gather, take_along_dim, index_select,
nn.Embedding, index_add, scatter_add, masked_fill; index_copy, x[index] = value and scatter, a repeated index
keeping the last write), resize 14 (F.interpolate nearest / nearest-exact / linear / bilinear / bicubic /
trilinear, align_corners both ways, by sizes and by scale factors, bilinear and bicubic with antialias;
grid_sample by affine_grid or by an input grid), layout 22 (slices and narrow along any axis as loads at an
offset, torch.cat, torch.stack, repeat and tile as stores at offsets, a flip of an outer axis as a reversed
index, beside broadcasts and a where() mask; permute / transpose / movedim / .t() of 2-D to 5-D tensors, the
last axis kept or moved; split, chunk, tensor_split and unbind as several outputs), and the cube's matmul
folder (issue 19, 12: square, rectangular, A^T, B^T, bmm, 4-D, nn.Linear + bias, linear + relu, matrix-vector,
triu / tril of a product, diag(v) @ B), and sort 7 (torch.sort, argsort, topk largest / smallest, kthvalue,
msort, a stable fp16 sort: Sort32 + MrgSort + Extract), and issue 18's datadep 7 (histc over a range and over
the data's range, repeat_interleave along the last and a middle dim, nonzero, argwhere, masked_select: outputs
whose size the data decides), and issue 33's predicates 10 (comparisons, isinf / isfinite / isnan, nan_to_num,
& | ~ and logical_* on bool tensors: bool outputs, one byte per element) and glu 6 (SwiGLU, GeGLU, ReGLU, F.glu,
nn.GLU: the parts of a chunk consumed by computation, each a view of the input at its offset), filled 5
(torch.empty / new_empty / zeros then written whole or by slices, copy_, fill_; .cpu() / .to(device) no-ops),
norms_plain 5 (group and layer norms without affine parameters, aten.native_group_norm / native_layer_norm),
convert 4 (.long(), .int(), .to(torch.int64 / int32) of a float result), foreach 8 (torch._foreach_* and lists
of tensors in and out, in place and under torch.no_grad()) and reduce_axes 5 (sums, means and amax over axes
that are not one run, one value per group), issue 32's fuse 24 and attention 10 (products with epilogue
chains, MLPs, scaled dot-product attention: drafted as phases of one kernel) and mhc 4 (the paper's case study,
DeepSeek's manifold-constrained hyper-connections: pre-mapping, post-mapping,
the Sinkhorn-Knopp residual mapping and the dynamic coefficients; examples/mhc has hand-written kernels) and
issue 34's convolution 19 (nn.Conv1d/2d/3d and F.conv2d with stride, padding as numbers / 'same' / 'valid',
dilation, groups and depthwise, fp16; nn.ConvTranspose1d/2d/3d with output padding, dilation and groups), and
issue 32's arch 11 (model references drafted as programs of kernels, drafter/programs.py: Linear + activation
MLPs deep, wide and mixed; nn.LSTM / GRU / RNN over a sequence, stacked, returning h_n and c_n).
Each file declares its second ("tail") shape as a module-level dict of constant overrides,
`TAIL = {"dim": 20011, ...}` (see ascendcraft_lab.bench.suite). The expert examples with hand-written DSL
stay in ascendcraft_lab.examples.
"""
from pathlib import Path

ROOT = Path(__file__).resolve().parent
