"""Running one lowered bundle on the emulator for several input sets, compiling it once.

`passes.verify.emulate` writes the bundle to a fresh temporary folder per call, so its
binary (cached by source content *and path*) is rebuilt every time. The bench writes the
bundle once into the op's own folder (which it keeps as the op's AscendC project) and runs
every input set against that path, so seeds 1..4 reuse seed 0's binary. The inputs travel as
in/out GM buffers, so what the kernel leaves in them comes back and the bench can check that
it did not write into its inputs.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

import numpy as np

from ..backends.emulator.runner import Arg, pack_tiling, run_kernel
from ..dsl import ir
from ..dsl.host import output_shape, workspace_layout
from ..passes.bundle import Bundle
from ..passes.verify import checked_launch, tiling_fields
from ..soc import get_soc


@dataclass
class KernelRun:
    status: str                        # ok | findings | compile-error | crash | timeout | tiling-mismatch
    message: str
    outputs: dict = field(default_factory=dict)       # output name -> array
    inputs_after: dict = field(default_factory=dict)  # input name -> the GM buffer after the kernel
    findings: list = field(default_factory=list)
    timings: dict = field(default_factory=dict)
    block_dim: int = 0


def write_bundle(bundle: Bundle, root: Path) -> None:
    for path, text in bundle.files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.is_file() or target.read_text() != text:
            target.write_text(text)


def run_bundle(program: ir.Program, bundle: Bundle, root: Path, inputs: Mapping[str, np.ndarray],
               scalars: Mapping[str, int | float], *, soc: str | None = None, timeout: float = 120) -> KernelRun:
    """Compile (cached by path + content) and run the bundle written under `root` on `inputs`."""
    s = get_soc(soc)
    checked, status, message = checked_launch(program, bundle, inputs, scalars, s)
    if status:
        return KernelRun(status, message)
    plan, dims, launch, values = checked.plan, checked.dims, checked.launch, checked.values
    env = {**dims, **scalars}
    args, names, kinds = [], [], []
    for t in program.tensors():
        if t.role is ir.TensorRole.output:
            args.append(Arg.output(t.dtype.np if t.dtype is not ir.DType.bf16 else "bfloat16",
                                   output_shape(program, t, env, s)))
            kinds.append("out")
        else:
            args.append(Arg.inout(np.ascontiguousarray(inputs[t.name], dtype=t.dtype.np)))
            kinds.append("in")
        names.append(t.name)
    args.append(Arg.workspace(max(32, workspace_layout(program, env, s, int(launch["cores"]))[1])))   # zeroed GM
    args.append(Arg.tiling(pack_tiling(tiling_fields(plan, values))))
    write_bundle(bundle, root)
    report = run_kernel([root / plan.kernel_path], plan.entry, int(launch["cores"]), args, soc=s.name,
                        timeout=timeout, include_dirs=[root / "host"])
    outs = {names[i]: a for i, a in report.outputs.items() if i < len(names) and kinds[i] == "out"}
    after = {names[i]: a for i, a in report.outputs.items() if i < len(names) and kinds[i] == "in"}
    return KernelRun(report.status, report.message, outs, after, list(report.findings), dict(report.timings),
                     int(launch["cores"]))
