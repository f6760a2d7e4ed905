"""Every kernel under kernels/ is compiled once per session (in parallel, through the emulator's
cache), so each test only pays for running it."""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import pytest

from ascendcraft_lab.backends.emulator import runner
from emulator_helpers import KERNELS, kernel_meta


@pytest.fixture(scope="session", autouse=True)
def precompiled_kernels():
    runner._runtime_object()
    names = sorted(p.stem for p in KERNELS.glob("*.cpp"))

    def build(name: str):
        path, entry, nargs = kernel_meta(name)
        return name, runner.compile_sources([path], entry=entry, n_args=nargs)

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        results = dict(pool.map(build, names))
    failed = {n: r.stderr for n, r in results.items() if not r.ok}
    assert not failed, f"kernels failed to compile: {failed}"
    return results
