"""`ascendcraft emulate`: run hand-written AscendC on the CPU emulator from the command line.

    ascendcraft emulate SRC.cpp [SRC2.cpp ...] --entry NAME --block-dim N --arg SPEC ... --out-dir DIR
                                 [--soc Ascend910B2] [--tiling-key K]
                                 (K: the key TILING_KEY_IS(K) branches test; 0 when not given)
    ascendcraft emulate --program main.cpp kernel.cpp [-I DIR] [--run-in DIR] [-- ARGS]   (a host program, e.g.
                                 a sample's CPU-debug main.cpp: built against the emulator and run in DIR)

Each ``--arg`` describes one kernel parameter, in the kernel's parameter order:

    in:PATH.npy                  input tensor
    out:DTYPE:D0xD1x...          zero-filled output, written back to DIR/argK.npy (K = 0-based position)
    inout:PATH.npy               initial data, written back to DIR/argK.npy
    ws:NBYTES                    workspace
    tiling:TYPE=VALUE,...        tiling struct, packed as C with natural alignment
                                 (TYPE: int32 uint32 int64 uint64 float ...)

DTYPE is a numpy name (float32, float16, int32, uint8, ...). bfloat16 has no numpy dtype: it travels
as uint16 raw bits (out:bfloat16:... writes a uint16 array).

Writes DIR/report.json, prints a short summary, and exits 0 only when the run is ``ok`` (1 for
findings, compile errors, crashes and timeouts; 2 for usage errors).
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

from ascendcraft_lab.soc import SOCS, DEFAULT_SOC
from .runner import Arg, _np_dtype, pack_tiling, run_kernel


_ARG_HELP = """argument SPECs, one --arg per kernel parameter, in order:
  in:PATH.npy              input tensor
  out:DTYPE:D0xD1x...      zero-filled output, saved as OUT_DIR/argK.npy (K = position)
  inout:PATH.npy           initial data, saved as OUT_DIR/argK.npy
  ws:NBYTES                workspace
  tiling:TYPE=VALUE,...    tiling struct, C layout (TYPE: int32 uint32 int64 uint64 float ...)
