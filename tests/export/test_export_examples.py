"""Every bundled example exports to both MultiKernelBench formats, completely and consistently."""
from __future__ import annotations

import re

import runpy

import pytest

from export_helpers import import_model
from ascendcraft_lab.backends.cann.signature import OpSignature
from ascendcraft_lab.export.common import kernel_class_text, load_dsl_file, tiling_function_only
from ascendcraft_lab.export.direct import export_direct, validate_direct
from ascendcraft_lab.export.mkb import export_mkb, validate_fields

examples = pytest.importorskip("ascendcraft_lab.examples", reason="the example library is not there yet")
torch = pytest.importorskip("torch")


# A kernel whose cores share a GM Workspace (sync_all) needs it zeroed before the launch: the direct-launch
# export's binding allocates it so; the msopgen (six-string) export cannot and refuses it.
SHARED_WORKSPACE = [e for e in examples.EXAMPLES if "Workspace[" in e.dsl.read_text()]
# a kernel with scalar parameters binds them from the reference, which runs in a child: the heavy tier
SHARED_WORKSPACE_PARAMS = [pytest.param(e, id=e.name, marks=[pytest.mark.heavy] if re.search(r": (f32|i32)[,)]",
                                                                                          e.dsl.read_text()) else [])
                           for e in SHARED_WORKSPACE]


@pytest.fixture(params=[e.name for e in examples.EXAMPLES if e not in SHARED_WORKSPACE], scope="module")
def example(request):
    e = examples.get_example(request.param)
    return e, load_dsl_file(e.dsl, reference=e.reference)


@pytest.mark.heavy
def test_both_exports_are_complete_and_keep_the_kernel_and_tiling(example):
    _, src = example
    fields = export_mkb(src)
    assert validate_fields(fields) == []
    assert kernel_class_text(src) in fields["kernel_src"]
    assert tiling_function_only(src) in fields["host_operator_src"]
    spec = export_direct(src)
    assert validate_direct(spec) == []
    files = {s["path"]: s["content"] for s in spec["sources"]}
    assert kernel_class_text(src) in files[f"kernel/{src.plan.op}_kernel.cpp"]


@pytest.mark.heavy
@pytest.mark.parametrize("fmt", ["mkb", "mkb-direct"])
def test_model_new_binds_the_reference_call_to_the_op(example, fmt, monkeypatch):
    e, src = example
    if fmt == "mkb":
        source, module, op = export_mkb(src)["model_src"], "custom_ops_lib", f"{src.op}_custom"
    else:
        source = next(s["content"] for s in export_direct(src)["sources"] if s["path"] == "ModelNew.py")
        module, op = "benchmark_ops", src.op
    namespace, stub = import_model(source, module, monkeypatch)
    ref = runpy.run_path(str(e.reference))
    init_inputs = ref["get_init_inputs"]()
    torch.manual_seed(0)
    model = namespace["ModelNew"](*init_inputs)
    torch.manual_seed(0)
    reference = ref["Model"](*init_inputs)
    inputs = ref["get_inputs"]()
    model(*inputs)
    [(called, args)] = stub.calls
    sig = OpSignature.of(src.program)
    assert called == op
    assert len(args) == len(sig.inputs) + len(sig.scalars)
    tensors = [v for v in inputs if isinstance(v, torch.Tensor)]
    n = len(src.program.inputs)
    assert all(a is t for a, t in zip(args[:n], tensors))            # forward's tensors, in order
    named = {**dict(reference.named_buffers()), **dict(reference.named_parameters())}
    for a, p in zip(args[n:len(sig.inputs)], src.program.model_params):
        assert torch.equal(a, named[p.param_name])                   # the Model's weights, same seed
    scalars = args[len(sig.inputs):]
    assert all(isinstance(s, (int, float)) and not isinstance(s, torch.Tensor) for s in scalars)


@pytest.mark.parametrize("ex", SHARED_WORKSPACE_PARAMS)
def test_a_kernel_with_a_shared_workspace_is_refused_by_the_msopgen_export_in_one_line(ex):
    from ascendcraft_lab.export.common import ExportError
    src = load_dsl_file(ex.dsl, reference=ex.reference)
    with pytest.raises(ExportError) as info:
        export_mkb(src)
    msg = str(info.value)
    assert "Workspace" in msg and "not zeroed" in msg and "--format mkb-direct" in msg and "\n" not in msg



@pytest.mark.parametrize("ex", SHARED_WORKSPACE_PARAMS)
def test_a_kernel_with_a_shared_workspace_launches_directly_with_a_zeroed_workspace(ex, monkeypatch):
    import re
    src = load_dsl_file(ex.dsl, reference=ex.reference)
    spec = export_direct(src)
    assert validate_direct(spec) == []
    files = {s["path"]: s["content"] for s in spec["sources"]}
    plan = src.plan
    kernel = files[f"kernel/{plan.op}_kernel.cpp"]
    assert kernel_class_text(src) in kernel
    # the class gets the launch's workspace exactly as the session's own entry hands it over
    session_init = re.search(r"op\.Init\(.*workspace.*\);", src.bundle[plan.kernel_path]).group(0)
    assert session_init in kernel
    entry = re.search(rf"__global__ __aicore__ void {plan.entry}\((.*)\)", kernel).group(1)
    gm = [f"GM_ADDR {t.name}" for t in src.program.tensors()]
    assert entry.startswith(", ".join(gm + ["GM_ADDR workspace"]) + ", ")
    assert "GM_ADDR workspace, const" in files[f"kernel/{plan.op}_launch.h"]
    # the binding sizes and zeroes it as the session's torch binding does, and passes it to the launch
    torch_binding = next(text for path, text in src.bundle.files.items() if path.startswith("torch/"))
    size_line = next(l.strip() for l in torch_binding.splitlines() if "workspaceBytes =" in l)
    bind = files["kernel/pybind11.cpp"]
    # the same formula, with the dims the direct binding names first (`const int64_t M = x.size(0);`)
    for name, read in re.findall(r"const int64_t (\w+) = (\w+\.size\(\d+\));", bind):
        size_line = size_line.replace(f"({read})", f"({name})")
    assert size_line in bind
    assert "at::Tensor workspace = at::zeros({workspaceBytes}" in bind
    assert re.search(rf"launch_{plan.entry}\(blockDim, stream, "
                     r".*reinterpret_cast<GM_ADDR>\(workspace\.data_ptr\(\)\), &tiling\);", bind)
    # ModelNew calls the op with forward's tensors and the Model's parameters the kernel reads (the
    # workspace stays inside the binding)
    namespace, stub = import_model(files["ModelNew.py"], "benchmark_ops", monkeypatch)
    ref = runpy.run_path(str(ex.reference))
    inputs = ref["get_inputs"]()
    namespace["ModelNew"](*ref["get_init_inputs"]())(*inputs)
    [(called, args)] = stub.calls
    tensors = [v for v in inputs if isinstance(v, torch.Tensor)]
    assert called == src.op and len(args) == len(tensors) + len(src.program.model_params) + len(src.scalar_plan or ())
    model = ref["Model"](*ref["get_init_inputs"]())
    assert list(args[len(args) - len(src.scalar_plan or ()):]) == [getattr(model, n) for n in src.scalar_plan or ()]
