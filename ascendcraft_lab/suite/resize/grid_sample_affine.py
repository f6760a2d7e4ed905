"""F.grid_sample (bilinear, zeros padding) by F.affine_grid: each image rotated, scaled and shifted by its own theta."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, theta: torch.Tensor) -> torch.Tensor:
        grid = F.affine_grid(theta, x.size(), align_corners=False)
        return F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False)


batch_size = 4
channels = 8
height = 64
width = 80
TAIL = {"batch_size": 3, "channels": 5, "height": 37, "width": 45}


def get_inputs():
    angle = torch.rand(batch_size) * 1.5 - 0.75
    scale = 0.8 + torch.rand(batch_size) * 0.5          # > 1 samples past the border: zeros
    shift = torch.rand(batch_size, 2) * 0.4 - 0.2
    row0 = torch.stack([torch.cos(angle), -torch.sin(angle), shift[:, 0]], 1)
    row1 = torch.stack([torch.sin(angle), torch.cos(angle), shift[:, 1]], 1)
    theta = torch.stack([row0, row1], 1) * scale[:, None, None]
    return [torch.randn(batch_size, channels, height, width), theta]


def get_init_inputs():
    return []
