"""Helpers of the case tests: an NPUKernelBench-format ReLU task and its generic kernel.

A task is a reference `<name>.py` whose `get_input_groups()` reads the JSON-lines cases
`<name>.json` beside it, as MultiKernelBench's `reference/npukernelbench_level*` tasks do.
"""
from __future__ import annotations

import json

RELU_REFERENCE = '''\
import json
import os

import torch
import torch.nn as nn

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
          "int32": torch.int32, "int8": torch.int8}


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


def get_input_groups():
    json_path = os.path.join(os.path.dirname(__file__), "relu.json")
    with open(json_path, "r") as f:
        cases = [json.loads(line) for line in f if line.strip()]
    groups = []
    for case in cases:
        x = case["inputs"][0]
        t = torch.randn(x["shape"]) * 4
        groups.append([t.to(DTYPES[x["dtype"]])])
    return groups


def get_init_inputs():
    return []
'''

# One kernel for every dtype and rank: T picks the variant, *S folds any rank into one dim.
RELU_DSL = '''\
@host
def tiling(x: Tensor[T, (*S,)]):
    chunk = align_up(cdiv(S, VECTOR_CORES), 8)
    tile = ub_elems(f32, live=2)
    return Launch(cdiv(S, chunk), chunk=chunk, tile=min(tile, chunk))


@kernel(T=(f32, f16, bf16))
def relu(x: GM[T, (*S,)], y: Out[T, (*S,)], t: Tiling):
    for part in core_chunk(t.chunk, S):
        for c in tiles(part, t.tile):
            with copyin:
                xu = load(x[c])
            with compute:
                yu = relu(xu)
            with copyout:
                store(y[c], yu)
'''


def case_line(dtype: str, shape: list) -> str:
    return json.dumps({"inputs": [{"name": "x", "type": "tensor", "dtype": dtype, "shape": shape}]})


