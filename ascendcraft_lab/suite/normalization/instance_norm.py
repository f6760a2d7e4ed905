"""InstanceNorm2d (no affine, no running stats): each (sample, channel) plane normalised by its own
mean and biased variance."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, num_features: int):
        super().__init__()
        self.inorm = nn.InstanceNorm2d(num_features=num_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.inorm(x)


batch_size = 16
features = 64
dim1 = 256
dim2 = 256
TAIL = {"batch_size": 5, "features": 13, "dim1": 37, "dim2": 45}


def get_inputs():
    return [torch.randn(batch_size, features, dim1, dim2)]


def get_init_inputs():
    return [features]
