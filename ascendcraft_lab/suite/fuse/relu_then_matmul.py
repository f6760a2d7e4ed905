"""An activation of the left operand before the product: torch.relu(A) @ B."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.relu(A) @ B


M = 96
K = 160
N = 112
TAIL = {"M": 37, "K": 53, "N": 67}


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N)]


def get_init_inputs():
    return []
