"""The rule engine: deterministic, offline lowering of KernelIR into an AscendC project.

Pass k renders the whole project as it stands after pass k (regions of later passes are
`TODO(pass N)` placeholders quoting their DSL), so each pass's diff shows exactly what it
added. Everything is computed from the IR and the plan; the pass manager merges the result
with any edit of the previous step.
"""
from __future__ import annotations

from pathlib import PurePath

from ...passes.bundle import Bundle
from ...passes.emit import Emitter
from ...passes.pipeline import PassSpec
from ...passes.plan import plan_for
from .compute import LoweringError
from .host import cmake_source, launch_source, tiling_header, tiling_source, torch_source
from .kernel import render_kernel

__all__ = ["RuleEngine", "render", "LoweringError"]


def render(program, options, level: int) -> Bundle:
    plan = plan_for(program, options)
    src = PurePath(program.path).name if program.path and program.path != "<dsl>" else f"{plan.op}.dsl.py"
    parts: dict[str, Emitter] = {
        plan.tiling_path: tiling_header(plan, src),
        plan.tiling_impl_path: tiling_source(plan, src),
        plan.host_path: launch_source(plan, src),
        plan.torch_path: torch_source(plan, src),
        plan.cmake_path: cmake_source(plan, src),
        plan.kernel_path: render_kernel(plan, level, src),
    }
    return Bundle({p: e.text() for p, e in parts.items()}, {p: e.source_map() for p, e in parts.items()})


class RuleEngine:
    name = "rule"
    derives_from_ir = True

    def run_pass(self, spec: PassSpec, program, previous, options) -> Bundle:
        return render(program, options, spec.number)
