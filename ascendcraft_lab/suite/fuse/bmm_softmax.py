"""A batch of products, each row normalised: torch.softmax(torch.bmm(a, b), dim=-1)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.softmax(torch.bmm(a, b), dim=-1)


batch = 4
M = 64
K = 96
N = 144
TAIL = {"batch": 3, "M": 29, "K": 37, "N": 71}


def get_inputs():
    return [torch.randn(batch, M, K), torch.randn(batch, K, N)]


def get_init_inputs():
    return []
