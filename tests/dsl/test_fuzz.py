"""Fuzz: token-level mutations of the examples end in a DslError (or a valid program), fast.

2,100 seeded mutants, each parsed, verified, checked against synthetic shapes and run on the
interpreter with a small loop budget. Any exception other than DslError, or a case that is still
running after HANG_CPU_S seconds of this process's CPU time, is a bug. The guard is a hang guard,
not a speed test: a mutant takes milliseconds, CPU time does not grow when the machine is loaded
(wall-clock time does: a 10 s wall-clock bound once failed on a busy machine), and only a loop the
interpreter's budget misses reaches it.
"""
from __future__ import annotations

import io
import random
import signal
import time
import tokenize
from contextlib import contextmanager

import pytest

from ascendcraft_lab.dsl import DslError, parse, verify
from ascendcraft_lab.dsl.interp import run
from ascendcraft_lab.examples import EXAMPLES

from dsl_helpers import synthetic_inputs

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

CASES_PER_EXAMPLE = 150          # x 14 examples = 2,100 mutants
HANG_CPU_S = 120
POOL = ["load", "store", "tiles", "core_rows", "core_chunk", "range", "windows", "copyin", "compute", "copyout",
        "exp", "reduce_sum", "where", "cast", "last", "window_max", "cumsum", "f16", "i32", "bool", "inf", "Launch",
        "Tiling", "GM", "Out", "t", "c", "r", "xu", "yu", "N", "B", "x", "y", "ub_elems", "cdiv", "VECTOR_CORES",
        "0", "1", "-1", "2.5", "1e30", "65536", "10**9", "0.0", "True", "None", "'s'",
        "+", "-", "*", "/", "//", "%", "**", "<", ">", "==", "!=", "=", "(", ")", "[", "]", ",", ":", ".",
        "for", "in", "with", "if", "else", "while", "lambda", "import", "return", "def", "not", "and", "@"]


def _tokens(text):
    return [(t.type, t.string) for t in tokenize.generate_tokens(io.StringIO(text).readline)]


def mutate(text: str, rnd: random.Random) -> str:
    toks = _tokens(text)
    for _ in range(rnd.choice([1, 1, 2, 3])):
        i = rnd.randrange(len(toks))
        kind = rnd.randrange(5)
        if kind == 0:
            del toks[i]
        elif kind == 1:
            toks.insert(i, toks[i])
        elif kind == 2 and i + 1 < len(toks):
            toks[i], toks[i + 1] = toks[i + 1], toks[i]
        elif kind == 3:
            toks[i] = (tokenize.OP, rnd.choice(POOL))
        else:
            nums = [j for j, t in enumerate(toks) if t[0] == tokenize.NUMBER]
            if nums:
                j = rnd.choice(nums)
                toks[j] = (tokenize.NUMBER, rnd.choice(["0", "1", "3", "7", "100000", "2147483648", "0.5", "1e-30"]))
    try:
        return tokenize.untokenize(toks)
    except Exception:          # an untokenizable token stream: fall back to joining
        return " ".join(s for _, s in toks)


def _exercise(text: str) -> None:
    program = parse(text, "mutant.dsl.py")
    typed = verify(program)
    inputs, scalars = synthetic_inputs(typed)
    shapes = {k: v.shape for k, v in inputs.items() if hasattr(v, "shape")}
    verify(program, shapes=shapes, scalars=scalars)
    run(typed, inputs, max_iterations=5_000)


class Hang(BaseException):
    """A mutant still running after HANG_CPU_S seconds of CPU time (a BaseException: no `except Exception` eats it)."""


@contextmanager
def cpu_time_limit(seconds: float):
    """Raise Hang in the body once this process has used `seconds` of CPU time (ITIMER_PROF)."""
    def expire(signum, frame):
        raise Hang(f"still running after {seconds:g} s of CPU time")
    previous = signal.signal(signal.SIGPROF, expire)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda e: e.name)
def test_mutants_end_in_dsl_error_or_run_without_hanging(ex):
    text = ex.dsl.read_text()
    rnd = random.Random(f"fuzz-{ex.name}")
    outcomes = {"ok": 0, "error": 0}
    for case in range(CASES_PER_EXAMPLE):
        mutant = mutate(text, rnd)
        try:
            with cpu_time_limit(HANG_CPU_S):
                _exercise(mutant)
            outcomes["ok"] += 1
        except Hang as e:
            pytest.fail(f"mutant {case} of {ex.name} hangs: {e}\n--- mutant ---\n{mutant}")
        except DslError as e:
            outcomes["error"] += 1
            assert e.message and e.render().startswith("error: ")
        except Exception as e:  # pragma: no cover - the failure message is the point
            pytest.fail(f"mutant {case} of {ex.name} raised {type(e).__name__}: {e}\n--- mutant ---\n{mutant}")
    assert outcomes["error"] > CASES_PER_EXAMPLE // 3   # the mutations do break things


def test_the_hang_guard_counts_cpu_time_not_waiting():
    # a loaded machine stretches wall-clock time, not the CPU time this process uses
    with cpu_time_limit(0.2):
        time.sleep(0.5)
    with pytest.raises(Hang):
        with cpu_time_limit(0.2):
            while True:
                pass
