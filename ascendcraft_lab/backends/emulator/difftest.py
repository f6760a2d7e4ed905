"""Differential testing of the compiler: one DSL program, two implementations of its meaning.

A program that the verifier accepts runs on the numpy interpreter and, lowered by the rule
engine through the four passes, on the emulator; the two answers must agree within the output
dtype's tolerance (the same rule `ascendcraft check` uses). Anything else is a disagreement:

  reject     the verifier refused the program (for a generated program: a generator bug)
  interp     the interpreter failed on a program the verifier accepted
  lower      a pass refused it, or reported a finding, after the verifier had accepted it
  compile    the generated C++ does not compile (or its tiling function disagrees with the DSL)
  emulator   the emulator reported a finding (out-of-bounds access, unaligned address, ...)
  crash      the kernel crashed or timed out
  wrong      the answers differ beyond the tolerance

`check(text, inputs, scalars)` gives one `Outcome`; the kernel is compiled once per program text
(the emulator's runner caches compiled kernels by the hash of their sources). `minimise` reduces a
failing generated program by its choice sequence (`dsl.generate.Replay`), keeping the kind of
failure, as hypothesis shrinks (shorter and smaller choices first).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Mapping

import numpy as np

from ...dsl import DslError
from ...dsl.generate import FORMS, Case, Draws, Replay, generate
from ...dsl.interp import run as interpret
from ...dsl.parser import parse
from ...dsl.verifier import verify
from ...engines.rule import RuleEngine
from ...passes.manager import LowerOptions, run_pipeline
from ...reference.bind import compare
from ...soc import DEFAULT_SOC
from .verify import emulate, render_run

KINDS = ("ok", "reject", "interp", "lower", "compile", "emulator", "crash", "wrong")


@dataclass
class Outcome:
    kind: str                        # one of KINDS
    message: str = ""
    seconds: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.kind == "ok"

    @property
    def failed(self) -> bool:
        """A disagreement of the compiler with the interpreter (a verifier refusal is not one)."""
        return self.kind not in ("ok", "reject")

    def __str__(self) -> str:
        return f"{self.kind}: {self.message}" if self.message else self.kind


def check(text: str, inputs: Mapping[str, np.ndarray], scalars: Mapping[str, float] | None = None, *,
          soc: str = DEFAULT_SOC, path: str = "fuzz.dsl.py", timeout: float = 120, emulated: bool = True) -> Outcome:
    """The interpreter's and the emulator's answers for `text` on `inputs` (GM name -> array);
    without `emulated`, only as far as the lowering (a program that lowers is "ok")."""
    scalars = dict(scalars or {})
    seconds: dict = {}
    t0 = time.perf_counter()
    try:
        shapes = {n: tuple(np.shape(a)) for n, a in inputs.items()}
        program = verify(verify(parse(text, path)), shapes=shapes, scalars=scalars)
    except DslError as e:
        return Outcome("reject", e.render(), seconds)
    try:
        want = interpret(program, {**inputs, **scalars})
    except DslError as e:
        return Outcome("interp", e.render(), seconds)
    seconds["interp"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    steps = run_pipeline(program, RuleEngine(), LowerOptions(soc=soc, shapes=shapes, scalars=scalars))
    findings = [f"{s.spec.name}: {f.message}" for s in steps for f in s.findings]
    seconds["lower"] = time.perf_counter() - t0
    if findings or len(steps) < 4:
        return Outcome("lower", "; ".join(findings) or "the pipeline stopped early", seconds)
    if not emulated:
        return Outcome("ok", "", seconds)
    t0 = time.perf_counter()
    run = emulate(program, steps[-1].bundle, inputs, scalars, soc=soc, timeout=timeout)
    seconds["emulate"] = time.perf_counter() - t0
    if run.status in ("compile-error", "tiling-mismatch"):
        return Outcome("compile", f"{run.message}\n{render_run(run, program)}".strip(), seconds)
    if run.status in ("crash", "timeout"):
        return Outcome("crash", f"{run.status}: {run.message}\n{render_run(run, program)}".strip(), seconds)
    if run.findings:
        return Outcome("emulator", render_run(run, program, limit=3), seconds)
    bad = []
    for p in program.outputs:
        c = compare(p.name, run.outputs[p.name], want[p.name], p.dtype, None, None)
        if not c.correct:
            bad.append(f"`{p.name}` differs at {c.mismatches} of {int(np.prod(c.shape))} elements "
                       f"(worst {c.worst}; max abs err {c.max_abs_err:.3g})")
    if bad:
        return Outcome("wrong", "; ".join(bad), seconds)
    return Outcome("ok", "", seconds)


def minimise(choices: list[int], fails: Callable[[list[int]], bool], *, budget: int = 200) -> list[int]:
    """A shorter or smaller choice sequence for which `fails` still holds (greedy, as hypothesis
    shrinks): cut blocks of choices off the end and out of the middle, then lower each choice
    towards 0. `fails` replays a sequence (a choice past the end is 0) and says whether it still
    shows the failure; at most `budget` calls."""
    best = list(choices)
    calls = 0

    def attempt(candidate: list[int]) -> bool:
        nonlocal best, calls
        if calls >= budget or candidate == best:
            return False
        calls += 1
        if fails(candidate):
            best = candidate
            return True
        return False

    improved = True
    while improved and calls < budget:
        improved = False
        for size in (8, 4, 2, 1):
            i = 0
            while i < len(best) and calls < budget:
                if attempt(best[:i] + best[i + size:]):
                    improved = True
                else:
                    i += 1
        for i in range(len(best)):
            while best[i] > 0 and calls < budget:
                for smaller in (0, best[i] // 2, best[i] - 1):
                    if smaller < best[i] and attempt(best[:i] + [smaller] + best[i + 1:]):
                        improved = True
                        break
                else:
                    break
    return best


def check_case(case: Case, **kw) -> Outcome:
    """`check` of a generated program on its inputs."""
    return check(case.text, case.inputs, case.scalars, **kw)


@dataclass
class Disagreement:
    seed: str
    case: Case
    outcome: Outcome
    minimal: Case                 # the smallest program found that fails the same way
    minimal_outcome: Outcome


def same_failure(a: Outcome, b: Outcome) -> bool:
    """The same kind of failure; for a refusal of the lowering, the same words up to the first quote."""
    if a.kind != b.kind:
        return False
    return a.kind != "lower" or a.message.split("`")[0] == b.message.split("`")[0]


def shrink(choices: list[int], outcome: Outcome, *, budget: int = 60, forms: tuple[str, ...] = FORMS,
           **kw) -> tuple[Case, Outcome]:
    """The smallest program (by its choices) that fails as `outcome` did, and its outcome."""
    seen: dict[tuple, Outcome] = {}

    emulated = outcome.kind not in ("reject", "interp", "lower")    # a failure before the emulator: no compile

    def outcome_of(cs: list[int]) -> tuple[Case, Outcome]:
        case = generate(Replay(cs), forms)
        if tuple(cs) not in seen:
            seen[tuple(cs)] = check_case(case, emulated=emulated, **kw)
        return case, seen[tuple(cs)]

    best = minimise(choices, lambda cs: same_failure(outcome_of(cs)[1], outcome), budget=budget)
    return outcome_of(best)


@dataclass
class Campaign:
    """What a run of generated programs covered and found."""
    programs: int = 0
    kinds: dict = field(default_factory=dict)          # outcome kind -> count
    forms: dict = field(default_factory=dict)          # form or feature tag -> count
    shapes: set = field(default_factory=set)           # distinct (name, shape) of the inputs
    emulated: int = 0                                  # programs run on the emulator (the others: lowered only)
    disagreements: list = field(default_factory=list)  # Disagreement
    seconds: float = 0.0


def campaign(seed: int | str, *, count: int | None = None, minutes: float | None = None,
             forms: tuple[str, ...] = FORMS, shrink_budget: int = 60, emulate_every: int = 1,
             report: Callable[[int, Case, Outcome], None] | None = None, **kw) -> Campaign:
    """Generated programs `f"{seed}-{i}"` for i = 0, 1, ... until `count` programs or `minutes`,
    each checked; a disagreement is shrunk to its smallest program (`shrink`). With `emulate_every`
    k > 1 only every k-th program is compiled and emulated, the others checked as far as the
    lowering (its refusals and checker findings; no compile): a slice of many programs in the time
    of few compiles."""
    out = Campaign()
    start = time.perf_counter()
    i = 0
    while (count is None or i < count) and (minutes is None or time.perf_counter() - start < 60 * minutes):
        draws = Draws(f"{seed}-{i}")
        case = generate(draws, forms)
        emulated = i % max(1, emulate_every) == 0
        outcome = check_case(case, **{"emulated": emulated, **kw})
        out.programs += 1
        out.emulated += emulated
        out.kinds[outcome.kind] = out.kinds.get(outcome.kind, 0) + 1
        for tag in case.forms:
            out.forms[tag] = out.forms.get(tag, 0) + 1
        out.shapes.update((n, tuple(a.shape)) for n, a in case.inputs.items())
        if report:
            report(i, case, outcome)
        if outcome.failed:
            small, small_outcome = shrink(draws.choices, outcome, budget=shrink_budget, forms=forms, **kw)
            out.disagreements.append(Disagreement(f"{seed}-{i}", case, outcome, small, small_outcome))
        i += 1
    out.seconds = time.perf_counter() - start
    return out
