"""torch.sort(stable=True) of fp16 rows, ascending: values and int64 indices; equal values keep their order."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor):
        values, indices = torch.sort(x, dim=-1, descending=False, stable=True)
        return values, indices


batch_size = 64
dim = 1000


def get_inputs():
    # fp16 randn rows of 1000 have many equal values: the indices test the stable order
    return [torch.randn(batch_size, dim).half()]


def get_init_inputs():
    return []
