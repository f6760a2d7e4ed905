"""GroupNorm: statistics per (sample, group of channels), then the per-channel affine transform."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, num_features: int, num_groups: int):
        super().__init__()
        self.gn = nn.GroupNorm(num_groups=num_groups, num_channels=num_features)
        with torch.no_grad():
            self.gn.weight.copy_(1.0 + 0.1 * torch.randn(num_features))
            self.gn.bias.copy_(0.1 * torch.randn(num_features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.gn(x)


batch_size = 4
features = 32
num_groups = 8
dim1 = 128
dim2 = 128


def get_inputs():
    return [torch.randn(batch_size, features, dim1, dim2)]


def get_init_inputs():
    return [features, num_groups]
