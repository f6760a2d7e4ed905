"""mHC residual mapping: the Sinkhorn-Knopp projection of each token's n x n logits onto the doubly
stochastic matrices (arXiv:2512.24880): exp, then rows and columns normalised in turn for a fixed
number of iterations (t_max = 20 in the paper)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, iterations: int = 20):
        super().__init__()
        self.iterations = iterations

    def forward(self, logits: torch.Tensor) -> torch.Tensor:
        m = torch.exp(logits)
        for _ in range(self.iterations):
            m = m / m.sum(dim=-1, keepdim=True)
            m = m / m.sum(dim=-2, keepdim=True)
        return m


tokens = 4096
n_streams = 4
TAIL = {"tokens": 37}


def get_inputs():
    return [torch.randn(tokens, n_streams, n_streams)]


def get_init_inputs():
    return [20]
