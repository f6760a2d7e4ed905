"""The pipeline: the four passes in order, each a module that owns its part of the lowering.

| pass    | module      | writes (rule engine)                                 | checks                         |
|---------|-------------|------------------------------------------------------|--------------------------------|
| host    | `host.py`   | tiling struct and function, launch, torch, CMake     | tiling fields, a launch        |
| init    | `init.py`   | entry, kernel class, Init, members                   | a buffer per tile, UB total    |
| compute | `compute.py`| Process, CopyIn / Compute / CopyOut (`vector.py`)    | balanced queues                |
| align   | `align.py`  | rewrites copies, sizes and counts: DataCopyPad, pads | DataCopy lengths 32-B aligned  |

`PIPELINE` is the one list the pass manager, the rule engine, the CLI, the notebook view and
the LLM prompts read.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from . import align, compute, host, init
from .bundle import Bundle
from .findings import Finding
from .plan import Plan, plan_for
from .project import Project
from .spec import PassSpec


@dataclass(frozen=True)
class Pass:
    """One pass: its spec, its rule-engine writer and its constraint checker."""
    spec: PassSpec
    write: Callable[[Project], None]
    check: Callable[[Plan, Bundle, object], list[Finding]]

    name = property(lambda self: self.spec.name)
    number = property(lambda self: self.spec.number)
    reason = property(lambda self: self.spec.reason)
    explain = property(lambda self: self.spec.explain)
    rules = property(lambda self: self.spec.rules)
    dirname = property(lambda self: self.spec.dirname)


PIPELINE: tuple[Pass, ...] = tuple(Pass(m.SPEC, m.write, m.check) for m in (host, init, compute, align))

PASS_NAMES = tuple(p.name for p in PIPELINE)


def get_pass(name_or_number: str | int) -> Pass:
    for p in PIPELINE:
        if name_or_number in (p.name, p.number, str(p.number)):
            return p
    raise ValueError(f"unknown pass {name_or_number!r}; passes are {', '.join(PASS_NAMES)}")


def check_step(spec, program, bundle: Bundle, options) -> list[Finding]:
    """Run on `bundle` the checkers of pass `spec` and of every pass before it: a later pass
    (an LLM rewriting the whole text) must not break what an earlier one established. An
    earlier pass's warnings were said at its own step: only its errors count again."""
    plan = plan_for(program, options)
    return [f for p in PIPELINE[:spec.number] for f in p.check(plan, bundle, options)
            if p.number == spec.number or f.severity == "error"]
