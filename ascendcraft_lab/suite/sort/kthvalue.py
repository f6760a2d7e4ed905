"""torch.kthvalue along the last dim: the k-th smallest of every row and its index."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, k: int):
        super().__init__()
        self.k = k

    def forward(self, x: torch.Tensor):
        return torch.kthvalue(x, self.k, dim=-1)


batch_size = 128
dim = 1000
k = 100
TAIL = {"batch_size": 13, "dim": 333, "k": 17}


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [k]
