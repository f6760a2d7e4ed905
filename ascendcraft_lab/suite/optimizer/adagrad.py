"""One Adagrad step: the squared-gradient accumulator, then the scaled update. Returns (param, accum)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, lr: float = 1e-2, eps: float = 1e-10):
        super().__init__()
        self.lr = lr
        self.eps = eps

    def forward(self, param, grad, accum):
        accum = accum + grad.pow(2)
        param = param - self.lr * grad / (accum.sqrt() + self.eps)
        return param, accum


n_rows = 1024
n_cols = 1024
lr = 1e-2
eps = 1e-10
TAIL = {"n_rows": 1003, "n_cols": 1001}


def get_inputs():
    param = torch.randn(n_rows, n_cols)
    return [param, torch.randn_like(param), torch.rand_like(param)]


def get_init_inputs():
    return [lr, eps]
