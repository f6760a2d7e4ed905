"""Log-probabilities of a classifier head: F.log_softmax(nn.Linear(x), dim=1)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, in_features: int, classes: int):
        super().__init__()
        self.head = nn.Linear(in_features, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.log_softmax(self.head(x), dim=1)


batch_size = 128
in_features = 256
classes = 176
TAIL = {"batch_size": 39, "in_features": 97, "classes": 53}


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, classes]
