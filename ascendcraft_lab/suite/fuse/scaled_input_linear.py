"""Work before the product: nn.Linear applied to (x * 0.25 + 1.0), a computed operand."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x * 0.25 + 1.0)


batch_size = 64
in_features = 192
out_features = 144
TAIL = {"batch_size": 29, "in_features": 65, "out_features": 77}


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
