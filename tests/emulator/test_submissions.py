"""MultiKernelBench submissions checked on the CPU: `ascendcraft check SUBMISSION --ref REF.py`.

The six-string submission is the project's own export of the GELU example; the direct-launch one
(submissions/leaky_relu_direct/) is written in the style of MultiKernelBench's direct-launch
examples. Wrong variants change one line each. Objects are cached by content, so after the first
build of each format the variants rebuild only what they change.
"""
from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
import torch

from ascendcraft_lab.backends.emulator import mkb_protocol as mkb
from ascendcraft_lab.backends.emulator.submission import check_batch, check_submission, main

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

HERE = Path(__file__).parent / "submissions"
EXAMPLES = Path(__file__).resolve().parents[2] / "ascendcraft_lab" / "examples" / "activation"
GELU_REF = EXAMPLES / "gelu.py"
LEAKY_REF = HERE / "reference" / "leaky_relu.py"


def direct_submission(path: Path, replace: tuple[str, str, str] | None = None) -> Path:
    """The leaky_relu_direct folder as a direct-launch JSON; `replace` = (file, old, new) edits one file."""
    root = HERE / "leaky_relu_direct"
    sources = []
    for p in sorted(q for q in root.rglob("*") if q.is_file()):
        rel, text = p.relative_to(root).as_posix(), p.read_text()
        if replace and rel == replace[0]:
            assert replace[1] in text
            text = text.replace(replace[1], replace[2])
        sources.append({"path": rel, "content": text})
    spec = {"name": "leaky_relu_direct", "author": "acemu tests", "problem": "leaky_relu", "format_version": "0.1",
            "entry": {"model": "ModelNew.py::ModelNew"}, "build": {"type": "ascendc_direct_launch"}, "sources": sources}
    path.write_text(json.dumps(spec, indent=1))
    return path


@pytest.fixture(scope="module")
def gelu_six(tmp_path_factory) -> Path:
    from ascendcraft_lab.export.common import load_dsl_file
    from ascendcraft_lab.export.mkb import export_mkb, render_submission
    src = load_dsl_file(EXAMPLES / "gelu.dsl.py", reference=GELU_REF)
    out = tmp_path_factory.mktemp("six") / "gelu.py"
    out.write_text(render_submission(export_mkb(src), src))
    return out


def six_variant(gelu_six: Path, tmp_path: Path, field: str, old: str, new: str) -> tuple[Path, int]:
    """The GELU submission with one string edited, and the submission line of the edit."""
    text = gelu_six.read_text()
    node = next(n for n in ast.parse(text).body if isinstance(n, ast.Assign) and n.targets[0].id == field)
    value = node.value.value
    assert old in value
    line = node.value.lineno + value[: value.index(old)].count("\n")
    out = tmp_path / "gelu.py"
    out.write_text(text.replace(old, new, 1))
    return out, line


def test_an_exported_six_string_submission_verifies_end_to_end(gelu_six):
    v = check_submission(gelu_six, GELU_REF)
    assert v.status == "correct", v.summary()
    assert v.format == "six-string" and len(v.trials) == mkb.TRIALS
    assert all(t["ok"] and t["tolerance"] == 1e-4 for t in v.trials)
    assert v.anti_hack["passed"] and not v.findings


def test_a_direct_launch_submission_verifies_end_to_end(tmp_path):
    v = check_submission(direct_submission(tmp_path / "leaky.json"), LEAKY_REF)
    assert v.status == "correct", v.summary()
    assert v.format == "direct-launch" and v.problem == "leaky_relu"


def test_a_kernel_that_sets_and_waits_flags_itself_runs_in_the_extension_process(tmp_path):
    """SetFlag / WaitFlag feed the pipe-order model, which needs the SoC's memory sizes: inside a
    torch extension they come from the SoC the process emulates, not a runner spec."""
    edit = ("kernel/leaky_relu_kernel.cpp", "        AscendC::LeakyRelu(yl, xl, T(slope), n);\n",
            "        AscendC::LeakyRelu(yl, xl, T(slope), n);\n"
            "        AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);\n"
            "        AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);\n")
    v = check_submission(direct_submission(tmp_path / "leaky.json", edit), LEAKY_REF)
    assert v.status == "correct", v.summary()


def test_a_ragged_tail_copied_with_datacopy_is_rejected_and_located(tmp_path):
    # The last tile of each row (4093 floats) is not whole 32-B blocks; DataCopy drops its tail.
    edit = ("kernel/leaky_relu_kernel.cpp", "        if (whole) {\n            AscendC::DataCopy(yGm[off], yl, n);",
            "        if (true) {\n            AscendC::DataCopy(yGm[off], yl, n);")
    v = check_submission(direct_submission(tmp_path / "leaky.json", edit), LEAKY_REF)
    assert v.status == "incorrect", v.summary()
    kernel = (HERE / "leaky_relu_direct" / "kernel" / "leaky_relu_kernel.cpp").read_text().splitlines()
    line = next(i for i, ln in enumerate(kernel, 1) if "AscendC::DataCopy(yGm[off], yl, n);" in ln)
    expected = [("unaligned-datacopy", f"kernel/leaky_relu_kernel.cpp:{line}")]
    assert [(f["kind"], f["source"]) for f in v.findings] == expected


