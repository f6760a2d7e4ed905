"""Cosine-similarity loss: mean over rows of 1 - cos(prediction_row, target_row) -> a scalar."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        cosine_sim = torch.nn.functional.cosine_similarity(predictions, targets, dim=1)
        return torch.mean(1 - cosine_sim)


batch_size = 128
input_dim = 4096


def get_inputs():
    return [torch.randn(batch_size, input_dim), torch.randn(batch_size, input_dim)]


def get_init_inputs():
    return []
