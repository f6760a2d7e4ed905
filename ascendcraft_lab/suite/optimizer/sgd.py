"""One SGD step with weight decay and momentum (dampening 0, no Nesterov). Returns (param, buf)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, lr: float, momentum: float, weight_decay: float):
        super().__init__()
        self.lr, self.momentum, self.weight_decay = lr, momentum, weight_decay

    def forward(self, param: torch.Tensor, grad: torch.Tensor, momentum_buffer: torch.Tensor):
        d_p = grad + self.weight_decay * param
        buf = self.momentum * momentum_buffer + d_p
        return param - self.lr * buf, buf


n_params = 1 << 20
lr = 0.01
momentum = 0.9
weight_decay = 1e-4
TAIL = {"n_params": 100003}


def get_inputs():
    return [torch.randn(n_params), torch.randn(n_params), torch.randn(n_params)]


def get_init_inputs():
    return [lr, momentum, weight_decay]
