"""A two-layer MLP: fc2(gelu(fc1(x))), each nn.Linear with its bias."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features: int, hidden: int, out_features: int):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden)
        self.fc2 = nn.Linear(hidden, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.nn.functional.gelu(self.fc1(x), approximate="tanh"))


batch_size = 200
in_features = 256
hidden = 384
out_features = 136


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, hidden, out_features]
