"""torch.topk(largest=False): the k smallest of every row, smallest first."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, k: int):
        super().__init__()
        self.k = k

    def forward(self, x: torch.Tensor):
        return torch.topk(x, self.k, dim=-1, largest=False)


batch_size = 96
dim = 768
k = 32
TAIL = {"batch_size": 7, "dim": 555, "k": 5}


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [k]
