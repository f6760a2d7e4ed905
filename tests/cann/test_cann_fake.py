"""The Python mirror of the custom op: same schema as the generated binding, fake shapes checked
by torch.library.opcheck against the DSL interpreter on CPU."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from ascendcraft_lab.backends.cann.fake import check_binding_schema, check_fake, register_fake_op  # noqa: E402
from ascendcraft_lab.backends.cann.signature import OpSignature, bind_op_args  # noqa: E402
from ascendcraft_lab.session import load_dsl  # noqa: E402
from ascendcraft_lab.session import SessionFolder  # noqa: E402


@pytest.fixture(scope="module")
def gelu(gelu_session):
    s = SessionFolder(gelu_session)
    return load_dsl(s.dsl_path().read_text(), str(s.dsl_path()), "Ascend910B2"), s.read_stage("align")


@pytest.mark.heavy
def test_the_python_schema_is_the_generated_bindings(gelu):
    program, bundle = gelu
    assert OpSignature.of(program).schema() == "gelu(Tensor x) -> Tensor"
    assert check_binding_schema(program, bundle["torch/gelu_torch.cpp"]) is None
    edited = bundle["torch/gelu_torch.cpp"].replace('m.def("gelu(Tensor x)', 'm.def("gelu(Tensor x, float a)')
    assert "the DSL gives `gelu(Tensor x) -> Tensor`" in check_binding_schema(program, edited)


@pytest.mark.heavy
def test_opcheck_passes_and_meta_tensors_get_the_dsl_output_shape(gelu):
    program, _ = gelu
    result = check_fake(program, [torch.randn(3, 100)])
    assert set(result["opcheck"].values()) == {"SUCCESS"}
    assert result["meta_shapes"] == [(3, 100)] and result["meta_dtypes"] == ["torch.float32"]


@pytest.mark.heavy
def test_a_fake_kernel_that_disagrees_with_the_dsl_is_caught(gelu, monkeypatch):
    program, _ = gelu
    wrong = OpSignature.output_shapes

    def transposed(self, *a, **k):
        return {n: tuple(reversed(s)) for n, s in wrong(self, *a, **k).items()}
    monkeypatch.setattr(OpSignature, "output_shapes", transposed)
    fop = register_fake_op(program, namespace="ascendcraft_fake_wrong")
    with pytest.raises(Exception):
        torch.library.opcheck(fop.op, (torch.randn(3, 100),), test_utils=("test_faketensor",))


def test_scalars_and_several_outputs_follow_the_binding_order():
    examples = pytest.importorskip("ascendcraft_lab.examples")
    e = examples.get_example("sgd")
    program = load_dsl(e.dsl.read_text(), str(e.dsl), "Ascend910B2")
    sig = OpSignature.of(program)
    assert sig.schema() == "sgd(Tensor p, Tensor g, Tensor buf, float lr, float momentum) -> (Tensor, Tensor)"
    p, g, b = (torch.randn(100) for _ in range(3))
    result = check_fake(program, [p, g, b, 0.1, 0.9], full=False)
    assert set(result["opcheck"].values()) == {"SUCCESS"}
    assert result["meta_shapes"] == [(100,), (100,)]
    # sgd's scalars come from get_init_inputs(); a forward scalar would come first (dsl/check.py)
    assert bind_op_args([p, g, b], [0.01, 0.9], [], 2) == [p, g, b, 0.01, 0.9]
    assert bind_op_args([p, 0.5, g, b], [0.01, 0.9], [], 2) == [p, g, b, 0.5, 0.01]
