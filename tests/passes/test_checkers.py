"""Each seeded mutation of a correct bundle is caught by the checker of the pass that owns it."""
import re

from ascendcraft_lab.passes.pipeline import check_step
from ascendcraft_lab.passes.manager import LowerOptions
from ascendcraft_lab.passes.pipeline import get_pass
from ascendcraft_lab.passes.plan import plan_for

KERNEL = "kernel/gelu_kernel.cpp"


def mutate(steps, pattern, repl, count=1):
    final = steps[-1].bundle
    text, n = re.subn(pattern, repl, final[KERNEL], count=count)
    assert n == count, f"mutation {pattern!r} did not apply"
    return final.with_files({KERNEL: text})


def kinds(findings, pass_name):
    return {(f.pass_name, f.kind) for f in findings if f.pass_name == pass_name}


def test_rule_engine_output_has_no_findings(gelu_steps):
    assert [f for s in gelu_steps for f in s.findings] == []


def test_removed_free_tensor_is_caught_by_compute(gelu, gelu_steps):
    bundle = mutate(gelu_steps, r"\n\s*xuQueue\.FreeTensor\(xu\);", "")
    found = check_step(get_pass("align"), gelu, bundle, LowerOptions())
    assert ("compute", "queue-balance") in kinds(found, "compute")
    assert any("xuQueue" in f.message and f.dsl_line > 0 for f in found)


def test_dropped_enque_is_caught_by_compute(gelu, gelu_steps):
    bundle = mutate(gelu_steps, r"\n\s*yuQueue\.EnQue\(yu\);", "")
    found = check_step(get_pass("compute"), gelu, bundle, LowerOptions())
    assert any(f.kind == "queue-balance" and "yuQueue" in f.message and "EnQue x0" in f.message for f in found)


def test_unaligned_datacopy_is_caught_by_align(gelu, gelu_steps):
    bundle = mutate(gelu_steps, r"DataCopyPad\(xu, (xGm\[[^\]]+\]), xuCopy, xuPad\);", r"DataCopy(xu, \1, cLen);")
    found = check_step(get_pass("align"), gelu, bundle, LowerOptions())
    assert kinds(found, "align") == {("align", "unaligned-datacopy")}
    hit = next(f for f in found if f.kind == "unaligned-datacopy")
    assert hit.line > 0 and bundle[KERNEL].splitlines()[hit.line - 1].strip().startswith("DataCopy(xu")
    assert hit.dsl_line == 15   # `xu = load(x[r, c])`


def test_aligned_datacopy_count_passes_align(gelu, gelu_steps):
    bundle = mutate(gelu_steps, r"DataCopyPad\(xu, (xGm\[[^\]]+\]), xuCopy, xuPad\);", r"DataCopy(xu, \1, 64);")
    found = check_step(get_pass("align"), gelu, bundle, LowerOptions())
    assert not kinds(found, "align")


def test_oversized_init_buffer_is_caught_by_init(gelu, gelu_steps):
    bundle = mutate(gelu_steps, r"pipe\.InitBuffer\(innerBuf, [^;]+\);", "pipe.InitBuffer(innerBuf, 200 * 1024);")
    found = check_step(get_pass("init"), gelu, bundle, LowerOptions())
    assert kinds(found, "init") == {("init", "ub-overflow")}
    assert "exceeds" in found[0].message and "Ascend910B2" in found[0].message


def test_missing_queue_declaration_is_caught_by_init(gelu, gelu_steps):
    bundle = mutate(gelu_steps, r"\n\s*TQue<TPosition::VECOUT, 1> yuQueue;", "")
    found = check_step(get_pass("init"), gelu, bundle, LowerOptions())
    assert any(f.kind == "missing-buffer" and "`yu`" in f.message for f in found)


def test_missing_tiling_field_is_caught_by_host(gelu, gelu_steps):
    final = gelu_steps[-1].bundle
    header = plan_for(gelu, LowerOptions()).tiling_path
    bundle = final.with_files({header: final[header].replace("int64_t tile;", "")})
    found = check_step(get_pass("host"), gelu, bundle, LowerOptions())
    assert any(f.kind == "tiling-field" and "`tile`" in f.message for f in found)
