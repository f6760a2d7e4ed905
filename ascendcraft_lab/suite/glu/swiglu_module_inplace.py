"""SwiGLU with an nn.SiLU module on a 3-D tensor, the product written in place (Tensor.mul_)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = nn.SiLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate, up = x.chunk(2, dim=-1)
        h = self.act(gate)
        h.mul_(up)
        return h


batch_size = 4
seq = 8
hidden = 1024
TAIL = {"batch_size": 3, "seq": 5, "hidden": 1001}


def get_inputs():
    return [torch.randn(batch_size, seq, 2 * hidden)]


def get_init_inputs():
    return []
