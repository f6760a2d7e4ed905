"""A deep, narrow MLP: six nn.Linear(64, 64) layers with ReLU between them (nn.Sequential)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, width: int, depth: int):
        super().__init__()
        layers = []
        for _ in range(depth - 1):
            layers += [nn.Linear(width, width), nn.ReLU()]
        layers.append(nn.Linear(width, width))
        self.net = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


batch_size = 32
width = 64
depth = 6
TAIL = {"batch_size": 7, "width": 40}


def get_inputs():
    return [torch.randn(batch_size, width)]


def get_init_inputs():
    return [width, depth]
