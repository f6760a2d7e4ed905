"""GELU backward (tanh approximation), NPUKernelBench format: the cases are gelu_backward_cases.json."""
import json
import os

import torch
import torch.nn as nn

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, grad_output: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        return torch.ops.aten.gelu_backward(grad_output, x, approximate="tanh")


def get_input_groups():
    json_path = os.path.join(os.path.dirname(__file__), "gelu_backward_cases.json")
    with open(json_path, "r") as f:
        cases = [json.loads(line) for line in f if line.strip()]
    groups = []
    for case in cases:
        g, x = case["inputs"]
        groups.append([torch.randn(g["shape"]).to(DTYPES[g["dtype"]]),
                       (torch.randn(x["shape"]) * 3).to(DTYPES[x["dtype"]])])
    return groups


def get_init_inputs():
    return []
