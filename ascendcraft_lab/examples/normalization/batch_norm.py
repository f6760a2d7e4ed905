"""BatchNorm2d as freshly built: training mode, so it normalises with the batch's own statistics
(mean and biased variance over N, H and W, per channel), then the per-channel affine weight and bias."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, num_features: int):
        super().__init__()
        self.bn = nn.BatchNorm2d(num_features=num_features)
        with torch.no_grad():   # a trained-looking affine transform, not the identity
            self.bn.weight.copy_(1.0 + 0.1 * torch.randn(num_features))
            self.bn.bias.copy_(0.1 * torch.randn(num_features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.bn(x)


batch_size = 4
features = 16
dim1 = 128
dim2 = 128


def get_inputs():
    return [torch.randn(batch_size, features, dim1, dim2)]


def get_init_inputs():
    return [features]
