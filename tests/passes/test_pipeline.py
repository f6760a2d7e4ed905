"""The pass manager: diffs per pass, placeholders, source maps, edits and merges, session folders."""
import pytest
import json
import subprocess
import sys

from ascendcraft_lab.engines.rule import RuleEngine
from ascendcraft_lab.passes.manager import LowerOptions, run_pipeline
from ascendcraft_lab.passes.pipeline import PASS_NAMES
from ascendcraft_lab.session import Session

KERNEL = "kernel/gelu_kernel.cpp"


def test_four_passes_in_order_each_adding_something(gelu_steps):
    assert [s.spec.name for s in gelu_steps] == list(PASS_NAMES)
    for s in gelu_steps:
        assert s.diffs, f"pass {s.spec.name} changed nothing"


def test_placeholders_name_the_pass_that_fills_them(gelu_steps):
    host, init, compute, align = (s.bundle[KERNEL] for s in gelu_steps)
    assert "TODO(pass 2 init)" in host and "TODO(pass 3 compute)" in host
    assert "TODO(pass 2" not in init and "TODO(pass 3 compute)" in init
    assert "TODO(" not in compute and "TODO(" not in align
    assert "DataCopy(" in compute and "DataCopyPad" not in compute
    assert "DataCopyPad" in align


def test_source_map_points_compute_lines_at_their_dsl_lines(gelu_steps):
    final = gelu_steps[-1].bundle
    lines = final[KERNEL].splitlines()
    tanh_line = next(i for i, l in enumerate(lines, 1) if "Exp(" in l)
    assert final.dsl_line(KERNEL, tanh_line) == 18     # yu = 0.5 * xu * (1.0 + tanh(inner))
    include_line = next(i for i, l in enumerate(lines, 1) if l.startswith("#include"))
    assert final.dsl_line(KERNEL, include_line) == 0   # boilerplate


def test_edit_in_init_survives_compute_and_align(gelu):
    steps = run_pipeline(gelu, RuleEngine(), LowerOptions())
    init = steps[1].bundle
    edited = init.with_files({KERNEL: init[KERNEL].replace(
        "constexpr int32_t BUFFER_NUM = 2;", "constexpr int32_t BUFFER_NUM = 2;  // reviewed: keep double buffering")})
    again = run_pipeline(gelu, RuleEngine(), LowerOptions(), edits={"init": edited})
    assert again[1].edited
    for s in again[2:]:
        assert "// reviewed: keep double buffering" in s.bundle[KERNEL]
        assert not s.conflicts
    assert "DataCopyPad" in again[3].bundle[KERNEL]


def test_conflicting_edit_is_reported_with_both_sides(gelu):
    steps = run_pipeline(gelu, RuleEngine(), LowerOptions())
    compute = steps[2].bundle
    # The align pass rewrites this very line (DataCopy -> DataCopyPad): an edit there conflicts.
    text = compute[KERNEL]
    old = next(l for l in text.splitlines() if "DataCopy(xu" in l)
    edited = compute.with_files({KERNEL: text.replace(old, old.replace("DataCopy(", "DataCopy(/*mine*/ "))})
    again = run_pipeline(gelu, RuleEngine(), LowerOptions(), edits={"compute": edited})
    align = again[3]
    assert align.conflicts and align.failed
    c = align.conflicts[0]
    assert any("/*mine*/" in l for l in c.ours) and any("DataCopyPad" in l for l in c.theirs)
    assert "<<<<<<< your edit" in align.bundle[KERNEL] and "/*mine*/" in align.bundle[KERNEL]


