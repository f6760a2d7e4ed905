"""A two-layer perceptron: fc2(relu(fc1(x))), two products with an activation between them."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, d_in: int, d_hidden: int, d_out: int):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.fc2 = nn.Linear(d_hidden, d_out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(x)))


batch_size = 64
d_in = 192
d_hidden = 256
d_out = 160
TAIL = {"batch_size": 29, "d_in": 77, "d_hidden": 101, "d_out": 45}


def get_inputs():
    return [torch.randn(batch_size, d_in)]


def get_init_inputs():
    return [d_in, d_hidden, d_out]
