"""`check`: binding kernel parameters to a reference run, the verdict, and the command's exit codes."""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft_lab.dsl import DslError, parse
from ascendcraft_lab.cli.check import main as check_main
from ascendcraft_lab.reference.bind import bind, check_interpreter, compare
from ascendcraft_lab.dsl.ir import DType
from ascendcraft_lab.examples import get_example
from ascendcraft_lab.reference import ReferenceRun

GELU = get_example("gelu")


def fake_run(inputs, outputs, init=(), params=None, **kw) -> ReferenceRun:
    return ReferenceRun("ref.py", list(inputs), list(init), [np.asarray(o) for o in outputs], params or {}, {},
                        input_dtypes=[getattr(v, "dtype", None) and str(v.dtype) for v in inputs],
                        output_dtypes=[str(np.asarray(o).dtype) for o in outputs], **kw)


def test_parameters_bind_by_role_and_order():
    p = parse(get_example("adam").dsl.read_text())
    arrays = [np.zeros(16, np.float32) + i for i in range(4)]
    ref = fake_run(arrays + [10], [np.zeros(16, np.float32)] * 3, init=[1e-3, 0.9, 0.999, 1e-8])
    inputs, expected = bind(p, ref)
    assert [inputs[n][0] for n in ("p", "g", "m", "v")] == [0, 1, 2, 3]
    assert (inputs["step"], inputs["lr"], inputs["eps"]) == (10, 1e-3, 1e-8)
    assert list(expected) == ["p_out", "m_out", "v_out"]


def test_model_parameters_bind_by_name():
    p = parse(get_example("layer_norm").dsl.read_text())
    w, b = np.ones(8, np.float32), np.zeros(8, np.float32)
    ref = fake_run([np.zeros((2, 8), np.float32)], [np.zeros((2, 8), np.float32)], init=[[8]],
                   params={"ln.weight": w, "ln.bias": b})
    inputs, _ = bind(p, ref)
    assert inputs["w"] is w and inputs["b"] is b


def test_a_kernel_may_declare_a_prefix_of_the_scalars():
    p = parse(get_example("avg_pool1d").dsl.read_text())
    ref = fake_run([np.zeros((2, 3, 16), np.float32)], [np.zeros((2, 3, 4), np.float32)], init=[4, 4, 0])
    inputs, _ = bind(p, ref)
    assert (inputs["k"], inputs["s"]) == (4, 4) and "padding" not in inputs


@pytest.mark.parametrize("ref, words", [
    (fake_run([np.zeros((2, 8), np.float32)] * 2, [np.zeros((2, 8), np.float32)]),
     "declares 1 input tensors but get_inputs() gives 2"),
    (fake_run([np.zeros((2, 8), np.float16)], [np.zeros((2, 8), np.float32)]),
     "`x` is declared f32 but reference input 0 is float16"),
    (fake_run([np.zeros((2, 8), np.float32)], [np.zeros((2, 9), np.float32)]),
     "output `y` has shape (2, 8) here but forward returns (2, 9)"),
    (fake_run([np.zeros((2, 8, 1), np.float32)], [np.zeros((2, 8), np.float32)]),
     "`x` is declared with 2 dims (B, N) but the reference tensor has 3"),
])
def test_binding_mismatches_are_dsl_errors_at_the_declaration(ref, words):
    with pytest.raises(DslError) as e:
        bind(parse(GELU.dsl.read_text()), ref)
    assert words in e.value.message and e.value.line > 0


def test_tolerance_depends_on_the_output_dtype():
    want = np.ones(4, np.float32)
    assert compare("y", want + 5e-5, want, DType.f32, None, None).correct
    assert not compare("y", want + 5e-4, want, DType.f32, None, None).correct
    assert compare("y", want + 5e-3, want, DType.f16, None, None).correct
    assert compare("y", want + 5e-3, want, DType.f16, None, None).rtol == 1e-2


def test_nan_where_a_number_was_expected_is_a_mismatch():
    c = compare("y", np.array([np.nan, 1.0]), np.array([1.0, 1.0]), DType.f32, None, None)
    assert not c.correct and c.mismatches == 1 and c.max_abs_err == float("inf")


def test_unstored_elements_make_the_verdict_incorrect(tmp_path):
    text = GELU.dsl.read_text().replace("core_rows(t.rows, B)", "core_rows(t.rows, B - 1)")
    ref = fake_run([np.zeros((4, 16), np.float32)], [np.zeros((4, 16), np.float32)])
    verdict = check_interpreter(text, "ref.py", reference=ref)
    assert not verdict.correct
    assert "16 elements of `y` are never stored" in verdict.message


@pytest.mark.heavy
def test_check_command_exit_codes(tmp_path, capsys):
    # 0: correct, printing the errors and the tolerance used (on a small tail-like shape)
    assert check_main([str(GELU.dsl), "--ref", str(GELU.reference), "--override", "dim=1003",
                       "--override", "batch_size=3", "--backend", "interpreter"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("correct: `gelu` matches gelu.py") and "max abs err" in out and "rtol 0.0001" in out
    # 1: incorrect
    wrong = tmp_path / "wrong.dsl.py"
    wrong.write_text(GELU.dsl.read_text().replace("yu = 0.5 * xu", "yu = 0.6 * xu"))
    assert check_main([str(wrong), "--ref", str(GELU.reference), "--override", "dim=100",
                       "--override", "batch_size=2", "--backend", "interpreter"]) == 1
    assert capsys.readouterr().out.startswith("incorrect: `y` differs at")
    # 2: a DslError, printed in the diagnostic format, no traceback
    bad = tmp_path / "bad.dsl.py"
    bad.write_text(GELU.dsl.read_text().replace("tanh(inner)", "tanhh(inner)"))
    assert check_main([str(bad), "--ref", str(GELU.reference), "--backend", "interpreter"]) == 2
    out = capsys.readouterr().err      # errors go to stderr
    assert out.startswith("error: `tanhh` is not a DSL operation\n --> ") and "= help: did you mean `tanh`?" in out
    # 2: a ReferenceError
    assert check_main([str(GELU.dsl), "--ref", str(tmp_path / "nowhere.py"), "--backend", "interpreter"]) == 2
    assert capsys.readouterr().err.startswith("error: reference nowhere.py does not exist")
    # 2: usage errors
    assert check_main([str(GELU.dsl), "--ref", str(GELU.reference), "--soc", "Ascend999",
                       "--backend", "interpreter"]) == 2
    assert "unknown SoC" in capsys.readouterr().err


@pytest.mark.heavy
def test_check_command_accepts_a_session_folder(tmp_path, capsys):
    session = tmp_path / "gelu"
    session.mkdir()
    (session / "kernel.dsl.py").write_text(GELU.dsl.read_text())
    (session / "reference.py").write_text(GELU.reference.read_text().replace("dim = 16384", "dim = 300"))
    assert check_main([str(session), "--backend", "interpreter"]) == 0
    assert capsys.readouterr().out.startswith("correct: `gelu` matches reference.py")
