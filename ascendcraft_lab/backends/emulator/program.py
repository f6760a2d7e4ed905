"""A program of kernels on the emulator: its host code built with g++, every launch run in order.

The program's host code (`program/<name>_program.cpp`) is compiled warning-free (-Wall -Wextra
-Werror) against the emulator's AscendCL header and each kernel's tiling header. The launches run
in the program's order (dsl/program_run.py walks the schedule), each kernel's own project compiled
and run on the emulator (`verify.emulate`: its tiling function checked against the DSL's, every
core run) on numpy views of the program's GM. Each launch's outputs are compared with what the
numpy interpreter's launch wrote, so a wrong answer names the kernel, its DSL line and the loop
step; then the program's outputs are compared with PyTorch.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ... import procs
from ...dsl import ir
from ...dsl.program_check import verify_multi
from ...dsl.program_run import ProgramRun, run_multi
from ...passes.bundle import Bundle
from ...passes.program import kernel_project, program_path
from ...reference.bind import Verdict, compare
from ...reference.program import bind_program, program_verdict
from ...soc import get_soc
from .runner import INCLUDE_DIR
from .verify import emulate, write_bundle_files

WARNINGS = ("-Wall", "-Wextra", "-Werror")


class LaunchFailed(RuntimeError):
    """A launch the emulator did not run to the end (compile error, tiling mismatch, crash, findings)."""


def build_host(project: Bundle, mp: ir.MultiProgram) -> list[str]:
    """Compile the program's host code with g++ (warnings are errors); its error lines, [] when clean."""
    with procs.scratch_dir("ascendcraft-program-") as root:
        write_bundle_files(project, root)
        out = procs.run(["g++", "-std=c++17", *WARNINGS, "-fsyntax-only", "-I", str(INCLUDE_DIR),
                         str(root / program_path(mp))])
        text = out.stderr.replace(str(root) + "/", "")
    return [line for line in text.splitlines() if "error" in line or "warning" in line] if out.returncode else []


def emulator_runner(project: Bundle, soc: str, traces: Path | None = None):
    """A kernel runner for dsl/program_run.py: the kernel's own project (out of the program's) on the
    emulator. With `traces`, the first launch of each kernel and shapes writes its pipe trace there
    (`<n>.trace`, n counting the runner's launches); `runner.traced` maps each launch to its key and
    each key to its trace (a kernel's time depends on its shapes, not on the data)."""
    traced: dict = {"launches": [], "files": {}}

    def runner(kernel: ir.Program, inputs: dict):
        name = kernel.kernel.name
        tensors = {k: v for k, v in inputs.items() if isinstance(v, np.ndarray)}
        scalars = {k: v for k, v in inputs.items() if not isinstance(v, np.ndarray)}
        key = (name, tuple((k, np.shape(v)) for k, v in sorted(tensors.items())), tuple(sorted(scalars.items())))
        trace = None
        if traces is not None and key not in traced["files"]:
            trace = traces / f"{len(traced['launches'])}.trace"
            traced["files"][key] = trace
        traced["launches"].append(key)
        run = emulate(kernel, kernel_project(project, name), tensors, scalars, soc=soc, trace=trace)
        if run.status != "ok":
            raise LaunchFailed(f"`{name}` on the emulator: {run.status}: {run.message}")
        return run.outputs
    runner.traced = traced
    return runner


@dataclass
class ProgramCheck:
    verdict: Verdict
    emulated: ProgramRun | None
    interpreted: ProgramRun
    wrong_launch: str = ""          # the first launch whose output differs from the interpreter's
    traced: dict | None = None      # emulator_runner's traced launches (with `traces`)


def first_difference(emulated: ProgramRun, interpreted: ProgramRun, dtypes: dict) -> str:
    """The first launch whose outputs differ from the interpreter's, in words ("" when none)."""
    for got, want in zip(emulated.trace, interpreted.trace):
        for view, arr in got.written.items():
            dtype = dtypes[view.split("[")[0].split(".")[0]]
            check = compare(view, arr, want.written[view], dtype, None, None)
            if not check.correct:
                return (f"the launch of {got.where} writes `{view}`, which differs from the interpreter's at "
                        f"{check.mismatches} elements (worst {check.worst})")
    return ""


def check_program_emulator(mp: ir.MultiProgram, project: Bundle, ref, *, soc: str | None = None,
                           rtol=None, atol=None, traces: Path | None = None) -> ProgramCheck:
    """Build the program's host code, run every launch of the project on the emulator, compare launch
    by launch with the interpreter and the outputs with the reference (`traces`: see emulator_runner)."""
    s = get_soc(soc)
    typed = verify_multi(mp, s)
    inputs, expected = bind_program(typed, ref)
    interpreted = run_multi(typed, inputs, s)
    errors = build_host(project, typed)
    if errors:
        msg = f"compile-error: the program's host code does not build warning-free: {errors[0]}"
        return ProgramCheck(_failed(msg, s.name), None, interpreted)
    try:
        runner = emulator_runner(project, s.name, traces)
        emulated = run_multi(typed, inputs, s, runner=runner)
    except LaunchFailed as exc:
        return ProgramCheck(_failed(f"incorrect: {exc}", s.name), None, interpreted)
    dtypes = {t.name: t.dtype for t in typed.interface.tensors() + typed.interface.workspaces}
    wrong = first_difference(emulated, interpreted, dtypes)
    verdict = program_verdict(typed, emulated, expected, "emulator", s.name, rtol, atol)
    if wrong:
        verdict.correct = False
        verdict.message = f"incorrect: {wrong}; " + verdict.message.split(": ", 1)[-1]
    return ProgramCheck(verdict, emulated, interpreted, wrong, runner.traced)


def _failed(message: str, soc: str) -> Verdict:
    return Verdict(False, float("inf"), float("inf"), 0.0, 0.0, [], message, "emulator", soc)


__all__ = ["check_program_emulator", "build_host", "emulator_runner", "first_difference", "ProgramCheck"]
