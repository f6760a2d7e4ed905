"""Shared pytest options, and the guard that keeps the fast tier fast.

`make test-fast` runs `-m "not heavy"` with ASCENDCRAFT_TEST_TIER=fast: a test that starts a
process (a g++ compile, a reference child, a Jupyter server) there fails at once with a message
saying to mark it `heavy`, so the fast tier cannot grow slow by accident.
"""

import os
import subprocess

import pytest

_FAST = os.environ.get("ASCENDCRAFT_TEST_TIER") == "fast"
_MESSAGE = ("the fast tier starts no process (no compile, no child): mark this test "
            "@pytest.mark.heavy (or the file with pytestmark = pytest.mark.heavy)")


class HeavyInFastTier(RuntimeError):
    """A test in the fast tier tried to start a process."""


def _refuse(*args, **kwargs):
    raise HeavyInFastTier(_MESSAGE)


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite tests/golden/ from the rule engine's current output (review the diff!)")


def _guarded(item):
    """Patch process creation away while a light test (and its fixtures) run in the fast tier."""
    if not _FAST or item.get_closest_marker("heavy") is not None:
        return None
    patch = pytest.MonkeyPatch()
    patch.setattr(subprocess.Popen, "__init__", _refuse)
    for name in ("fork", "posix_spawn", "posix_spawnp"):
        patch.setattr(os, name, _refuse)
    return patch


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    patch = _guarded(item)
    yield
    if patch:
        patch.undo()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    patch = _guarded(item)
    yield
    if patch:
        patch.undo()