def test_a_six_string_kernel_reading_other_cores_rows_is_rejected_and_located(gelu_six, tmp_path):
    sub, line = six_variant(gelu_six, tmp_path, "kernel_src", "xGm[(r - rBegin) * tiling.N + cStart]",
                            "xGm[r * tiling.N + cStart]")
    v = check_submission(sub, GELU_REF)
    assert v.status == "incorrect", v.summary()
    oob = [f for f in v.findings if f["kind"] == "gm-out-of-bounds"]
    assert (oob and oob[0]["source"].startswith("kernel_src:")
            and oob[0]["source"].endswith(f"(submission line {line})")), v.summary()
    # the cores in the middle read past their SetGlobalBuffer length but inside x: a note, not a bug
    assert {n["kind"] for n in v.notes} == {"gm-beyond-buffer"}


def test_a_compile_error_points_at_the_submission_line(gelu_six, tmp_path):
    sub, line = six_variant(gelu_six, tmp_path, "kernel_src", "Mul(inner, inner, xu, cLen);", "Mul(inner, inner, xu);")
    v = check_submission(sub, GELU_REF)
    assert v.status == "compile-error", v.summary()
    assert v.diagnostics[0]["source"].endswith(f"(submission line {line})"), v.summary()


def test_pytorch_compute_in_model_new_is_rejected_by_the_anti_hack_rule(gelu_six, tmp_path):
    sub, line = six_variant(gelu_six, tmp_path, "model_src", "return custom_ops_lib.gelu_custom(x)",
                            "return custom_ops_lib.gelu_custom(x) * 1.0")
    v = check_submission(sub, GELU_REF)
    assert v.status == "rejected", v.summary()
    assert v.trials and all(t["ok"] for t in v.trials)  # the outputs match: the rule rejects it anyway
    assert [x["call"] for x in v.anti_hack["violations"]] == ["Mult"]


def test_a_folder_is_checked_submission_by_submission(gelu_six, tmp_path, capsys):
    folder = tmp_path / "subs"
    folder.mkdir()
    (folder / "gelu.py").write_text(gelu_six.read_text())
    direct_submission(folder / "leaky_relu.json")
    refs = tmp_path / "refs"
    refs.mkdir()
    for r in (GELU_REF, LEAKY_REF):
        (refs / r.name).write_text(r.read_text())
    assert main([str(folder), "--ref", str(refs), "-o", str(tmp_path / "verdicts.json")]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[-1] == "2/2 correct; "
    assert "2/2 submissions" in err
    assert [v["status"] for v in json.loads((tmp_path / "verdicts.json").read_text())] == ["correct", "correct"]


def test_a_batch_without_a_reference_says_so():
    (v,) = check_batch([HERE / "nowhere.json"], HERE / "reference", progress=False)
    assert v.status == "invalid" and "no reference" in v.message


# ---- MultiKernelBench's rules -------------------------------------------------------------------


def test_half_outputs_are_compared_at_1e_3():
    ref = torch.ones(4, dtype=torch.float16)
    assert mkb.compare(ref, ref + 5e-4).ok
    assert not mkb.compare(ref, ref + 4e-3).ok
    assert not mkb.compare(torch.ones(4), torch.ones(4) + 3e-4).ok


def test_a_shape_mismatch_fails_the_comparison():
    c = mkb.compare(torch.ones(2, 3), torch.ones(3, 2))
    assert not c.ok and "shape mismatch" in c.message


def test_the_anti_hack_rule_allows_allocation_and_the_extension():
    src = ("import torch\nimport custom_ops_lib\nclass ModelNew(torch.nn.Module):\n    def forward(self, x):\n"
           "        y = torch.empty_like(x)\n        return custom_ops_lib.op(x.contiguous(), y)\n")
    assert mkb.anti_hack(src).passed


def test_the_anti_hack_rule_finds_compute_in_helpers_forward_calls():
    src = ("import torch\nimport torch.nn.functional as F\ndef helper(x):\n    return F.relu(x)\n"
           "class ModelNew(torch.nn.Module):\n    def forward(self, x):\n"
           "        y = helper(x)\n        return y.sum()\n")
    found = mkb.anti_hack(src)
    assert not found.passed
    assert sorted((v.line, v.call) for v in found.violations) == [(4, "F.relu"), (8, "y.sum()")]


def test_direct_launch_build_lists_are_inferred_as_multikernelbench_infers_them(tmp_path):
    """Without build lists: the .cpp holding PYBIND11_MODULE is the binding, its module name the
    extension's, every other .cpp a kernel source."""
    from ascendcraft_lab.backends.emulator.submission_build import read_submission
    path = direct_submission(tmp_path / "s.json")
    spec = json.loads(path.read_text())
    for s in spec["sources"]:
        if s["path"] == "kernel/pybind11.cpp":
            s["path"] = "kernel/bind_ops.cpp"
            s["content"] = s["content"].replace("PYBIND11_MODULE(benchmark_ops", "PYBIND11_MODULE(leaky_ops")
    path.write_text(json.dumps(spec))
    sub = read_submission(path)
    assert sub.binding_sources == ["kernel/bind_ops.cpp"] and sub.module == "leaky_ops"
    assert "kernel/bind_ops.cpp" not in sub.kernel_sources and sub.kernel_sources
