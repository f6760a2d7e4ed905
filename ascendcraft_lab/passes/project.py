"""The rule engine's project in the making: the host files and the kernel source, pass by pass.

Each pass module's `write(project)` adds its regions; `bundle()` renders the project as it
stands (the kernel's holes with the rules registered so far) into a `Bundle`.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import PurePath

from .bundle import Bundle
from .emit import Emitter
from .kernel import KernelFacts, KernelSource
from .plan import Plan


@dataclass
class Project:
    plan: Plan
    src: str                                       # the DSL file's name, quoted in the headers
    files: dict[str, Emitter] = field(default_factory=dict)
    kernel: KernelSource = None                    # type: ignore[assignment]

    def __post_init__(self):
        if self.kernel is None:
            self.kernel = KernelSource(self.plan, self.src)

    @classmethod
    def start(cls, plan: Plan) -> "Project":
        program = plan.program
        src = PurePath(program.path).name if program.path and program.path != "<dsl>" else f"{plan.op}.dsl.py"
        return cls(plan, src)

    @functools.cached_property
    def facts(self) -> KernelFacts:
        return KernelFacts(self.plan, self.kernel.uses)

    def bundle(self) -> Bundle:
        parts = {**self.files, self.plan.kernel_path: self.kernel.render()}
        return Bundle({p: e.text() for p, e in parts.items()}, {p: e.source_map() for p, e in parts.items()})
