"""Adam-like second moments on lists: v = maximum(v_max, v * beta2 + (1 - beta2) * g * g) with _foreach_mul,
_foreach_addcmul and _foreach_maximum."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, v: list, g: list, v_max: list):
        v = torch._foreach_mul(v, 0.999)
        v = torch._foreach_addcmul(v, g, g, value=0.001)
        return torch._foreach_maximum(v_max, v)


num_tensors = 3
rows = 16
dim = 2048
TAIL = {"rows": 13, "dim": 1003}


def get_inputs():
    return [[torch.rand(rows, dim) for _ in range(num_tensors)], [torch.randn(rows, dim) for _ in range(num_tensors)],
            [torch.rand(rows, dim) for _ in range(num_tensors)]]


def get_init_inputs():
    return []
