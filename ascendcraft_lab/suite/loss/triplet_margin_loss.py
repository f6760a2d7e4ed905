"""Triplet-margin loss (margin 1, p = 2): mean over rows of max(d(a, p) - d(a, n) + margin, 0),
where d is the L2 distance of a row difference (PyTorch adds eps = 1e-6 to the difference)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, margin: float = 1.0):
        super().__init__()
        self.loss_fn = torch.nn.TripletMarginLoss(margin=margin)

    def forward(self, anchor: torch.Tensor, positive: torch.Tensor, negative: torch.Tensor) -> torch.Tensor:
        return self.loss_fn(anchor, positive, negative)


batch_size = 128
input_dim = 4096
margin = 1.0
TAIL = {"batch_size": 37, "input_dim": 5003}


def get_inputs():
    return [torch.randn(batch_size, input_dim), torch.randn(batch_size, input_dim), torch.randn(batch_size, input_dim)]


def get_init_inputs():
    return [margin]
