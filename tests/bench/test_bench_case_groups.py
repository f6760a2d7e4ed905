"""An NPUKernelBench reference whose cases pass different constant arguments (approximate="none" in
some, "tanh" in others; normalized_shape=[4] or [3, 4]; a `dim` the draft reads as a constant) gets
one draft per value."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ascendcraft_lab import examples
from ascendcraft_lab.bench.worker import SplitByConstants, attribute_groups
from ascendcraft_lab.dsl.parser import parse
from ascendcraft_lab.reference import ReferenceError, ReferenceRun


def run(case, *inputs):
    dtypes = [str(v.dtype) if isinstance(v, np.ndarray) else None for v in inputs]
    return ReferenceRun("ref.py", list(inputs), [], [np.zeros(1, np.float32)], input_dtypes=dtypes, case=case)


def test_cases_are_grouped_by_their_string_and_bool_arguments_in_order_of_first_appearance():
    x = np.zeros((4, 8), np.float32)
    cases = [run(0, x, "none", 0.5), run(1, x, "tanh", 0.5), run(2, x, "none", 2.0), run(3, x, "tanh", 1.0)]
    assert attribute_groups(cases) == [(((1, "none"),), [0, 2]), (((1, "tanh"),), [1, 3])]


def test_numbers_vary_within_one_group_and_a_failed_case_joins_the_first():
    x = np.zeros((4, 8), np.float32)
    cases = [run(0, x, 0.1), ReferenceError("boom", "ref.py", None, "case 1"), run(2, x, 0.2)]
    assert attribute_groups(cases) == [((), [0, 1, 2])]



def test_lists_of_numbers_are_constants_of_a_draft_and_group_as_tuples_but_tensor_lists_do_not():
    x = np.zeros((2, 3, 4), np.float32)
    cases = [run(0, x, [4]), run(1, x, [3, 4]), run(2, x, [4]), run(3, [x, x], 0.5)]
    assert attribute_groups(cases) == [(((1, (4,)),), [0, 2]), (((1, (3, 4)),), [1]), ((), [3])]


def named(case, names, *inputs):
    r = run(case, *inputs)
    r.forward_args = list(names)
    return r


def test_a_number_the_draft_took_as_a_constant_splits_its_group_by_value_one_it_takes_as_a_scalar_does_not():
    program = parse(Path(examples.__file__).with_name("normalization").joinpath("rms_norm.dsl.py").read_text())
    x, x1 = np.zeros((4, 8), np.float32), np.zeros(8, np.float32)
    names = ("x", "dim", "eps")
    cases = [named(0, names, x, -1, 1e-5), ReferenceError("boom", "ref.py", None, "case 1"),
             named(2, names, x, 0, 1e-6), named(3, names, x, -1, 1e-6), named(4, names, x1, 0, 1e-6)]
    split = SplitByConstants.of(program, cases, cases[0])      # `eps` binds to the kernel's scalar, `dim` to none
    # and by rank: dim=0 is the first axis of a 2-d case, the last of a 1-d one
    assert split.groups == [(((1, -1), ("ranks", (2,))), [0, 1, 3]), (((1, 0), ("ranks", (2,))), [2]),
                            (((1, 0), ("ranks", (1,))), [4])]
    assert "argument 2" in str(split)
    same_dim = [named(0, names, x, -1, 1e-5), named(1, names, x, -1, 1e-6)]
    assert SplitByConstants.of(program, same_dim, same_dim[0]) is None
