"""An NPUKernelBench reference whose cases pass different constant arguments (approximate="none" in
some, "tanh" in others) gets one draft per value."""
from __future__ import annotations

import numpy as np

from ascendcraft_lab.bench.worker import attribute_groups
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



def test_int_and_list_arguments_shape_the_kernel_and_get_a_draft_each():
    # a permutation `dims` or an axis `dim` decides the loops: one draft per value, lists as tuples
    x = np.zeros((4, 8, 2), np.float32)
    cases = [run(0, x, [1, 0, 2]), run(1, x, [2, 0, 1]), run(2, x, [1, 0, 2]), run(3, x, (2, 0, 1))]
    ranks = ("ranks", (3,))
    assert attribute_groups(cases) == [(((1, (1, 0, 2)), ranks), [0, 2]), (((1, (2, 0, 1)), ranks), [1, 3])]


def test_an_int_argument_groups_the_cases_by_rank_too():
    # dim=1 of a 2-D tensor and of a 3-D one are different loops
    cases = [run(0, np.zeros((4, 8), np.float32), 1), run(1, np.zeros((4, 8, 2), np.float32), 1)]
    assert [members for _, members in attribute_groups(cases)] == [[0], [1]]
