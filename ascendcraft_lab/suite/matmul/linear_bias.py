"""nn.Linear on a 3-D input: x @ W^T + b, the weight and bias the Model's own."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x)


batch_size = 4
seq = 64
in_features = 256
out_features = 192
TAIL = {"batch_size": 3, "seq": 21, "in_features": 100, "out_features": 75}


def get_inputs():
    return [torch.randn(batch_size, seq, in_features)]


def get_init_inputs():
    return [in_features, out_features]
