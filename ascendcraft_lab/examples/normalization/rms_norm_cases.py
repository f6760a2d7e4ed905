"""RMSNorm over the last dim (no weight), NPUKernelBench format: the cases are rms_norm_cases.json."""
import json
import os

import torch
import torch.nn as nn

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor, eps: float) -> torch.Tensor:
        xf = x.float()
        return (xf * torch.rsqrt(torch.mean(xf * xf, dim=-1, keepdim=True) + eps)).to(x.dtype)


def get_input_groups():
    json_path = os.path.join(os.path.dirname(__file__), "rms_norm_cases.json")
    with open(json_path, "r") as f:
        cases = [json.loads(line) for line in f if line.strip()]
    groups = []
    for case in cases:
        x, eps = case["inputs"]
        groups.append([torch.randn(x["shape"]).to(DTYPES[x["dtype"]]), eps["value"]])
    return groups


def get_init_inputs():
    return []
