"""Triplet-margin loss (p = 2): mean over rows of max(|a - p + eps| - |a - n + eps| + margin, 0)."""
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


def get_inputs():
    return [torch.randn(batch_size, input_dim), torch.randn(batch_size, input_dim), torch.randn(batch_size, input_dim)]


def get_init_inputs():
    return [margin]
