"""The rule engine: deterministic, offline lowering of KernelIR into an AscendC project.

The writers live with their passes (`passes/host.py` ... `passes/align.py`); this engine only
drives them: pass k's output is the project after the writers of passes 1..k ran on a fresh
project (regions of later passes are `TODO(pass N)` placeholders quoting their DSL), so each
pass's diff shows exactly what it added. Everything is computed from the IR and the plan; the
pass manager merges the result with any edit of the previous step.
"""
from __future__ import annotations

from ...passes.bundle import Bundle
from ...passes.pipeline import PIPELINE
from ...passes.plan import plan_for
from ...passes.project import Project
from ...passes.spec import LoweringError

__all__ = ["RuleEngine", "render", "LoweringError"]


def render(program, options, level: int) -> Bundle:
    """The project after pass `level` (1-4), as the rule engine writes it."""
    project = Project.start(plan_for(program, options))
    for p in PIPELINE[:level]:
        p.write(project)
    return project.bundle()


class RuleEngine:
    name = "rule"
    derives_from_ir = True

    def run_pass(self, spec, program, previous, options) -> Bundle:
        return render(program, options, spec.number)
