"""C = A^T @ B with A given as (K, M): the transposed left operand."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A.t(), B)


M = 128
K = 256
N = 192
TAIL = {"M": 100, "K": 77, "N": 45}


def get_inputs():
    return [torch.randn(K, M), torch.randn(K, N)]


def get_init_inputs():
    return []
