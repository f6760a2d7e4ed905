"""`ascendcraft check TARGET --ref REF.py [--backend interpreter|emulator|cann]`.

TARGET is a DSL file or a session folder. `interpreter` runs the DSL in numpy; `emulator`
(the default) lowers it, compiles the AscendC with g++ against the emulator and runs it;
`cann` builds and runs it on an NPU. Exit 0 only when the result matches PyTorch.

A MultiKernelBench submission (a six-string .py or a direct-launch .json), or a folder of them,
goes to the emulator's submission checker (backends/emulator/submission.py).
"""
from __future__ import annotations

import sys


def _backend(argv: list[str]) -> str:
    for i, a in enumerate(argv):
        if a == "--backend" and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith("--backend="):
            return a.split("=", 1)[1]
    return "emulator"


def _target(argv: list[str]) -> str | None:
    """The first positional argument (flags that take a value skip it)."""
    skip = False
    for a in argv:
        if skip:
            skip = False
        elif a.startswith("-"):
            skip = "=" not in a and a not in ("-h", "--help")
        else:
            return a
    return None


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    target = _target(argv)
    if target is not None:
        # A MultiKernelBench submission (six-string .py, direct-launch .json) or a folder of them.
        from .backends.emulator.submission import is_submission_target, main as submission_main
        if is_submission_target(target):
            return submission_main(argv)
    backend = _backend(argv)
    if backend == "interpreter":
        from .dsl.check import main as interp_main
        return interp_main(argv)
    if backend == "emulator":
        from .passes.lower import check_main
        return check_main(argv)
    if backend == "cann":
        from .passes.lower import check_main
        return check_main(argv)
    print(f"ascendcraft check: unknown backend {backend!r}; use interpreter, emulator or cann", file=sys.stderr)
    return 2
