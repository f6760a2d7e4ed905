"""nn.GLU on a 3-D tensor (batch, seq, 2 * hidden)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.glu = nn.GLU(dim=-1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.glu(x)


batch_size = 4
seq = 8
hidden = 1024
TAIL = {"batch_size": 3, "seq": 5, "hidden": 1001}


def get_inputs():
    return [torch.randn(batch_size, seq, 2 * hidden)]


def get_init_inputs():
    return []
