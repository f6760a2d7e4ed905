"""The `ascendcraft` command: a thin dispatcher over the library.

Each command lives in the module that owns its stage of the pipeline and exposes
`main(argv) -> int`; this file only names them. A command that is not built yet says so in
one line and exits 2.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from dataclasses import dataclass

from ..atomic import disk_full
from ..procs import Terminated, handle_termination, shielded


@dataclass(frozen=True)
class Command:
    name: str
    summary: str
    target: str | None  # "module:function", or None while not built


COMMANDS = [
    Command("demo", "the main job, offline: a bundled example from reference to verified AscendC",
            "ascendcraft_lab.cli.demo:main"),
    Command("draft", "PyTorch reference -> DSL draft (--engine drafter|llm)", "ascendcraft_lab.cli.draft:main"),
    Command("lower", "DSL -> session folder with every stage and the AscendC project",
            "ascendcraft_lab.cli.lower:main"),
    Command("check", "compile and verify against PyTorch (--backend interpreter|emulator|cann)",
            "ascendcraft_lab.cli.check:main"),
    Command("emulate", "run hand-written AscendC on the CPU emulator", "ascendcraft_lab.backends.emulator.cli:main"),
    Command("bench", "Comp@1 / Pass@1 / Fast_p over a folder of reference files", "ascendcraft_lab.bench.cli:main"),
    Command("lab", "start JupyterLab on notebooks/", "ascendcraft_lab.notebook.lab_cli:main"),
    Command("export", "export a session to MultiKernelBench's submission format (--format mkb|mkb-direct)",
            "ascendcraft_lab.cli.export:main"),
    Command("build", "build a session's AscendC project with CANN (NPU host)", "ascendcraft_lab.cli.npu:build_main"),
    Command("profile", "estimated pipe profile of a session offline (pipe model), measured on an NPU host; "
            "or a kernel_details.csv", "ascendcraft_lab.cli.npu:profile_main"),
    Command("doctor", "what is available: compiler, CANN, torch_npu, NPU, LLM endpoint, Ray",
            "ascendcraft_lab.cli.doctor:main"),
]


def _parser() -> argparse.ArgumentParser:
    width = max(len(c.name) for c in COMMANDS)
    listing = "\n".join(
        f"  {c.name:<{width}}  {c.summary}{'' if c.target else '  [not built yet]'}" for c in COMMANDS
    )
    parser = argparse.ArgumentParser(
        prog="ascendcraft",
        description="AscendCraft Lab: PyTorch operators -> kernel DSL -> AscendC, verified on a CPU emulator.",
        epilog="commands:\n" + listing + "\n\nRun `ascendcraft COMMAND --help` for a command's options.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("command", metavar="COMMAND", choices=[c.name for c in COMMANDS], help=argparse.SUPPRESS)
    parser.add_argument("args", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    return parser


def main(argv: list[str] | None = None) -> int:
    # First thing, before the command's module is imported (seconds of CPU for numpy and the
    # pipeline): `kill PID` unwinds like Ctrl-C, children stopped, temporary files removed, and a
    # signal that arrives while the imports still load is the same one line and exit code.
    handle_termination()
    try:
        return _run(sys.argv[1:] if argv is None else argv)
    except Terminated as exc:
        print(f"stopped ({exc})", file=sys.stderr)
        return 128 + exc.signum
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def _run(argv: list[str]) -> int:
    ns = _parser().parse_args(argv)
    command = next(c for c in COMMANDS if c.name == ns.command)
    if command.target is None:
        print(f"ascendcraft {command.name}: not built yet", file=sys.stderr)
        return 2
    module_name, func_name = command.target.split(":")
    try:
        # a signal is acted on once the import is done: landing inside numpy's C import it would come
        # out as numpy's ImportError ("PyCapsule_Import could not import module datetime"), not as itself
        with shielded():
            module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and module_name.startswith(exc.name):
            print(f"ascendcraft {command.name}: not built yet", file=sys.stderr)
            return 2
        raise
    try:
        return int(getattr(module, func_name)(ns.args) or 0)
    except OSError as exc:     # the machine said no (permissions, a full disk): one line, not a traceback
        where = f"{exc.filename}: " if exc.filename else ""
        print(disk_full(exc) or f"ascendcraft {command.name}: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
