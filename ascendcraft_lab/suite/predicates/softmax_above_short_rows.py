"""Which softmax probabilities of short rows (48 classes) exceed 1 / classes: a bool output of rows that
fit many to a tile, drafted one row at a time."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits: torch.Tensor) -> torch.Tensor:
        p = torch.softmax(logits, dim=-1)
        return p > 1.0 / logits.shape[-1]


batch_size = 256
classes = 48
TAIL = {"batch_size": 77, "classes": 37}


def get_inputs():
    return [torch.randn(batch_size, classes)]


def get_init_inputs():
    return []
