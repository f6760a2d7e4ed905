"""C = A @ B for rectangular matrices: (M, K) @ (K, N) with torch.mm."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.mm(A, B)


M = 192
K = 320
N = 160
TAIL = {"M": 75, "K": 133, "N": 301}


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N)]


def get_init_inputs():
    return []
