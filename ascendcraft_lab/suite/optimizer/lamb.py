"""One LAMB step: Adam moments with bias correction and weight decay, then a layer-wise trust
ratio ||param|| / ||update|| from two norms over the whole tensor. Returns (param, m, v)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.01):
        super().__init__()
        self.lr, self.beta1, self.beta2, self.eps, self.weight_decay = lr, beta1, beta2, eps, weight_decay

    def forward(self, param, grad, m, v, step: int):
        m = self.beta1 * m + (1 - self.beta1) * grad
        v = self.beta2 * v + (1 - self.beta2) * grad * grad
        m_hat = m / (1 - self.beta1 ** step)
        v_hat = v / (1 - self.beta2 ** step)
        update = m_hat / (v_hat.sqrt() + self.eps) + self.weight_decay * param
        trust_ratio = param.norm(p=2) / (update.norm(p=2) + self.eps)
        return param - self.lr * trust_ratio * update, m, v


n_rows = 256
n_cols = 4096
step = 3
TAIL = {"n_rows": 37, "n_cols": 1003}


def get_inputs():
    param = torch.randn(n_rows, n_cols)
    return [param, torch.randn_like(param), torch.randn_like(param) * 0.1, torch.rand_like(param) * 0.01, step]


def get_init_inputs():
    return [1e-3, 0.9, 0.999, 1e-6, 0.01]
