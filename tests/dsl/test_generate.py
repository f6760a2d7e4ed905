"""The program generator of the differential tests (issue 38): its programs are valid by
construction (the verifier accepts them and the interpreter runs them), one seed gives one
program, a recorded choice list replays it, and the minimiser finds a smallest failing list.
The differential check itself compiles C++: tests/lowering/test_difftest.py."""
from __future__ import annotations

import collections

from hypothesis import HealthCheck, given, settings, strategies as st

from ascendcraft_lab.backends.emulator.difftest import minimise
from ascendcraft_lab.dsl import DslError
from ascendcraft_lab.dsl.generate import FORMS, Draws, Replay, generate
from ascendcraft_lab.dsl.interp import run
from ascendcraft_lab.dsl.parser import parse
from ascendcraft_lab.dsl.verifier import verify


def _accepted(case) -> None:
    shapes = {n: a.shape for n, a in case.inputs.items()}
    try:
        program = verify(verify(parse(case.text, "gen.dsl.py")), shapes=shapes, scalars=case.scalars)
        outputs = run(program, {**case.inputs, **case.scalars})
    except DslError as e:
        raise AssertionError(f"a generated program is refused:\n{case.text}\n{e.render()}") from None
    assert set(outputs) >= {p.name for p in program.outputs}


def test_generated_programs_verify_and_run_on_the_interpreter():
    covered = collections.Counter()
    for i in range(120):
        case = generate(Draws(f"fast-{i}"))
        _accepted(case)
        covered.update(case.forms)
    assert all(covered[f] for f in FORMS), covered
    for feature in ("f16", "i32", "where", "row-reduction", "col-broadcast", "two-sweeps", "cube-f16", "cube-bf16",
                    "cube-transposed-b", "window-view", "window-row", "casts-bf16", "casts-i8"):
        assert covered[feature], (feature, covered)


class _HypothesisDraws(Draws):
    """The generator's choices drawn by hypothesis, so that it shrinks a failing program."""

    def __init__(self, data):
        super().__init__(0)
        self.data = data

    def _next(self, n: int) -> int:
        return self.data.draw(st.integers(0, n - 1))


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_every_program_hypothesis_draws_is_valid(data):
    _accepted(generate(_HypothesisDraws(data)))


def test_one_seed_one_program_and_a_replay_gives_it_again():
    a, b = Draws("same"), Draws("same")
    first, second = generate(a), generate(b)
    assert first.text == second.text and a.choices == b.choices
    again = generate(Replay(a.choices))
    assert again.text == first.text
    assert all((again.inputs[n] == first.inputs[n]).all() for n in first.inputs)


def test_the_simplest_program_is_all_zero_choices():
    case = generate(Replay([]))
    assert case.form == FORMS[0]
    _accepted(case)


def test_minimise_finds_a_smallest_failing_choice_list():
    def fails(cs):                # two choices of at least 4
        return sum(c >= 4 for c in cs) >= 2

    start = [0, 5, 2, 9, 1, 4, 7, 8, 3, 7]
    small = minimise(start, fails)
    assert small == [4, 4]
    assert minimise([1, 2, 3], fails) == [1, 2, 3]       # a list that does not fail stays as it is