DTYPE is a numpy name; bfloat16 travels as uint16 raw bits.
exit status: 0 ok, 1 findings / compile error / crash / timeout, 2 usage error"""


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, no usage dump
        raise UsageError(message)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="ascendcraft emulate", description="Run AscendC kernels on the CPU emulator.", epilog=_ARG_HELP,
                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("sources", nargs="+", metavar="SRC", help="kernel source files (.cpp)")
    p.add_argument("--entry", required=True, help="the kernel entry (extern \"C\" __global__ __aicore__ function)")
    p.add_argument("--block-dim", required=True, type=int, help="number of logical cores (blocks)")
    p.add_argument("--arg", action="append", default=[], metavar="SPEC",
                   help="one kernel argument, in parameter order (forms below)")
    p.add_argument("--out-dir", required=True, type=Path, help="where outputs and report.json go")
    p.add_argument("--soc", default=DEFAULT_SOC, help=f"SoC for the UB budget ({', '.join(SOCS)})")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds before the run is stopped")
    p.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR",
                   help="extra include directory")
    p.add_argument("--tiling-key", type=int, default=0, metavar="K",
                   help="the launch's tiling key (what SetTilingKey sets): TILING_KEY_IS(K) branches run (default 0)")
    return p


def _parse_shape(text: str) -> tuple[int, ...]:
    try:
        shape = tuple(int(d) for d in text.lower().split("x"))
    except ValueError:
        raise UsageError(f"bad shape {text!r}: expected D0xD1x... such as 16x1024") from None
    if any(d < 0 for d in shape):
        raise UsageError(f"bad shape {text!r}: dimensions must not be negative")
    return shape


def _load_npy(path: str, spec: str) -> np.ndarray:
    try:
        return np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        raise UsageError(f"--arg {spec}: cannot read {path}: {e}") from None


_INT_TYPES = {"int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "bool"}


def parse_arg(spec: str) -> Arg:
    kind, _, rest = spec.partition(":")
    if kind == "in":
        return Arg.input(_load_npy(rest, spec))
    if kind == "inout":
        return Arg.inout(_load_npy(rest, spec))
    if kind == "out":
        dtype, _, shape = rest.partition(":")
        if not shape:
            raise UsageError(f"--arg {spec}: expected out:DTYPE:D0xD1x...")
        try:
            _np_dtype(dtype)
        except TypeError:
            raise UsageError(f"--arg {spec}: unknown dtype {dtype!r}") from None
        return Arg.output(dtype, _parse_shape(shape))
    if kind == "ws":
        try:
            return Arg.workspace(int(rest, 0))
        except ValueError:
            raise UsageError(f"--arg {spec}: expected ws:NBYTES") from None
    if kind == "tiling":
        fields = []
        for item in filter(None, rest.split(",")):
            typ, eq, val = item.partition("=")
            if not eq:
                raise UsageError(f"--arg {spec}: expected TYPE=VALUE, got {item!r}")
            try:
                value = int(val, 0) if typ in _INT_TYPES else float(val)
            except ValueError:
                raise UsageError(f"--arg {spec}: bad value {val!r} for {typ}") from None
            fields.append((typ, value))
        try:
            return Arg.tiling(pack_tiling(fields))
        except (ValueError, Exception) as e:  # struct.error for out-of-range values
            raise UsageError(f"--arg {spec}: {e}") from None
    raise UsageError(f"--arg {spec}: unknown kind {kind!r}; use in:, out:, inout:, ws: or tiling:")


def program_main(argv: list[str]) -> int:
    """`ascendcraft emulate --program SRC... [-I DIR] [--run-in DIR] [-- ARGS]`: a host program (a
    sample's CPU-debug main.cpp with its kernel sources) built against the emulator and run."""
    from .runner import build_program, program_env
    p = _Parser(prog="ascendcraft emulate --program", description="Build and run a host program on the emulator.")
    p.add_argument("sources", nargs="+", metavar="SRC", help="the program's sources: main.cpp and the kernel files")
    p.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR",
                   help="extra include directory")
    p.add_argument("--run-in", type=Path, default=Path.cwd(), metavar="DIR",
                   help="where the program runs (its input/ and output/)")
    p.add_argument("--soc", default=DEFAULT_SOC, help=f"SoC to emulate ({', '.join(SOCS)})")
    p.add_argument("--timeout", type=float, default=600.0)
    args = argv[argv.index("--") + 1:] if "--" in argv else []
    own = argv[: argv.index("--")] if "--" in argv else argv
    try:
        ns = p.parse_args([a for a in own if a != "--program"])
        for s in ns.sources:
            if not Path(s).is_file():
                raise UsageError(f"no such source file: {s}")
        if ns.soc not in SOCS:
            raise UsageError(f"unknown SoC {ns.soc!r}; known: {', '.join(SOCS)}")
    except UsageError as e:
        print(f"ascendcraft emulate: error: {e}", file=sys.stderr)
        return 2
    comp = build_program(ns.sources, include_dirs=ns.include_dirs, soc=ns.soc)
    if not comp.ok:
        for d in comp.errors[:10]:
            where = f"{d['file']}:{d['line']}: " if d["file"] else ""
            print(f"{where}error: {d['message']}", file=sys.stderr)
        return 1
    import subprocess
    from ... import procs
    # Its own process group (stopped with this one); its output goes straight to the terminal.
    memory = procs.child_memory()       # an allocation beyond it fails in the program (procs.child_memory)
    proc = procs.spawn([str(comp.binary), *args], cwd=ns.run_in, env=program_env(ns.soc),
                       memory=memory[0] if memory else None)
    try:
        code = proc.wait(timeout=ns.timeout)
        procs.kill_group(proc)          # what the program fork()ed and left running in its group
        if code < 0:                    # a signal: say which (and the memory it had: a failed allocation aborts)
            limit = (f"; it could map at most {memory[0] / (1 << 30):.1f} GiB ({memory[1]}): an allocation beyond "
                     f"that fails (std::bad_alloc aborts), {procs.MEMORY_ENV}=16G gives more") if memory else ""
            print(f"ascendcraft emulate: the program {procs.killed_by(code)}{limit}", file=sys.stderr)
            return 128 - code
        return code
    except subprocess.TimeoutExpired:
        procs.kill_group(proc)
        print(f"ascendcraft emulate: the program did not finish within {ns.timeout:g} s and was stopped",
              file=sys.stderr)
        return 1
    except BaseException:
        procs.kill_group(proc)
        raise


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["emulate"]:
        argv = argv[1:]
    if "--program" in argv:
        return program_main(argv)
    try:
        ns = _parser().parse_args(argv)
        if ns.soc not in SOCS:
            raise UsageError(f"unknown SoC {ns.soc!r}; known: {', '.join(SOCS)}")
        for s in ns.sources:
            if not Path(s).is_file():
                raise UsageError(f"no such source file: {s}")
        if not 1 <= ns.block_dim <= 65535:
            raise UsageError(f"--block-dim must be in 1..65535, got {ns.block_dim}")
        if not 0 <= ns.tiling_key < 2 ** 64:
            raise UsageError(f"--tiling-key must be in 0..2**64-1, got {ns.tiling_key}")
        if not (math.isfinite(ns.timeout) and ns.timeout > 0):
            raise UsageError(f"--timeout must be a positive number of seconds, got {ns.timeout:g}")
        if ns.out_dir.exists() and not ns.out_dir.is_dir():
            raise UsageError(f"--out-dir {ns.out_dir} is a file; give a folder for the outputs and report.json")
        args = [parse_arg(s) for s in ns.arg]
    except UsageError as e:
        print(f"ascendcraft emulate: error: {e}", file=sys.stderr)
        return 2
    except SystemExit as e:  # --help
        return int(e.code or 0)

    report = run_kernel(ns.sources, ns.entry, ns.block_dim, args, soc=ns.soc, timeout=ns.timeout,
                        include_dirs=ns.include_dirs, tiling_key=ns.tiling_key)
    out_dir: Path = ns.out_dir
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        print(f"ascendcraft emulate: error: cannot create {out_dir}: {e.strerror}", file=sys.stderr)
        return 2
    for k, arr in report.outputs.items():
        np.save(out_dir / f"arg{k}.npy", arr)
    (out_dir / "report.json").write_text(report.to_json())
    print(report.summary())
    if report.outputs:
        print("outputs: " + ", ".join(str(out_dir / f"arg{k}.npy") for k in sorted(report.outputs)))
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
