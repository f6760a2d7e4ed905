"""The LLM drafter's second check: a draft the interpreter accepts is lowered and emulated as well.

`draft_with_llm` (engines/llm/draft.py) checks each reply on the numpy interpreter; the engines
cannot import the backends, so the session layer hands it `lowering_check(soc)`, a `LowerCheck`:
the draft lowered by the rule engine through the four passes and run on the emulator with the
reference's inputs. What the interpreter accepted but the compiler does not agree with goes back
to the model as an error, in the shared diagnostic format:

- a pass's refusal, or a checker's finding, at its DSL line (stage "lower");
- a compile error, an emulator finding, a crash (stage "emulator");
- outputs the emulator computes differently from the interpreter (stage "emulator"), naming the
  store statements that wrote the wrong elements: the interpreter records which store wrote each
  output element last (`RunOutputs.writers`).
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from ..backends.emulator.verify import check_emulator, render_run
from ..dsl import ir
from ..dsl.errors import format_diagnostic
from ..dsl.interp import RunOutputs, run as interpret
from ..dsl.verifier import verify
from ..engines.llm.draft import LowerCheck
from ..engines.rule import RuleEngine
from ..passes.manager import run_pipeline
from ..passes.pipeline import PIPELINE
from ..passes.spec import LowerOptions
from ..reference import TOLERANCES, ReferenceRun, bind, trim_outputs
from ..soc import get_soc

SHOWN = 3          # findings or stores quoted in one feedback
AGREED = "The interpreter accepts this draft, but "
REWRITE = ("the lowering does not translate this form faithfully: write these lines another way (the forms of "
           "the DSL reference and its examples lower and agree)")


def lowering_check(soc: str | None) -> LowerCheck:
    """The check `draft_with_llm(lowered=...)` runs on a draft the interpreter accepted."""
    def check(program: ir.Program, ref: ReferenceRun) -> tuple[str, str] | None:
        return disagreement(program, ref, soc)
    return check


def disagreement(program: ir.Program, ref: ReferenceRun, soc: str | None = None) -> tuple[str, str] | None:
    """None when the draft's lowering computes on the emulator what the interpreter computed on
    `ref`'s inputs; else (stage, feedback). Raises DslError when the concrete shapes break a rule."""
    s = get_soc(soc)
    inputs, expected = bind(program, ref)
    if expected and all(np.size(v) == 0 for v in expected.values()):
        return None                       # nothing to compute: no launch, nothing to disagree about
    scalars = {p.name: inputs[p.name] for p in program.scalars}
    tensors = {n: v for n, v in inputs.items() if isinstance(v, np.ndarray)}
    shapes = {n: tuple(np.shape(v)) for n, v in tensors.items()}
    typed = verify(program, s, shapes=shapes, scalars=scalars)
    steps = run_pipeline(typed, RuleEngine(), LowerOptions(soc=s.name, shapes=shapes, scalars=scalars))
    errors = [f for step in steps for f in step.findings if f.severity == "error"]
    if errors or len(steps) < len(PIPELINE):
        shown = "\n".join(f.render(typed.path, typed.source) for f in errors[:SHOWN]) or "the lowering stopped early"
        more = f"\n... and {len(errors) - SHOWN} more" if len(errors) > SHOWN else ""
        return "lower", (AGREED + "the compiler refuses it when lowering it to AscendC (the verifier does not "
                         f"catch this yet):\n{shown}{more}")
    verdict, emulated = check_emulator(typed, steps[-1].bundle, ref, soc=s.name)
    if verdict.correct:
        return None
    if emulated.status not in ("ok", "findings") or emulated.findings:
        found = render_run(emulated, typed, limit=SHOWN)
        return "emulator", (AGREED + f"its lowering to AscendC fails on the emulator ({verdict.message}):\n"
                            + (found or emulated.message))
    want = interpret(typed, inputs, s)
    got = trim_outputs(typed, emulated.outputs)
    lines = wrong_stores(typed, want, got)
    return "emulator", (AGREED + f"its lowering to AscendC computes something else on the emulator: "
                        f"{verdict.message}.\n" + (lines or "") + f"\n  = help: {REWRITE}")


def wrong_stores(program: ir.Program, want: RunOutputs, got: Mapping[str, np.ndarray]) -> str:
    """The store statements that wrote the elements where `got` (the emulator) differs from `want`
    (the interpreter), most wrong elements first, each as a diagnostic at its DSL line."""
    count: dict[int, int] = {}
    for p in program.outputs:
        g, w = got.get(p.name), want.get(p.name)
        writers = want.writers.get(p.name)
        if g is None or w is None or writers is None or np.shape(g) != np.shape(w):
            continue
        tol = TOLERANCES.get(p.dtype, 0.0)
        g64, w64 = np.asarray(g, dtype=np.float64), np.asarray(w, dtype=np.float64)
        bad = ~np.isclose(g64, w64, rtol=tol, atol=tol, equal_nan=True)
        ids, n = np.unique(writers[bad], return_counts=True)
        for k, c in zip(ids.tolist(), n.tolist()):
            count[k] = count.get(k, 0) + c
    out = []
    for k, c in sorted(count.items(), key=lambda kc: (-kc[1], kc[0]))[:SHOWN]:
        if k == 0:
            out.append(f"error: {c} wrong elements were stored by no statement on the interpreter "
                       "(the kernel wrote elements the draft does not store)")
            continue
        st = want.stores[k - 1]
        out.append(format_diagnostic(program.path, program.source, st.span,
                                     f"{c} of the wrong elements were stored here", severity="error"))
    return "\n".join(out)


__all__ = ["disagreement", "lowering_check", "wrong_stores"]
