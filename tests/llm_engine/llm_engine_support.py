"""Shared material of the LLM engine tests: the gelu draft, a tiny reference, scripted replies."""
from __future__ import annotations

import re

from ascendcraft_lab.dsl.parser import parse
from ascendcraft_lab.dsl.verifier import verify
from ascendcraft_lab.engines.llm.files import format_files
from ascendcraft_lab.engines.rule import render
from ascendcraft_lab.examples import get_example
from ascendcraft_lab.passes.bundle import diff
from ascendcraft_lab.passes.manager import LowerOptions

GELU_DSL = get_example("gelu").dsl.read_text(encoding="utf-8")

# A KernelBench-format reference, small enough for the interpreter to check in milliseconds.
GELU_REFERENCE = '''\
"""GELU, tanh approximation (a small shape for tests)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.gelu(x, approximate="tanh")


batch_size = 4
dim = 300


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
'''


def fenced(dsl: str, prose: str = "Here is the kernel.") -> str:
    return f"{prose}\n\n```python\n{dsl}```\n"


def gelu_program(options: LowerOptions = LowerOptions()):
    return verify(parse(GELU_DSL, "gelu.dsl.py"), options.soc)


def rule_reply(program, options: LowerOptions, number: int, *, edit=None) -> str:
    """The rule engine's pass `number` as a model would send it: the changed files, complete.
    `edit(path, text) -> text` breaks it on purpose."""
    before = render(program, options, number - 1) if number > 1 else None
    after = render(program, options, number)
    changed = {d.path: after[d.path] for d in diff(before, after)}
    if edit is not None:
        changed = {p: edit(p, t) for p, t in changed.items()}
    return "Here is the pass.\n\n" + format_files(changed)


def pass_asked(request) -> int:
    """The pass number a lowering request asks for (from its first user message)."""
    first_user = next(m["content"] for m in request.messages if m["role"] == "user")
    return int(re.search(r"^# Pass (\d) of 4", first_user, re.M).group(1))
