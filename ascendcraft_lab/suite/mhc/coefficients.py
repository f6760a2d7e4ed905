"""mHC dynamic coefficients (arXiv:2512.24880, section 4): from a token's n streams, RMS-normalised
and flattened, one projection gives the pre, post and residual logits; the pre weights are a
sigmoid, the post weights twice a sigmoid, the residual matrix the Sinkhorn projection of its
logits (exp, then rows and columns normalised in turn)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, n_streams: int, hidden: int, iterations: int = 20, eps: float = 1e-6):
        super().__init__()
        self.n = n_streams
        self.eps = eps
        self.iterations = iterations
        self.phi = nn.Linear(n_streams * hidden, 2 * n_streams + n_streams * n_streams)

    def forward(self, x: torch.Tensor):
        t, n, c = x.shape
        flat = x.reshape(t, n * c)
        normed = flat * torch.rsqrt(flat.pow(2).mean(dim=-1, keepdim=True) + self.eps)
        logits = self.phi(normed)
        h_pre = torch.sigmoid(logits[:, :n])
        h_post = 2.0 * torch.sigmoid(logits[:, n:2 * n])
        m = torch.exp(logits[:, 2 * n:].reshape(t, n, n))
        for _ in range(self.iterations):
            m = m / m.sum(dim=-1, keepdim=True)
            m = m / m.sum(dim=-2, keepdim=True)
        return h_pre, h_post, m


tokens = 256
n_streams = 4
hidden = 2048
TAIL = {"tokens": 37, "hidden": 520}


def get_inputs():
    return [torch.randn(tokens, n_streams, hidden)]


def get_init_inputs():
    return [n_streams, hidden]
