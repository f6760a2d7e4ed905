"""softmax(x @ W^T + b, dim=-1): a linear layer whose rows are normalised into probabilities."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.fc(x), dim=-1)


batch_size = 96
in_features = 256
out_features = 320
TAIL = {"batch_size": 37, "in_features": 131, "out_features": 203}


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
