"""torch.repeat_interleave along dim 1 of a 3-D tensor: every (.., i, :) slice repeated `repeats` times."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, repeats: int):
        super().__init__()
        self.repeats = repeats

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.repeat_interleave(self.repeats, dim=1)


batch_size = 8
seq = 64
dim = 512
repeats = 2
TAIL = {"batch_size": 3, "seq": 13, "dim": 1003, "repeats": 3}


def get_inputs():
    return [torch.randn(batch_size, seq, dim)]


def get_init_inputs():
    return [repeats]
