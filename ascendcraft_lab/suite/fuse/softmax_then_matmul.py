"""Attention-like weights applied to values: torch.softmax(S, dim=-1) @ V, S and V inputs."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, S: torch.Tensor, V: torch.Tensor) -> torch.Tensor:
        return torch.softmax(S, dim=-1) @ V


M = 80
K = 192
N = 96
TAIL = {"M": 33, "K": 71, "N": 45}


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N)]


def get_init_inputs():
    return []
