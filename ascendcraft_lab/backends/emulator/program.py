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

import subprocess
from dataclasses import dataclass
from string import Template
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
from ...dsl.program_check import program_env
from ...dsl.program_run import program_gm
from ...passes.plan import plan_for
from ...passes.program import camel, program_signature
from ...passes.spec import LowerOptions
from ...soc import get_soc
from .runner import INCLUDE_DIR, build_program
from .runner import program_env as runner_env
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


_MAIN = Template("""\
// The emulator's host main for a program (not part of the project): files in, the program, files out.
#include <cstdio>
#include <string>
#include <vector>
#include "acl/acl.h"

$declaration

namespace {
    const char *kNames[] = {$names};
    const bool kIsOutput[] = {$flags};
    constexpr size_t kTensors = $count;

    std::string PathOf(size_t i, bool output) {
        return std::string(output ? "output/" : "input/") + kNames[i] + ".bin";
    }
}  // namespace

int main() {
    std::vector<void *> dev(kTensors);
    std::vector<size_t> bytes(kTensors);
    aclrtStream stream = nullptr;
    if (aclInit(nullptr) != ACL_SUCCESS || aclrtCreateStream(&stream) != ACL_SUCCESS) return 2;
    for (size_t i = 0; i < kTensors; ++i) {
        std::FILE *f = std::fopen(PathOf(i, kIsOutput[i]).c_str(), "rb");
        if (f == nullptr) return 2;
        std::fseek(f, 0, SEEK_END);
        bytes[i] = static_cast<size_t>(std::ftell(f));
        std::fseek(f, 0, SEEK_SET);
        std::vector<char> host(bytes[i] + 1);
        const size_t got = std::fread(host.data(), 1, bytes[i], f);
        std::fclose(f);
        if (got != bytes[i] || aclrtMalloc(&dev[i], bytes[i] + 1, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return 2;
        aclrtMemcpy(dev[i], bytes[i] + 1, host.data(), bytes[i], ACL_MEMCPY_HOST_TO_DEVICE);
    }
    const aclError status = $call;
    if (status != ACL_SUCCESS) {
        std::fprintf(stderr, "the program returned %d\\n", status);
        return 3;
    }
    for (size_t i = 0; i < kTensors; ++i) {
        if (!kIsOutput[i]) continue;
        std::vector<char> host(bytes[i] + 1);
        aclrtMemcpy(host.data(), bytes[i], dev[i], bytes[i], ACL_MEMCPY_DEVICE_TO_HOST);
        std::FILE *f = std::fopen(PathOf(i, true).c_str(), "wb");
        if (f == nullptr || std::fwrite(host.data(), 1, bytes[i], f) != bytes[i]) return 2;
        std::fclose(f);
    }
    for (void *p : dev) aclrtFree(p);
    return 0;
}
""")


def harness_main(mp: ir.MultiProgram, dims: dict, scalars: dict) -> str:
    """A host `main` for the emulator: the reference's tensors from input/<name>.bin into device memory,
    the program's `Launch<Name>` with these dims and scalars, its outputs to output/<name>.bin."""
    iface = mp.interface
    tensors = iface.tensors()
    args = ["stream"] + [str(int(dims[d])) for d in iface.dim_names()]
    args += [repr(float(scalars[p.name])) if p.dtype.is_float else str(int(scalars[p.name])) for p in iface.scalars]
    args += [f"dev[{i}]" for i in range(len(tensors))]
    outs = {t.name for t in iface.results}
    return _MAIN.substitute(
        declaration=program_signature(mp) + ";", names=", ".join(f'"{t.name}"' for t in tensors),
        flags=", ".join("true" if t.name in outs else "false" for t in tensors), count=len(tensors),
        call=f"Launch{camel(mp.name)}({', '.join(args)})")


