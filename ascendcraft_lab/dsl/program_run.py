"""Running a program of kernels: its GM tensors, the launches in order, each kernel by a runner.

`run_multi` walks the program's schedule (program_check.schedule, the one meaning of its order):
the reference's tensors and the zeroed outputs and intermediates are the program's GM; each launch
hands its kernel numpy views of them (`x[s]`, `x.view(...)`) and writes what the kernel returns
back through the views. The runner of a kernel is the numpy interpreter by default; the emulator
backend passes its own (backends/emulator/program.py), so both runs share this walk and record
the same trace: what each launch wrote, to compare launch by launch.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

import numpy as np

from ..soc import Soc, get_soc
from .host import HostEvaluator, output_shape
from .interp import run
from .ir import ArgView, LaunchStmt, MultiProgram, Program, ScalarParam, TensorRole
from .program import arg_text
from .program_check import bind_launches, index_values, launch_params, program_env, schedule

# (kernel verified for the launch's shapes, its inputs by param name) -> its outputs by param name
KernelRunner = Callable[[Program, dict], Mapping[str, np.ndarray]]


@dataclass
class LaunchRecord:
    """What one launch wrote: its statement, the loop variables' values, each output's view."""

    stmt: LaunchStmt
    loops: dict
    written: dict                      # program argument text -> array (a copy)
    info: dict = field(default_factory=dict)   # what the runner observed (cores, status)

    @property
    def where(self) -> str:
        at = ", ".join(f"{k} = {v}" for k, v in self.loops.items())
        return f"`{self.stmt.kernel}` (line {self.stmt.span.line}{', ' + at if at else ''})"


@dataclass
class ProgramRun:
    outputs: dict                      # program output name -> array
    trace: list[LaunchRecord]


def interpret_kernel(soc: Soc):
    def runner(kernel: Program, inputs: dict):
        return run(kernel, inputs, soc)
    return runner


def program_gm(mp: MultiProgram, inputs: Mapping[str, object], env: Mapping, soc: Soc) -> dict:
    """The program's GM: the reference's tensors (copied) and its outputs and intermediates, zeroed."""
    iface = mp.interface
    gm = {n: np.array(v, copy=True) for n, v in inputs.items() if isinstance(v, np.ndarray)}
    for t in iface.tensors(TensorRole.output) + iface.tensors(TensorRole.workspace):
        gm[t.name] = np.zeros(output_shape(iface, t, env, soc), dtype=t.dtype.np)
    return gm


def run_multi(mp: MultiProgram, inputs: Mapping[str, object], soc: Soc | str | None = None, *,
              runner: KernelRunner | None = None) -> ProgramRun:
    """Run every launch of a verified program on `inputs` (program param name -> array or scalar)."""
    soc = soc if isinstance(soc, Soc) else get_soc(soc)
    runner = runner or interpret_kernel(soc)
    scalars = {p.name: inputs[p.name] for p in mp.main.params if isinstance(p, ScalarParam)}
    shapes = {n: np.shape(v) for n, v in inputs.items() if isinstance(v, np.ndarray)}
    env = program_env(mp, shapes, scalars)
    bound = bind_launches(mp, shapes, scalars, soc)
    gm = program_gm(mp, inputs, env, soc)
    trace = []
    for st, loops in schedule(mp, env):
        b = bound[id(st)]
        views, kin = {}, dict(b.scalars)
        for arg, p in zip(st.args, launch_params(b.kernel)):
            if isinstance(arg, ArgView):
                views[p.name] = _view(mp, gm, arg, env, loops)
                kin[p.name] = views[p.name]
        outs = runner(b.kernel, {k: v for k, v in kin.items() if k not in _outputs(b.kernel)})
        written = {}
        for arg, p in zip(st.args, launch_params(b.kernel)):
            if p.name in _outputs(b.kernel):
                views[p.name][...] = np.reshape(outs[p.name], views[p.name].shape)
                written[_text(arg)] = views[p.name].copy()
        trace.append(LaunchRecord(st, dict(loops), written, dict(getattr(outs, "info", {}))))
    return ProgramRun({t.name: gm[t.name] for t in mp.interface.results}, trace)


def _outputs(kernel: Program) -> set[str]:
    return {p.name for p in kernel.outputs}


def _view(mp: MultiProgram, gm: dict, arg: ArgView, env, loops) -> np.ndarray:
    """The numpy view of a launch argument: it shares the program tensor's memory."""
    a = gm[arg.tensor][index_values(mp, arg, env, loops)] if arg.index else gm[arg.tensor]
    if arg.view is not None:
        a = a.reshape(tuple(int(v) for v in _dims(mp, arg, env)))
    assert np.shares_memory(a, gm[arg.tensor]) or a.size == 0
    return a


def _dims(mp: MultiProgram, arg: ArgView, env):
    ev = HostEvaluator(None, env, mp.path, mp.source)
    return [ev.eval(d) for d in arg.view]


def _text(arg: ArgView) -> str:
    return arg_text(arg)


__all__ = ["run_multi", "ProgramRun", "LaunchRecord", "KernelRunner", "program_gm", "interpret_kernel"]
