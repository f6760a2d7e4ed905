"""Huber (smooth L1, beta = 1) loss, mean reduction."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.smooth_l1_loss(predictions, targets)


batch_size = 128
input_dim = 4096
TAIL = {"batch_size": 37, "input_dim": 5003}


def get_inputs():
    return [torch.randn(batch_size, input_dim), torch.randn(batch_size, input_dim)]


def get_init_inputs():
    return []
