"""A dtype-generic kernel is one project: the first variant's binding hands every other dtype to its variant."""
from __future__ import annotations

from ascendcraft_lab.dsl.generic import instantiate
from ascendcraft_lab.dsl.parser import parse
from ascendcraft_lab.dsl.verifier import verify
from ascendcraft_lab.engines.rule import render
from ascendcraft_lab.passes.spec import LowerOptions
from ascendcraft_lab.passes.variants import variant_files, variant_program

from case_helpers import RELU_DSL


def _binding(program) -> str:
    return render(verify(program), LowerOptions(), 4).files[f"torch/{program.kernel.name}_torch.cpp"]


def test_the_first_variants_binding_dispatches_the_other_dtypes_to_their_variants():
    text = _binding(instantiate(parse(RELU_DSL, "relu.dsl.py")))
    assert "if (x.scalar_type() == at::kHalf) return relu_f16_npu(x);" in text
    assert "if (x.scalar_type() == at::kBFloat16) return relu_bf16_npu(x);" in text
    # the shapes-only function too: a half input gives a half output
    assert "if (x.scalar_type() == at::kHalf) return relu_f16_meta(x);" in text


def test_a_variants_own_binding_dispatches_nothing():
    generic = parse(RELU_DSL, "relu.dsl.py")
    f16 = variant_program(generic, {"T": generic.generics[0][1][1]})
    text = _binding(f16)
    assert "relu_f16_npu(const at::Tensor &x)" in text and "scalar_type() == at::kHalf) return" not in text


def test_an_empty_output_returns_before_the_launch():
    text = _binding(instantiate(parse(RELU_DSL, "relu.dsl.py")))
    assert text.index("if (y.numel() == 0) return y;") < text.index("LaunchRelu(blockDim")


def test_every_other_variant_is_lowered_under_variants_of_the_project():
    files = variant_files(parse(RELU_DSL, "relu.dsl.py"), LowerOptions())
    assert sorted(files) == ["bf16", "f16"]
    assert "variants/f16/kernel/relu_f16_kernel.cpp" in files["f16"].files
    assert not any(p.endswith("CMakeLists.txt") for p in files["f16"].files)   # the first variant's builds it
