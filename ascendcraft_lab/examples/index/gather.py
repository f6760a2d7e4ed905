"""torch.gather along the last dim: out[b, k] = x[b, index[b, k]] with int64 indices."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
        return torch.gather(x, 1, index)


batch_size = 64
dim = 4096
picks = 512


def get_inputs():
    return [torch.randn(batch_size, dim), torch.randint(0, dim, (batch_size, picks))]


def get_init_inputs():
    return []
