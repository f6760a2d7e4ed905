"""A batched product normalised per row without affine parameters: F.layer_norm(bmm(a, b), (N,))."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, n: int):
        super().__init__()
        self.n = n

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return F.layer_norm(torch.bmm(a, b), (b.shape[-1],))


batch = 3
M = 80
K = 64
N = 176
TAIL = {"batch": 2, "M": 35, "K": 29, "N": 93}


def get_inputs():
    return [torch.randn(batch, M, K), torch.randn(batch, K, N)]


def get_init_inputs():
    return [N]
