"""nn.LayerNorm over the features of nn.Linear(x): a product, then a normalisation of each row."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.proj = nn.Linear(in_features, out_features)
        self.norm = nn.LayerNorm(out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(self.proj(x))


batch_size = 80
in_features = 192
out_features = 288
TAIL = {"batch_size": 23, "in_features": 71, "out_features": 147}


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
