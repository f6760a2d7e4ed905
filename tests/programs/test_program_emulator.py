"""Programs of kernels lowered and run on the emulator: the host code builds warning-free with g++,
every launch runs in order and matches the interpreter's, the outputs match PyTorch, and a wrong
kernel is named with its line."""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft_lab.backends.emulator.program import build_host, check_program_emulator
from ascendcraft_lab.dsl.dtypes import DType
from ascendcraft_lab.dsl.program import parse_any
from ascendcraft_lab.dsl.program_check import verify_multi
from ascendcraft_lab.engines.rule import RuleEngine
from ascendcraft_lab.examples import PROGRAM_EXAMPLES
from ascendcraft_lab.passes.program import lower_multi, program_path
from ascendcraft_lab.reference import load_reference
from ascendcraft_lab.reference.load import ReferenceRun

from .conftest import CHAIN

pytestmark = pytest.mark.heavy

CASES = [(ex, shape) for ex in PROGRAM_EXAMPLES for shape in ("reference", "tail")]


@pytest.mark.parametrize("ex,shape", CASES, ids=[f"{e.name}-{s}" for e, s in CASES])
def test_program_example_matches_pytorch_on_the_emulator(ex, shape):
    mp = verify_multi(parse_any(ex.dsl.read_text(), str(ex.dsl)))
    lowering = lower_multi(mp, RuleEngine())
    assert lowering.failed == []
    ref = load_reference(ex.reference, overrides=ex.tail_overrides if shape == "tail" else None)
    check = check_program_emulator(mp, lowering.bundle, ref)
    assert check.verdict.correct, check.verdict.message
    assert check.wrong_launch == ""
    assert "its host code, run whole on the emulator, gives the same outputs" in check.verdict.message
    assert len(check.emulated.trace) == len(check.interpreted.trace) >= 3


def _chain_reference(x: np.ndarray) -> ReferenceRun:
    f32 = DType.f32.torch_name
    return ReferenceRun("chain.py", [x], [], [3 * x], input_dtypes=[f32], output_dtypes=[f32])


def test_the_program_host_code_builds_warning_free_and_a_broken_one_does_not():
    mp = verify_multi(parse_any(CHAIN, "chain.dsl.py"))
    lowering = lower_multi(mp, RuleEngine())
    assert build_host(lowering.bundle, mp) == []
    path = program_path(mp)
    broken = lowering.bundle.with_files({path: lowering.bundle[path].replace("DeviceMemory gm;", "int unused; "
                                                                             "DeviceMemory gm;")})
    errors = build_host(broken, mp)
    assert errors and "unused" in errors[0]


def test_a_kernel_that_computes_wrongly_is_named_with_its_line():
    mp = verify_multi(parse_any(CHAIN, "chain.dsl.py"))
    lowering = lower_multi(mp, RuleEngine())
    kernel = "twice/kernel/twice_kernel.cpp"
    project = lowering.bundle
    assert "2.0f" in project[kernel]
    wrong = project.with_files({kernel: project[kernel].replace("2.0f", "2.5f")})
    x = np.random.default_rng(0).standard_normal((6, 70)).astype(np.float32)
    check = check_program_emulator(mp, wrong, _chain_reference(x))
    assert not check.verdict.correct
    line = next(i for i, t in enumerate(CHAIN.splitlines(), 1) if "twice(x, h)" in t)
    assert f"the launch of `twice` (line {line}) writes `h`" in check.verdict.message


def test_the_host_code_runs_whole_on_the_emulator_and_a_wrong_launch_in_it_is_caught():
    mp = verify_multi(parse_any(CHAIN, "chain.dsl.py"))
    project = lower_multi(mp, RuleEngine()).bundle
    x = np.random.default_rng(3).standard_normal((5, 90)).astype(np.float32)
    good = check_program_emulator(mp, project, _chain_reference(x))
    assert good.verdict.correct and "run whole on the emulator, gives the same outputs" in good.verdict.message
    path = program_path(mp)
    assert "LaunchAdd(blockDim1, stream, h, x, y," in project[path]
    wrong = project.with_files({path: project[path].replace("LaunchAdd(blockDim1, stream, h, x, y,",
                                                            "LaunchAdd(blockDim1, stream, x, x, y,")})
    bad = check_program_emulator(mp, wrong, _chain_reference(x))
    assert not bad.verdict.correct
    assert "run whole, writes `y` differently from its launches run one by one" in bad.verdict.message


def test_a_launch_the_emulator_cannot_run_is_named_with_its_kernel_and_line():
    mp = verify_multi(parse_any(CHAIN, "chain.dsl.py"))
    project = lower_multi(mp, RuleEngine()).bundle
    kernel = "add/kernel/add_kernel.cpp"
    broken = project.with_files({kernel: project[kernel].replace("Add(yu, au, bu,", "AddNotAnApi(yu, au, bu,")})
    assert broken[kernel] != project[kernel]
    x = np.random.default_rng(4).standard_normal((3, 40)).astype(np.float32)
    check = check_program_emulator(mp, broken, _chain_reference(x))
    line = next(i for i, t in enumerate(CHAIN.splitlines(), 1) if "add(h, x, y)" in t)
    assert not check.verdict.correct
    assert f"the launch of `add` (line {line}) on the emulator: compile-error" in check.verdict.message
