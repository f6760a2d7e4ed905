"""An NPUKernelBench reference whose cases pass different constant arguments (approximate="none" in
some, "tanh" in others) gets one draft per value; the case a draft is traced from avoids size-1 axes."""
from __future__ import annotations

import numpy as np

from ascendcraft_lab.bench.worker import _trace_case, attribute_groups
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


def test_the_traced_case_is_one_without_size_1_axes_when_there_is_one():
    one_row = run(0, np.zeros((1, 64), np.float32), np.zeros(64, np.float32))
    rows = run(1, np.zeros((7, 128), np.float32), np.zeros(128, np.float32))
    assert _trace_case([one_row, rows]) is rows
