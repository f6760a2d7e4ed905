"""torch.topk along the last dim: the k largest of every row, largest first, and their int64 indices."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, k: int):
        super().__init__()
        self.k = k

    def forward(self, x: torch.Tensor):
        values, indices = torch.topk(x, self.k, dim=-1, largest=True, sorted=True)
        return values, indices


batch_size = 128
dim = 1024
k = 16


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [k]
