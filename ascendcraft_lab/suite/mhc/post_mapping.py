"""mHC post-mapping and residual mix (Manifold-Constrained Hyper-Connections, arXiv:2512.24880).

After the layer, each token's n streams are remixed by its n x n residual matrix H_res (doubly
stochastic, from the Sinkhorn projection) and the layer's output f is written back into every
stream with that stream's coefficient h_post: x_next[i] = sum_j H_res[i, j] x[j] + h_post[i] f.
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, f: torch.Tensor, h_post: torch.Tensor, h_res: torch.Tensor) -> torch.Tensor:
        mixed = torch.einsum("tij,tjc->tic", h_res, x)
        return mixed + h_post.unsqueeze(-1) * f.unsqueeze(1)


tokens = 256
n_streams = 4
hidden = 2048
TAIL = {"tokens": 37, "hidden": 520}


def get_inputs():
    h_res = torch.softmax(torch.randn(tokens, n_streams, n_streams), dim=-1)
    h_post = 2.0 * torch.sigmoid(torch.randn(tokens, n_streams))
    return [torch.randn(tokens, n_streams, hidden), torch.randn(tokens, hidden), h_post, h_res]


def get_init_inputs():
    return []
