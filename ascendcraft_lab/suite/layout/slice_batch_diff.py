"""A slice along the batch axis minus another tensor: x[offset:offset + n] - y, x of shape
(batch_size, seq, dim) and y of shape (n, seq, dim); whole planes read at a batch offset."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return torch.abs(x[offset:offset + n] - y)


batch_size = 32
n = 24
offset = 5
seq = 64
dim = 256
TAIL = {"batch_size": 9, "n": 4, "seq": 7, "dim": 45}   # the offset is a constant of the op


def get_inputs():
    return [torch.randn(batch_size, seq, dim), torch.randn(n, seq, dim)]


def get_init_inputs():
    return []
