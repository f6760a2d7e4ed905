"""The NPUKernelBench-format expert examples: every case passes on the emulator, every variant builds warning-free."""
from __future__ import annotations

import pytest

from ascendcraft_lab.backends.emulator.runner import compile_sources
from ascendcraft_lab.dsl.generic import variants
from ascendcraft_lab.dsl.parser import parse
from ascendcraft_lab.dsl.verifier import verify
from ascendcraft_lab.engines.rule import render
from ascendcraft_lab.examples import CASE_EXAMPLES
from ascendcraft_lab.passes.spec import LowerOptions
from ascendcraft_lab.passes.variants import variant_program
from ascendcraft_lab.reference import load_cases
from ascendcraft_lab.session import check_cases

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy


@pytest.mark.parametrize("ex", CASE_EXAMPLES, ids=[e.name for e in CASE_EXAMPLES])
def test_every_case_of_the_example_passes_and_float32_under_both_rules(ex):
    """Every case under the dtype-aware rule; float32 cases under MultiKernelBench's atol=rtol=1e-4
    too (a half-type result one rounding away from PyTorch's is below that rule's resolution)."""
    report = check_cases(parse(ex.dsl.read_text(), ex.dsl.name), load_cases(ex.reference))
    assert report.correct, report.summary()
    per_dtype = report.per_dtype()
    assert per_dtype["float32"]["mkb"] == per_dtype["float32"]["cases"], report.summary()
    assert len(per_dtype) >= 3          # it is an example over many dtypes


@pytest.mark.parametrize("ex", CASE_EXAMPLES, ids=[e.name for e in CASE_EXAMPLES])
def test_every_variant_of_the_example_builds_with_werror(ex, tmp_path):
    generic = parse(ex.dsl.read_text(), ex.dsl.name)
    for binding in variants(generic):
        program = verify(variant_program(generic, binding))
        root = tmp_path / "_".join(d.value for d in binding.values())
        files = render(program, LowerOptions(), 4).files
        for path, text in files.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text)
        kernel = next(root / p for p in files if p.startswith("kernel/"))
        result = compile_sources([kernel], include_dirs=[root / "host"], extra_flags=("-Werror",))
        assert not result.errors, "\n".join(d["message"] for d in result.errors)
