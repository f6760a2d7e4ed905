"""torch.repeat_interleave with an int along the last dim: every element repeated `repeats` times in place."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, repeats: int):
        super().__init__()
        self.repeats = repeats

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.repeat_interleave(x, self.repeats, dim=-1)


batch_size = 32
dim = 2048
repeats = 3
TAIL = {"batch_size": 7, "dim": 1003, "repeats": 5}


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [repeats]
