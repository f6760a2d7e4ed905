"""The expert examples: two per category (the paper's seven and issue 17's broadcast), each matching
PyTorch at its own and at its tail shape."""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft_lab.reference.bind import check_interpreter
from ascendcraft_lab.examples import CATEGORIES, EXAMPLES, get_example
from ascendcraft_lab.reference import ReferenceRun
from ascendcraft_lab.soc import get_soc

CATEGORY_ORDER = ("activation", "normalization", "optimizer", "reduce", "pooling", "math", "loss", "matmul",
                  "mhc", "broadcast", "index", "resize", "layout", "sort", "datadep")


def test_catalog_has_at_least_two_examples_in_each_category():
    assert CATEGORIES == CATEGORY_ORDER
    for cat in CATEGORY_ORDER:
        assert len([e for e in EXAMPLES if e.category == cat]) >= 2


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda e: e.name)
def test_each_example_has_a_reference_beside_its_dsl_file(ex):
    assert ex.reference.is_file() and ex.dsl.is_file()
    assert ex.dsl.name == ex.reference.name.replace(".py", ".dsl.py")
    text = ex.reference.read_text()
    for part in ("class Model(nn.Module)", "def get_inputs()", "def get_init_inputs()"):
        assert part in text


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda e: e.name)
def test_tail_shape_is_not_a_multiple_of_32_bytes(ex):
    sizes = []
    for v in ex.tail_overrides.values():
        sizes += list(v) if isinstance(v, tuple) else [v]
    assert any(isinstance(v, int) and v % 8 for v in sizes), "some f32 size must not fill whole 32-byte blocks"


@pytest.mark.heavy
@pytest.mark.parametrize("shape", ["own", "tail"])
@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda e: e.name)
def test_example_matches_pytorch_on_the_interpreter(ex, shape, reference_runs):
    ref = reference_runs[(ex.op, shape)]
    assert isinstance(ref, ReferenceRun), str(ref)
    verdict = check_interpreter(ex.dsl, ex.reference, reference=ref)
    assert verdict.correct, verdict.summary()
    # f32 (beside exact integer outputs such as sort indices), or an example in f16
    tol = 1e-4 if all(o.dtype == np.float32 or o.dtype.kind in "iu" for o in ref.outputs) else 1e-2
    assert verdict.rtol == verdict.atol == tol
    assert verdict.ub_peak <= get_soc().ub_usable        # the whole UB plan fits Ascend910B2


@pytest.mark.heavy
def test_tail_shapes_use_several_tiles_with_a_short_last_one(reference_runs):
    """cumsum's tail is the case the carry exists for: a row longer than one tile."""
    from ascendcraft_lab.dsl import parse, verify
    from ascendcraft_lab.dsl.host import evaluate_host
    ex = get_example("cumsum")
    ref = reference_runs[("cumsum", "tail")]
    program = verify(parse(ex.dsl.read_text(), str(ex.dsl)))
    launch = evaluate_host(program, {"x": ref.inputs[0].shape})
    n = ref.inputs[0].shape[1]
    assert n > 2 * launch["tile"] and n % launch["tile"] != 0


# outputs that are not float32: the f16 cube example, and the sorts' values beside their int64 indices
OUTPUT_DTYPES = {"batched_matmul_bt": (np.float16,), "topk": (np.float32, np.int64),
                 "sort_stable": (np.float16, np.int64)}


@pytest.mark.heavy
def test_reference_outputs_are_float32_arrays_but_for_the_f16_cube_example_and_the_sort_indices(reference_runs):
    for key, ref in reference_runs.items():
        want = OUTPUT_DTYPES.get(key[0], (np.float32,) * len(ref.outputs))
        assert all(isinstance(o, np.ndarray) for o in ref.outputs), key
        assert tuple(o.dtype for o in ref.outputs) == want, key
