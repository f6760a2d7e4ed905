"""Drafting a broadcast kernel (a bias add) with an LLM, end to end through the real `openai`
client and the loopback fake server: the prompt carries the 2-D tile, broadcast, take and host
helper sections generated from the DSL's tables and the broadcast examples; a misused helper goes
back with its line and the fix; the corrected draft verifies on the interpreter."""
from __future__ import annotations
import pytest

from fake_openai import reply
from llm_engine_support import fenced

from ascendcraft_lab.dsl.docs import render_reference
from ascendcraft_lab.dsl.ops import HOST_BUILTINS, OPS
from ascendcraft_lab.engines.llm import draft_with_llm

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

REFERENCE = '''\
"""y = x + bias, the bias of shape (dim,) broadcast over the rows (a small shape for tests)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        return x + bias


batch_size = 6
dim = 300


def get_inputs():
    return [torch.randn(batch_size, dim), torch.randn(dim)]


def get_init_inputs():
    return []
'''

# What a model would write from the prompt: the column tile of the bias loaded once per core and
# column tile, blocks of rows in one strided copy, the helpers naming the split and the fit.
DRAFT = '''\
@host
def tiling(x: Tensor[f32, (B, N)]):
    cores, per_core = core_split(B)
    cols = min(align_up(N, 8), 2040)
    rows = fit_rows(f32, cols)
    return Launch(cores, per_core=per_core, cols=cols, rows=min(rows, per_core))


@kernel
def add_bias(x: GM[f32, (B, N)], bias: GM[f32, (N,)], y: Out[f32, (B, N)], t: Tiling):
    for part in core_chunk(t.per_core, B):
        for k in tiles(N, t.cols):
            with copyin:
                bu = load(bias[k])
            for c in tiles(part, t.rows):
                with copyin:
                    xu = load(x[c, k])
                with compute:
                    yu = xu + bu
                with copyout:
                    store(y[c, k], yu)
'''

# A first draft that uses core_split() as one value.
MISUSED = DRAFT.replace("    cores, per_core = core_split(B)\n",
                        "    per_core = core_split(B)\n    cores = cdiv(B, per_core)\n")


def test_a_bias_add_is_drafted_from_the_generated_prompt_and_fixed_from_the_feedback(
        fake_openai, make_client, tmp_path):
    ref_path = tmp_path / "add_bias.py"
    ref_path.write_text(REFERENCE)
    fake_openai.push(reply(fenced(MISUSED)), reply(fenced(DRAFT)))
    result = draft_with_llm(ref_path, client=make_client())

    assert result.verified and result.best_round == 2 and result.dsl == DRAFT and result.verdict.correct
    assert result.category == "broadcast" and set(result.examples) <= {"broadcast/bias_add", "broadcast/row_scale"}
    system, user = (m["content"] for m in fake_openai.chat_requests[0].messages)
    # The DSL specification is the generated reference, with its sections on tiles of rows and
    # broadcasting, the take op and the host helpers, nothing written for the prompt.
    assert render_reference().rstrip("\n") in system
    assert "## Tiles of rows and broadcasting" in system and OPS["take"].ascendc in system
    assert all(HOST_BUILTINS[h].doc in system for h in ("core_split", "fit_tile", "fit_rows"))
    # The expert examples are the broadcast folder's own files.
    assert "xu = load(x[c, k])" in user and "def forward(self, x: torch.Tensor, bias: torch.Tensor)" in user
    # The misuse went back with its line, column and what would be right.
    feedback = fake_openai.chat_requests[1].messages[-1]["content"]
    assert "core_split() gives two values (cores and per_core), so it is a line of its own" in feedback
    assert "kernel.dsl.py:3:16" in feedback and "write `cores, per_core = core_split(B)`" in feedback
