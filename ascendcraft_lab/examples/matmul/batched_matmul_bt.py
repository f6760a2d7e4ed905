"""Batched A @ B^T in half precision (attention-score style): B is given as [batch, N, K]."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B.transpose(-1, -2))


batch = 4
M = 256
K = 128
N = 320


def get_inputs():
    return [torch.randn(batch, M, K, dtype=torch.float16), torch.randn(batch, N, K, dtype=torch.float16)]


def get_init_inputs():
    return []
