"""One Adam step (torch.optim.Adam semantics, no weight decay, no amsgrad) at step `step`."""
import math

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, lr: float, beta1: float, beta2: float, eps: float):
        super().__init__()
        self.lr, self.beta1, self.beta2, self.eps = lr, beta1, beta2, eps

    def forward(self, param, grad, exp_avg, exp_avg_sq, step: int):
        m = exp_avg * self.beta1 + grad * (1 - self.beta1)
        v = exp_avg_sq * self.beta2 + grad * grad * (1 - self.beta2)
        bias_correction1 = 1 - self.beta1 ** step
        bias_correction2 = 1 - self.beta2 ** step
        step_size = self.lr / bias_correction1
        denom = v.sqrt() / math.sqrt(bias_correction2) + self.eps
        return param - step_size * m / denom, m, v


n_params = 1 << 20
step = 10
lr = 1e-3
beta1 = 0.9
beta2 = 0.999
eps = 1e-8


def get_inputs():
    return [torch.randn(n_params), torch.randn(n_params), torch.randn(n_params) * 0.1,
            torch.rand(n_params) * 0.01, step]


def get_init_inputs():
    return [lr, beta1, beta2, eps]
