"""Writing small KernelBench-format references for the drafter tests."""
from __future__ import annotations

import textwrap
from pathlib import Path

HEADER = "import math\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n\n"


def write_ref(folder: Path, name: str, forward: str, inputs: str, init: str = "", init_inputs: str = "[]") -> Path:
    """A KernelBench-format reference file.

    `forward` is the whole `def forward(self, ...):` method (at column 0); `init` is
    "EXTRA_PARAMS|BODY" for __init__ (e.g. ", s: float|self.s = s"); `inputs` and
    `init_inputs` are the expressions get_inputs() and get_init_inputs() return.
    """
    params, _, body = init.partition("|")
    lines = [HEADER, "class Model(nn.Module):", f"    def __init__(self{params}):", "        super().__init__()"]
    lines += ["        " + l for l in textwrap.dedent(body).strip().splitlines()] if body.strip() else []
    lines.append("")
    lines += ["    " + l for l in textwrap.dedent(forward).strip().splitlines()]
    lines += ["", "", "def get_inputs():", f"    return {inputs}", "", "", "def get_init_inputs():",
              f"    return {init_inputs}", ""]
    path = folder / f"{name}.py"
    path.write_text("\n".join(lines))
    return path


def check_draft_on_emulator(text: str, ref):
    """Lower a draft with the reference's shapes and run it on the emulator: (verdict, run, program)."""
    from ascendcraft_lab.reference.bind import bind
    from ascendcraft_lab.dsl.parser import parse
    from ascendcraft_lab.dsl.verifier import verify
    from ascendcraft_lab.engines.rule import render
    from ascendcraft_lab.passes.manager import LowerOptions
    from ascendcraft_lab.backends.emulator.verify import check_emulator
    program = verify(parse(text, "draft.dsl.py"))
    inputs, _ = bind(program, ref)
    options = LowerOptions(shapes={n: v.shape for n, v in inputs.items() if hasattr(v, "shape")},
                           scalars={p.name: inputs[p.name] for p in program.scalars})
    verdict, run = check_emulator(program, render(program, options, 4), ref)
    return verdict, run, program
