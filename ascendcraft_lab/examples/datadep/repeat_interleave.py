"""torch.repeat_interleave along the last dim: every element repeated `repeats` times in place."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, repeats: int):
        super().__init__()
        self.repeats = repeats

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.repeat_interleave(x, self.repeats, dim=-1)


batch_size = 16
dim = 2048
repeats = 3


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [repeats]
