"""One SGD step with momentum (torch.optim.SGD semantics: dampening 0, no Nesterov)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """buf' = momentum * buf + grad;  param' = param - lr * buf'.  Returns (param', buf')."""

    def __init__(self, lr: float, momentum: float):
        super().__init__()
        self.lr = lr
        self.momentum = momentum

    def forward(self, param: torch.Tensor, grad: torch.Tensor, momentum_buf: torch.Tensor):
        buf = self.momentum * momentum_buf + grad
        return param - self.lr * buf, buf


n_params = 1 << 20
lr = 0.01
momentum = 0.9


def get_inputs():
    return [torch.randn(n_params), torch.randn(n_params), torch.randn(n_params)]


def get_init_inputs():
    return [lr, momentum]