def run_whole_program(mp: ir.MultiProgram, project: Bundle, inputs: dict, soc: str,
                      timeout: float = 600) -> tuple[dict | None, str]:
    """Build the program's host code with every kernel's launch and tiling code and a host main, run it
    on the emulator as one process, and read its outputs: ({output name: array}, "") or (None, why)."""
    iface = mp.interface
    scalars = {p.name: inputs[p.name] for p in iface.scalars}
    shapes = {n: np.shape(v) for n, v in inputs.items() if isinstance(v, np.ndarray)}
    env = program_env(mp, shapes, scalars)
    gm = program_gm(mp, inputs, env, get_soc(soc))
    with procs.scratch_dir("ascendcraft-whole-program-") as root:
        write_bundle_files(project, root / "project")
        (root / "run" / "input").mkdir(parents=True)
        (root / "run" / "output").mkdir()
        for t in iface.tensors():
            where = "output" if t.role is ir.TensorRole.output else "input"
            np.ascontiguousarray(gm[t.name], dtype=t.dtype.np).tofile(root / "run" / where / f"{t.name}.bin")
        (root / "main.cpp").write_text(harness_main(mp, env, scalars))
        sources = [root / "project" / program_path(mp), root / "main.cpp"]
        for k in mp.kernels:
            plan = plan_for(k, LowerOptions(soc=soc))
            sources += [root / "project" / k.kernel.name / plan.host_path,
                        root / "project" / k.kernel.name / plan.tiling_impl_path]
        comp = build_program(sources, soc=soc)
        if not comp.ok:
            first = comp.errors[0] if comp.errors else {"message": "link failed"}
            return None, f"the whole program does not build on the emulator: {first.get('message')}"
        try:
            run = procs.run([str(comp.binary)], cwd=root / "run", env=runner_env(soc), timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, f"the whole program did not finish within {timeout:g} s"
        if run.returncode or run.stderr.strip():
            return None, f"the whole program failed (exit {run.returncode}): {run.stderr.strip()[:300]}"
        return {t.name: np.fromfile(root / "run" / "output" / f"{t.name}.bin", dtype=t.dtype.np).reshape(
            gm[t.name].shape) for t in iface.results}, ""


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
            raise LaunchFailed(f"{run.status}: {run.message}{_first_finding(run)}")
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
                           rtol=None, atol=None, traces: Path | None = None, whole: bool = True) -> ProgramCheck:
    """Build the program's host code, run every launch of the project on the emulator, compare launch
    by launch with the interpreter and the outputs with the reference (`traces`: see emulator_runner);
    with `whole`, the program's own host code then runs every launch in one process (run_whole_program)
    and must give the same outputs."""
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
        where = interpreted.trace[len(runner.traced["launches"]) - 1].where
        return ProgramCheck(_failed(f"incorrect: the launch of {where} on the emulator: {exc}", s.name), None,
                            interpreted, where)
    dtypes = {t.name: t.dtype for t in typed.interface.tensors() + typed.interface.workspaces}
    wrong, ran_whole = first_difference(emulated, interpreted, dtypes), False
    if not wrong and whole:
        wrong = _whole_program_difference(typed, project, inputs, emulated, s.name)
        ran_whole = not wrong
    verdict = program_verdict(typed, emulated, expected, "emulator", s.name, rtol, atol)
    if wrong:
        verdict.correct = False
        verdict.message = f"incorrect: {wrong}; " + verdict.message.split(": ", 1)[-1]
    elif ran_whole:
        verdict.message += "; its host code, run whole on the emulator, gives the same outputs"
    return ProgramCheck(verdict, emulated, interpreted, wrong, runner.traced)


def _whole_program_difference(mp: ir.MultiProgram, project: Bundle, inputs: dict, emulated: ProgramRun,
                              soc: str) -> str:
    """"" when the program's host code, run whole, writes what the launch-by-launch run wrote."""
    outputs, why = run_whole_program(mp, project, inputs, soc)
    if outputs is None:
        return why
    for name, arr in outputs.items():
        if not np.array_equal(arr, emulated.outputs[name], equal_nan=True):
            bad = int(np.sum(arr != emulated.outputs[name]))
            return (f"the program's host code, run whole, writes `{name}` differently from its launches run one "
                    f"by one ({bad} elements): check the launch order, views and intermediates in "
                    f"{program_path(mp)}")
    return ""


def _first_finding(run) -> str:
    """The run's first emulator finding or compiler error, with the DSL line of the kernel it maps to."""
    for f in list(run.findings) + [d for d in run.diagnostics if d.get("severity") == "error"]:
        line = f" (DSL line {f['dsl_line']})" if f.get("dsl_line") else ""
        return f"; first: {f.get('kind', 'g++')} {f.get('message')}{line}"
    return ""


def _failed(message: str, soc: str) -> Verdict:
    return Verdict(False, float("inf"), float("inf"), 0.0, 0.0, [], message, "emulator", soc)


__all__ = ["check_program_emulator", "build_host", "emulator_runner", "first_difference", "ProgramCheck"]
