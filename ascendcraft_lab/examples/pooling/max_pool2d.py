"""2-D max pooling with padding, dilation and ceil mode."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, kernel_size: int, stride: int, padding: int, dilation: int):
        super().__init__()
        self.max_pool = nn.MaxPool2d(kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation,
                                     ceil_mode=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.max_pool(x)


batch_size = 8
channels = 16
height = 64
width = 96
kernel_size = 3
stride = 2
padding = 1
dilation = 2


def get_inputs():
    return [torch.randn(batch_size, channels, height, width)]


def get_init_inputs():
    return [kernel_size, stride, padding, dilation]
