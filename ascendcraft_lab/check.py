"""`ascendcraft check TARGET --ref REF.py [--backend interpreter|emulator|cann]`.

TARGET is a DSL file or a session folder. `interpreter` runs the DSL in numpy; `emulator`
(the default) lowers it, compiles the AscendC with g++ against the emulator and runs it;
`cann` builds and runs it on an NPU (for a session folder, recorded in its runs/). Exit 0 only
when the result matches PyTorch.
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


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    backend = _backend(argv)
    if backend == "interpreter":
        from .dsl.check import main as interp_main
        return interp_main(argv)
    if backend == "emulator":
        from .passes.lower import check_main
        return check_main(argv)
    if backend == "cann":
        from .backends.cann.cli import check_main as cann_check
        return cann_check(argv)
    print(f"ascendcraft check: unknown backend {backend!r}; use interpreter, emulator or cann", file=sys.stderr)
    return 2
