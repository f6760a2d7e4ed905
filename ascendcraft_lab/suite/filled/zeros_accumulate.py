"""An accumulator made by torch.zeros of the input's size, then added into in place (+=, add_, mul_)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        acc = torch.zeros(x.shape[0], x.shape[1], device=x.device)
        acc += x * x
        acc.add_(y, alpha=0.25)
        acc.mul_(0.5)
        return acc


batch_size = 16
dim = 4096
TAIL = {"batch_size": 13, "dim": 20011}


def get_inputs():
    return [torch.randn(batch_size, dim), torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
