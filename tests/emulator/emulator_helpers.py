"""Helpers for the emulator tests: where the kernels live, their entry/arity headers, the FINDING markers."""
from __future__ import annotations

import re
from pathlib import Path

from ascendcraft_lab.backends.emulator import runner

KERNELS = Path(__file__).parent / "kernels"
_META = re.compile(r"^// acemu-test: entry=(\w+) args=(\d+)", re.M)


def kernel_meta(name: str) -> tuple[Path, str, int]:
    path = KERNELS / f"{name}.cpp"
    m = _META.search(path.read_text())
    assert m, f"{path} lacks the '// acemu-test: entry=... args=...' header"
    return path, m.group(1), int(m.group(2))


def marked_line(name: str) -> tuple[int, str]:
    """(line number, finding kind) of the '// FINDING: kind' marker in a buggy kernel."""
    for i, line in enumerate((KERNELS / f"{name}.cpp").read_text().splitlines(), start=1):
        m = re.search(r"// FINDING: ([\w-]+)", line)
        if m:
            return i, m.group(1)
    raise AssertionError(f"{name}.cpp has no FINDING marker")


def run(name: str, block_dim: int, args, **kw) -> runner.Report:
    path, entry, nargs = kernel_meta(name)
    assert len(args) == nargs, f"{name} takes {nargs} arguments"
    return runner.run_kernel([path], entry, block_dim, args, **kw)


