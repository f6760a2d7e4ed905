"""One Adam-style step on lists of tensors inside `with torch.no_grad():` (as optimizers write it; torch.export
wraps such a region in a submodule `submod_1`): m = b1 * m + (1 - b1) * g, v = b2 * v + (1 - b2) * g * g,
p -= lr * m / (sqrt(v) + eps), the new params returned."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, params: list, grads: list, m: list, v: list):
        with torch.no_grad():
            torch._foreach_lerp_(m, grads, 0.1)
            torch._foreach_mul_(v, 0.999)
            torch._foreach_addcmul_(v, grads, grads, value=0.001)
            denom = torch._foreach_sqrt(v)
            torch._foreach_add_(denom, 1e-8)
            torch._foreach_addcdiv_(params, m, denom, value=-0.001)
        return params


num_tensors = 3
rows = 16
dim = 2048
TAIL = {"rows": 13, "dim": 1003}


def get_inputs():
    return [[torch.randn(rows, dim) for _ in range(num_tensors)], [torch.randn(rows, dim) for _ in range(num_tensors)],
            [torch.randn(rows, dim) for _ in range(num_tensors)], [torch.rand(rows, dim) for _ in range(num_tensors)]]


def get_init_inputs():
    return []
