"""One RMSprop step (no momentum, not centered). Returns (param, square_avg)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, lr=1e-3, alpha=0.99, eps=1e-8):
        super().__init__()
        self.lr = lr
        self.alpha = alpha
        self.eps = eps

    def forward(self, param, grad, square_avg):
        square_avg = self.alpha * square_avg + (1 - self.alpha) * grad.pow(2)
        param = param - self.lr * grad / (square_avg.sqrt() + self.eps)
        return param, square_avg


n_rows = 2048
n_cols = 512
TAIL = {"n_rows": 1003, "n_cols": 1001}


def get_inputs():
    param = torch.randn(n_rows, n_cols)
    return [param, torch.randn_like(param), torch.rand_like(param)]


def get_init_inputs():
    return [1e-3, 0.99, 1e-8]