@pytest.mark.heavy
def test_session_folder_resumes_edits_and_states(tmp_path, gelu_text):
    folder = tmp_path / "gelu"
    first = Session.open(folder, gelu_text, accept_all=True)
    manifest = json.loads((folder / "ascendcraft.json").read_text())
    assert [manifest["steps"][p]["status"] for p in PASS_NAMES] == ["accepted"] * 4
    assert (folder / "ascendc" / KERNEL).read_text() == first.final[KERNEL]
    init = first.steps[1].bundle
    mine = init[KERNEL].replace("TPipe pipe;", "TPipe pipe;  // mine")
    first.folder.save_edit("init", init.with_files({KERNEL: mine}))
    # A fresh process re-runs the lowering on the same folder: the edit is kept and merged on.
    code = ("from ascendcraft_lab.session import Session; "
            f"r = Session.resume({str(folder)!r}); "
            "print(r.step('init').status, '// mine' in r.final['kernel/gelu_kernel.cpp'])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["edited", "True"]
    again = json.loads((folder / "ascendcraft.json").read_text())
    assert again["steps"]["host"]["status"] == "accepted"   # unchanged steps keep their acceptance


@pytest.mark.heavy
def test_generated_kernel_compiles_without_warnings_and_matches_numpy(gelu, gelu_steps):
    import numpy as np
    from ascendcraft_lab.backends.emulator.verify import emulate
    x = np.random.default_rng(1).standard_normal((5, 1003)).astype(np.float32)
    run = emulate(gelu, gelu_steps[-1].bundle, {"x": x}, {})
    assert run.status == "ok", run.message
    assert [d for d in run.diagnostics if d["severity"] == "warning"] == []
    want = 0.5 * x * (1 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))
    np.testing.assert_allclose(run.outputs["y"], want, rtol=1e-4, atol=1e-5)
    assert run.block_dim == 5     # one row per core


def test_a_pass_the_engine_cannot_lower_fails_with_one_finding(tmp_path, gelu_text):
    # Ascend310P has no DataCopyPad: the align pass cannot handle a tail it cannot prove aligned.
    result = Session.open(tmp_path / "g310", gelu_text, soc="Ascend310P", accept_all=True)
    align = result.steps[-1]
    assert [s.spec.name for s in result.steps] == list(PASS_NAMES)
    assert align.status == "failed" and [f.kind for f in align.findings] == ["cannot-lower"]
    assert "Ascend310P has no DataCopyPad" in align.findings[0].message
    manifest = json.loads((tmp_path / "g310" / "ascendcraft.json").read_text())
    assert manifest["steps"]["align"]["status"] == "failed"
    assert not result.project_written and not (tmp_path / "g310" / "ascendc").exists()


CENTER_COLUMNS = '''"""x minus its column means: a compute of the means, then the next sweep's peeled first copy-in."""

@host
def tiling(x: Tensor[f32, (B, N)]):
    return Launch(1, tile=min(ub_elems(f32, live=4), N))

@kernel
def center(x: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):
    for c in tiles(N, t.tile):
        with copyin:
            xu = load(x[0, c])
        with compute:
            acc = xu
        for m in range(1, B):
            with copyin:
                xu = load(x[m, c])
            with compute:
                acc = acc + xu
        with compute:
            mean = acc / B
        with copyin:
            xu = load(x[0, c])
        with compute:
            yu = xu - mean
        with copyout:
            store(y[0, c], yu)
        for m in range(1, B):
            with copyin:
                xu = load(x[m, c])
            with compute:
                yu = xu - mean
            with copyout:
                store(y[m, c], yu)
'''


def test_a_stage_out_of_copyin_compute_copyout_order_starts_a_new_stage_group():
    import re

    from ascendcraft_lab.dsl.parser import parse
    from ascendcraft_lab.dsl.verifier import verify
    program = verify(parse(CENTER_COLUMNS, "center.dsl.py"))
    kernel = run_pipeline(program, RuleEngine(), LowerOptions())[-1].bundle["kernel/center_kernel.cpp"]
    methods = re.findall(r"__aicore__ inline void (\w+)\(", kernel)
    assert len(methods) == len(set(methods)), methods
    # `mean = acc / B` is a group of its own; the copy-in right after it opens the next one
    process = kernel[kernel.index("void Process"):kernel.index("private:")]
    calls = re.findall(r"(\w+)\(cStart|(\w+)\(cLen\)", process)
    order = [a or b for a, b in calls]
    assert order.index("ComputeMean") < order.index("CopyInXu", order.index("ComputeMean"))
    # stages that do the same share one method: the first row's load is the second sweep's
    assert order.count("CopyInXu") == 2 and methods.count("CopyInXu") == 1
