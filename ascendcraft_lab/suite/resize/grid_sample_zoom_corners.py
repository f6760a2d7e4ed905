"""F.affine_grid to another output size with align_corners=True, then F.grid_sample (bilinear, zeros): a zoom."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, theta: torch.Tensor) -> torch.Tensor:
        grid = F.affine_grid(theta, (x.shape[0], x.shape[1], out_h, out_w), align_corners=True)
        return F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=True)


batch_size = 2
channels = 8
height = 48
width = 64
out_h = 50
out_w = 70
TAIL = {"batch_size": 3, "channels": 5, "height": 37, "width": 45}


def get_inputs():
    zoom = 0.6 + torch.rand(batch_size) * 0.8
    theta = torch.zeros(batch_size, 2, 3)
    theta[:, 0, 0] = zoom
    theta[:, 1, 1] = zoom * 1.1
    theta[:, :, 2] = torch.rand(batch_size, 2) * 0.6 - 0.3
    return [torch.randn(batch_size, channels, height, width), theta]


def get_init_inputs():
    return []
