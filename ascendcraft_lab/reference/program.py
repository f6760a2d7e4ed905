"""A program of kernels against its PyTorch reference: binding and the verdict.

A program binds to the reference exactly as one kernel does, through its interface (the
@program's parameters as a kernel signature, `MultiProgram.interface`): get_inputs() to its GM
inputs in order, Params by state_dict name, forward's results to its Outs in order.
"""
from __future__ import annotations

from pathlib import Path

from ..dsl.ir import MultiProgram
from ..dsl.program_check import verify_multi
from ..dsl.program_run import ProgramRun, run_multi
from ..soc import get_soc
from .bind import Verdict, bind, compare
from .load import ReferenceRun, load_reference


def bind_program(mp: MultiProgram, ref: ReferenceRun) -> tuple[dict, dict]:
    """The program's inputs (param name -> array or scalar) and the expected outputs (name -> array)."""
    return bind(mp.interface, ref)

def program_verdict(mp: MultiProgram, got: ProgramRun, expected: dict, backend: str, soc: str,
                    rtol=None, atol=None) -> Verdict:
    """Compare a program's outputs with the reference's; the message names the program."""
    outs = mp.interface.results
    checks = [compare(p.name, got.outputs[p.name], expected[p.name], p.dtype, rtol, atol) for p in outs]
    correct = all(c.correct for c in checks)
    max_abs = max((c.max_abs_err for c in checks), default=0.0)
    max_rel = max((c.max_rel_err for c in checks), default=0.0)
    used = (max((c.rtol for c in checks), default=0.0), max((c.atol for c in checks), default=0.0))
    tol = f"(rtol {used[0]:g}, atol {used[1]:g})"
    if correct:
        msg = (f"correct: program `{mp.name}` ({len(got.trace)} launches of {len(mp.kernels)} kernels) matches the "
               f"reference on the {backend} ({soc}): max abs err {max_abs:.3g}, max rel err {max_rel:.3g} {tol}")
    else:
        bad = next(c for c in checks if not c.correct)
        msg = (f"incorrect: `{bad.name}` of program `{mp.name}` differs at {bad.mismatches} elements (worst "
               f"{bad.worst}); max abs err {max_abs:.3g}, max rel err {max_rel:.3g} {tol}")
    return Verdict(correct, max_abs, max_rel, used[0], used[1], checks, msg, backend, soc,
                   {"launches": len(got.trace)})

def check_program_interpreter(mp: MultiProgram, ref_path, *, soc: str | None = None, overrides=None,
                              rtol=None, atol=None, seed: int = 0, reference: ReferenceRun | None = None) -> Verdict:
    """Verify a program, run it on the numpy interpreter, compare with the reference."""
    s = get_soc(soc)
    ref = reference if reference is not None else load_reference(ref_path, overrides=overrides, seed=seed)
    typed = verify_multi(mp, s)
    inputs, expected = bind_program(typed, ref)
    got = run_multi(typed, inputs, s)
    verdict = program_verdict(typed, got, expected, "interpreter", s.name, rtol, atol)
    if not verdict.correct:
        verdict.message += f" ({Path(ref.path).name})"
    return verdict

__all__ = ["bind_program", "program_verdict", "check_program_interpreter"]
