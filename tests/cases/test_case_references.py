"""NPUKernelBench references as the public tasks write them load case by case: what CPU PyTorch
cannot run as written is run the nearest honest way and said so."""
from __future__ import annotations
import pytest

import json

import numpy as np
import torch

from ascendcraft_lab.reference import load_cases, run_jobs

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

POOL_REFERENCE = '''\
import json
import os

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, kernel_size):
        return torch.nn.functional.avg_pool3d(x, kernel_size)


def get_input_groups():
    with open(os.path.join(os.path.dirname(__file__), "pool.json")) as f:
        cases = [json.loads(line) for line in f if line.strip()]
    dtypes = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
    return [[torch.randn(c["inputs"][0]["shape"], dtype=dtypes[c["inputs"][0]["dtype"]]), c["inputs"][1]["value"]]
            for c in cases]


def get_init_inputs():
    return []
'''


def test_an_op_cpu_pytorch_has_no_half_kernel_for_runs_in_float32_rounded_and_says_so(tmp_path):
    # avg_pool3d has no float16 / bfloat16 CPU kernel; the NPU that MultiKernelBench runs on has one
    (tmp_path / "pool.py").write_text(POOL_REFERENCE)
    shape = [1, 2, 4, 4, 4]
    (tmp_path / "pool.json").write_text("\n".join(json.dumps({"inputs": [
        {"name": "x", "type": "tensor", "dtype": d, "shape": shape},
        {"name": "kernel_size", "type": "attr", "value": 2}]}) for d in ("float32", "float16", "bfloat16")) + "\n")
    f32, f16, bf16 = load_cases(tmp_path / "pool.py").cases
    assert f32.notes == []
    for run, dtype in ((f16, "float16"), (bf16, "bfloat16")):
        assert run.output_dtypes == [dtype]
        x = torch.from_numpy(np.asarray(run.inputs[0], dtype=np.float32))     # the case's own half values
        want = torch.nn.functional.avg_pool3d(x, 2).to(getattr(torch, dtype)).float().numpy()
        np.testing.assert_array_equal(run.outputs[0], want)
        assert len(run.notes) == 1 and f"reference run in float32, rounded to {dtype}" in run.notes[0]


UNPACK_REFERENCE = '''\
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, repeats, reduce=None, ceil_mode=False):
        y = x.repeat(*repeats)            # a Proxy cannot be unpacked: traced with concrete arguments
        if reduce is not None:            # a placeholder is never None: traced as the None it is
            y = y * 2
        return torch.nn.functional.max_pool1d(y, 2, ceil_mode=ceil_mode)   # left out: its default


def get_inputs():
    return [torch.randn(3, 4), (2, 1), None]


def get_init_inputs():
    return []
'''


def test_arguments_traced_as_their_values_keep_one_placeholder_each_no_guards_and_left_out_ones_their_default(
        tmp_path):
    (tmp_path / "unpack.py").write_text(UNPACK_REFERENCE)
    graph = run_jobs([{"mode": "trace", "path": str(tmp_path / "unpack.py")}])[0]["graph"]
    assert graph["method"] == "fx-concrete-scalars"
    placeholders = [n for n in graph["nodes"] if n["op"] == "placeholder"]
    assert [n["target"] for n in placeholders] == ["x", "repeats", "reduce", "ceil_mode"]
    assert placeholders[3]["meta"]["value"] is False          # the graph ran with forward's default, not None
    calls = [n["target"] for n in graph["nodes"] if n["op"] in ("call_function", "call_method")]
    assert calls[0] == "repeat" and len(calls) == 2     # no torch._assert / _assert_is_none guards, no `* 2`


LOOP_REFERENCE = '''\
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        out = torch.zeros_like(x, dtype=torch.float32)     # exported with layout=torch.strided spelled out
        for t in range(x.size(1)):                          # fx cannot iterate a size: torch.export can
            out = out + x[:, t:t + 1]
        return out


def get_inputs():
    return [torch.randn(2, 3)]


def get_init_inputs():
    return []
'''


def test_an_exported_trace_keeps_the_ops_without_exports_guards_and_reads_its_default_layout(tmp_path):
    (tmp_path / "loop.py").write_text(LOOP_REFERENCE)
    graph = run_jobs([{"mode": "trace", "path": str(tmp_path / "loop.py")}])[0]["graph"]
    assert graph["method"] == "export"
    calls = [n for n in graph["nodes"] if n["op"] == "call_function"]
    assert not [n["target"] for n in calls if "assert" in n["target"]]
    zeros = next(n for n in calls if "zeros_like" in n["target"])
    assert {"repr": "torch.strided"} not in zeros["kwargs"].values()
