"""1-D max pooling over the last dim (no padding, no dilation)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, kernel_size: int, stride: int, padding: int = 0, dilation: int = 1):
        super().__init__()
        self.max_pool = nn.MaxPool1d(kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.max_pool(x)


batch_size = 16
features = 64
sequence_length = 1024
kernel_size = 4
stride = 4
padding = 0
dilation = 1


def get_inputs():
    return [torch.randn(batch_size, features, sequence_length)]


def get_init_inputs():
    return [kernel_size, stride, padding, dilation]
