"""A transformer feed-forward block: fc2(gelu(fc1(x))) over tokens of a (batch, seq, d_model) input."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, d_model: int, d_ff: int):
        super().__init__()
        self.fc1 = nn.Linear(d_model, d_ff)
        self.fc2 = nn.Linear(d_ff, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(F.gelu(self.fc1(x)))


batch = 2
seq = 48
d_model = 128
d_ff = 256
TAIL = {"batch": 3, "seq": 17, "d_model": 72, "d_ff": 136}


def get_inputs():
    return [torch.randn(batch, seq, d_model)]


def get_init_inputs():
    return [d_model, d_ff]
