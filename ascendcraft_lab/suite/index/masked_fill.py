"""masked_fill: a large negative value where a bool mask is set (an attention mask)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, scores: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return scores.masked_fill(mask, -1e9)


batch_size = 32
length = 4096
TAIL = {"batch_size": 7, "length": 1003}


def get_inputs():
    return [torch.randn(batch_size, length), torch.rand(batch_size, length) > 0.5]


def get_init_inputs():
    return []
