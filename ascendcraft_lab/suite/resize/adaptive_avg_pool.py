"""nn.AdaptiveAvgPool2d to a fixed output size (a classifier head's pooling): output (i, j) averages
rows [floor(i * H / OH), ceil((i + 1) * H / OH)) and the same windows of columns. Windows of
different lengths, and overlapping ones where the sizes do not divide."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, out_h: int, out_w: int):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d((out_h, out_w))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


batch_size = 8
channels = 64
height = 56
width = 56
out_h = 7
out_w = 5
TAIL = {"batch_size": 3, "channels": 5, "height": 23, "width": 37}


def get_inputs():
    return [torch.randn(batch_size, channels, height, width)]


def get_init_inputs():
    return [out_h, out_w]
