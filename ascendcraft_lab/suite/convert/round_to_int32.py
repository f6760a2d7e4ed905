"""A symmetric quantization to int32 codes: round(x * inv_scale) clamped to the int8 range, .to(dtype=torch.int32)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, inv_scale: float):
        super().__init__()
        self.inv_scale = inv_scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q = torch.clamp(torch.round(x * self.inv_scale), -128.0, 127.0)
        return q.to(dtype=torch.int32)


batch_size = 16
dim = 8192
inv_scale = 50.0
TAIL = {"batch_size": 7, "dim": 4099}


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [inv_scale]
