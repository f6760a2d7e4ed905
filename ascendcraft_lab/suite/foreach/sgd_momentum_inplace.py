"""SGD with momentum written with in-place foreach ops (as torch.optim's foreach path): buf = momentum * buf + grad,
param -= lr * buf, on every tensor of the lists; the new params are returned."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, params: list, grads: list, bufs: list):
        torch._foreach_mul_(bufs, 0.9)
        torch._foreach_add_(bufs, grads)
        torch._foreach_add_(params, bufs, alpha=-0.01)
        return params


num_tensors = 3
rows = 16
dim = 2048
TAIL = {"rows": 13, "dim": 1003}


def get_inputs():
    return [[torch.randn(rows, dim) for _ in range(num_tensors)] for _ in range(3)]


def get_init_inputs():
    return []
