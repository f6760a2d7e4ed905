"""Fuzz: token-level mutations of the examples end in a DslError (or a valid program), fast.

2,100 seeded mutants, each parsed, verified, checked against synthetic shapes and run on the
interpreter with a small loop budget. Any exception other than DslError, or a case that does not
end within HANG_S seconds (a hang, not a speed: a mutant takes milliseconds on a quiet machine and the
bound leaves room for a loaded one), is a bug.
"""
from __future__ import annotations

import io
import random
import time
import tokenize

import pytest

from ascendcraft_lab.dsl import DslError, parse, verify
from ascendcraft_lab.dsl.interp import run
from ascendcraft_lab.examples import EXAMPLES

from dsl_helpers import synthetic_inputs

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

CASES_PER_EXAMPLE = 150          # x 14 examples = 2,100 mutants
HANG_S = 10.0
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


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda e: e.name)
def test_mutants_end_in_dsl_error_or_run_without_hanging(ex):
    text = ex.dsl.read_text()
    rnd = random.Random(f"fuzz-{ex.name}")
    outcomes = {"ok": 0, "error": 0}
    for case in range(CASES_PER_EXAMPLE):
        mutant = mutate(text, rnd)
        start = time.perf_counter()
        try:
            _exercise(mutant)
            outcomes["ok"] += 1
        except DslError as e:
            outcomes["error"] += 1
            assert e.message and e.render().startswith("error: ")
        except Exception as e:  # pragma: no cover - the failure message is the point
            pytest.fail(f"mutant {case} of {ex.name} raised {type(e).__name__}: {e}\n--- mutant ---\n{mutant}")
        elapsed = time.perf_counter() - start
        assert elapsed < HANG_S, f"mutant {case} of {ex.name} took {elapsed:.2f}s\n{mutant}"
    assert outcomes["error"] > CASES_PER_EXAMPLE // 3   # the mutations do break things
