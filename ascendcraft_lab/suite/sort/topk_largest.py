"""torch.topk: the k largest of every row, largest first, with their indices."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, k: int):
        super().__init__()
        self.k = k

    def forward(self, x: torch.Tensor):
        return torch.topk(x, self.k, dim=-1)


batch_size = 128
dim = 1024
k = 8
TAIL = {"batch_size": 37, "dim": 1001, "k": 37}


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [k]
