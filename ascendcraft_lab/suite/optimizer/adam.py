"""One Adam step in torch.optim style (in-place-free): moments with mul/add(alpha=), addcmul, bias
corrections from the step count passed to forward. Returns (param, exp_avg, exp_avg_sq)."""
import math

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, lr: float, beta1: float, beta2: float, eps: float):
        super().__init__()
        self.lr, self.beta1, self.beta2, self.eps = lr, beta1, beta2, eps

    def forward(self, param, grad, exp_avg, exp_avg_sq, step: int):
        exp_avg = exp_avg.mul(self.beta1).add(grad, alpha=1 - self.beta1)
        exp_avg_sq = exp_avg_sq.mul(self.beta2).addcmul(grad, grad, value=1 - self.beta2)
        bias_correction1 = 1 - self.beta1 ** step
        bias_correction2 = 1 - self.beta2 ** step
        denom = (exp_avg_sq.sqrt() / math.sqrt(bias_correction2)).add(self.eps)
        param = param.addcdiv(exp_avg, denom, value=-self.lr / bias_correction1)
        return param, exp_avg, exp_avg_sq


n_params = 1 << 20
step = 7
lr = 1e-3
beta1 = 0.9
beta2 = 0.999
eps = 1e-8
TAIL = {"n_params": 100003}


def get_inputs():
    return [torch.randn(n_params), torch.randn(n_params), torch.randn(n_params) * 0.1,
            torch.rand(n_params) * 0.01, step]


def get_init_inputs():
    return [lr, beta1, beta2, eps]
