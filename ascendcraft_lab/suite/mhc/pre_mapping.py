"""mHC pre-mapping (Manifold-Constrained Hyper-Connections, DeepSeek, arXiv:2512.24880, section 4).

The residual stream of a token is n streams of C features. Before a layer, the n streams are mixed
into the layer's one input by dynamic coefficients: the flattened streams are RMS-normalised, a
small projection (n*C -> n, a scale alpha and a bias) gives one logit per stream, a sigmoid makes it
a non-negative weight, and the layer input is the weighted sum of the streams.
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, n_streams: int, hidden: int, alpha: float = 0.01, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.alpha = alpha
        self.phi = nn.Linear(n_streams * hidden, n_streams)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        t, n, c = x.shape
        flat = x.reshape(t, n * c)
        normed = flat * torch.rsqrt(flat.pow(2).mean(dim=-1, keepdim=True) + self.eps)
        h_pre = torch.sigmoid(self.alpha * self.phi(normed))            # (t, n)
        return (h_pre.unsqueeze(-1) * x).sum(dim=1)                      # (t, c)


tokens = 256
n_streams = 4
hidden = 2048
TAIL = {"tokens": 37, "hidden": 520}


def get_inputs():
    return [torch.randn(tokens, n_streams, hidden)]


def get_init_inputs():
    return [n_streams, hidden]
