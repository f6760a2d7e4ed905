"""MultiKernelBench's direct-launch submission: one JSON of source files compiled with bisheng.

Matched against the upstream repository (wzzll123/MultiKernelBench):
`prompts/ascendc_direct_launch_model_relu.json` and `..._model_add.json` (the examples: top-level
`name`, `author`, `problem`, `format_version`, `description`, `entry.model` as
`ModelNew.py::ModelNew`, `build.type` = `ascendc_direct_launch`, `sources` as `{path, content}`)
and `backends/ascendc_direct_launch_backend.py` (how they are built: sources are written under
a work folder (relative paths, no `..`, no duplicates); `build.kernel_sources` (default: every
`kernel/*.cpp` but `kernel/pybind11.cpp`) are compiled by bisheng with
`--npu-arch=dav-2201 -xasc`; `build.binding_sources` (default `kernel/pybind11.cpp`) by the host
compiler against torch and torch_npu; `build.include_dirs` default `["kernel"]`; the module is
`build.module_name` (default `benchmark_ops`), loaded from `kernel/build`; then the entry file
is exec'd and must define the entry class).

What this export writes (`<op>` is the problem name, `<k>` the DSL kernel's name):
- `ModelNew.py`: `ModelNew` calling `benchmark_ops.<op>`;
- `kernel/<k>_tiling.h`, `kernel/<k>_tiling.cpp`: the session's tiling header and tiling
  function, unchanged (host code, compiled as a binding source);
- `kernel/<k>_kernel.cpp`: the session's kernel class unchanged, a `__global__ __aicore__` entry
  taking the tiling fields by value (GET_TILING_DATA is not for kernel-launch projects), and
  `launch_<k>(...)` launching it with `<<<blockDim, nullptr, stream>>>`;
- `kernel/<k>_launch.h`: the launch function's declaration for the binding;
- `kernel/pybind11.cpp`: the pybind module: outputs allocated, tiling computed by the
  session's tiling function, kernel launched on the current NPU stream, taken with
  `stream(true)` after the last allocation (it flushes torch_npu's task queue first, so a zeroed
  output or workspace is zero when the kernel starts; `stream(false)` would not). A kernel with
  Workspace tensors (cores exchanging partial results through GM around sync_all()) or with
  sync_all() gets the launch's `workspace` argument as the session's torch binding allocates it:
  at::zeros of the tensors' 32-byte aligned sizes plus SyncAll's flags, 32 bytes per block. A
  direct launch cannot use SyncAll's hardware form (CANN supports it in op projects only), so
  the kernel uses the soft form, whose GM flags must be zero before the launch.
"""
from __future__ import annotations

from pathlib import PurePosixPath

from ..dsl.host import needs_workspace
from ..passes.host import STREAM_NOTE, dim_args, workspace_bytes_cpp, workspace_note
from ..passes.init import kernel_entry_prologue
from ..passes.kernel import SYNC_BASE_PARAM, SYNC_BASE_QUERY, needs_sync_base
from ..passes.plan import cpp_name
from .common import (AT_DTYPE, ExportSource, check_names, dim_sources, init_call, model_new_source,
                     output_allocations, return_outputs, split_kernel)

FORMAT_VERSION = "0.1"
BUILD_TYPE = "ascendc_direct_launch"
MODULE = "benchmark_ops"
ENTRY = "ModelNew.py::ModelNew"
TOP_LEVEL = ("name", "author", "problem", "format_version", "description", "entry", "build", "sources")


def _gm_args(src: ExportSource) -> list[str]:
    """The entry's GM arguments: the tensors in kernel order, then the launch's workspace when the
    kernel has Workspace tensors or syncs (they live in it, as in the session's own launch)."""
    return [cpp_name(t.name) for t in src.program.tensors()] + (["workspace"] if needs_workspace(src.program) else [])


def _kernel_file(src: ExportSource) -> str:
    plan, p = src.plan, src.program
    check_names(src)
    before, _ = split_kernel(src)
    mix = needs_sync_base(p)
    if mix:       # the launch below asks ACL for the cross-core sync base
        head = '#include "kernel_operator.h"\n'
        before = before.replace(head, head + '#include "acl/acl.h"\n', 1)
    gm = _gm_args(src)
    fields = plan.tiling_fields
    params = [f"GM_ADDR {n}" for n in gm] + [f"{f.ctype} {f.name}" for f in fields]
    params += [f"GM_ADDR {SYNC_BASE_PARAM}"] * mix
    lines = [before.rstrip(), "",
             "// Direct launch: the tiling fields arrive as kernel arguments (GET_TILING_DATA belongs to msopgen",
             "// projects), and are gathered into the struct the kernel class reads.",
             f"__global__ __aicore__ void {plan.entry}({', '.join(params)})", "{"]
    lines += [f"    {line}" for line in kernel_entry_prologue(p)]     # the session entry's kernel type (and sync base)
    lines += [f"    {plan.tiling_struct} tilingData;"]
    lines += [f"    tilingData.{f.name} = {f.name};" for f in fields]
    lines += [f"    {plan.cls} op;", f"    {init_call(src, 'tilingData')}", "    op.Process();", "}", ""]
    launch_params = (["uint32_t blockDim", "void *stream"] + [f"GM_ADDR {n}" for n in gm]
                     + [f"const {plan.tiling_struct} *tiling"])
    args = gm + [f"tiling->{f.name}" for f in fields]
    if not mix:
        lines += [f'extern "C" void launch_{plan.entry}({", ".join(launch_params)})', "{",
                  f"    {plan.entry}<<<blockDim, nullptr, stream>>>({', '.join(args)});", "}", ""]
        return "\n".join(lines)
    base = f"static_cast<GM_ADDR>({SYNC_BASE_PARAM})"
    lines += [f"// The cross-core flags' base address for the kernel ({SYNC_BASE_QUERY}); its aclError is",
              "// returned, and the kernel is launched only when it succeeded.",
              f'extern "C" int launch_{plan.entry}({", ".join(launch_params)})', "{",
              f"    void *{SYNC_BASE_PARAM} = nullptr;",
              f"    const aclError status = {SYNC_BASE_QUERY}(&{SYNC_BASE_PARAM});",
              "    if (status != ACL_SUCCESS) {", "        return status;", "    }",
              f"    {plan.entry}<<<blockDim, nullptr, stream>>>({', '.join(args + [base])});",
              "    return ACL_SUCCESS;", "}", ""]
    return "\n".join(lines)


def _launch_header(src: ExportSource) -> str:
    plan = src.plan
    guard = f"ASCENDCRAFT_{plan.op.upper()}_LAUNCH_H"
    gm = [f"GM_ADDR {n}" for n in _gm_args(src)]
    params = ["uint32_t blockDim", "void *stream"] + gm + [f"const {plan.tiling_struct} *tiling"]
    return "\n".join([
        f"// Host-side declaration of the {plan.entry} launch (defined in {plan.op}_kernel.cpp, compiled by bisheng).",
        f"#ifndef {guard}", f"#define {guard}", "", "#include <cstdint>", "",
        f'#include "{PurePosixPath(plan.tiling_path).name}"', "",
        "#ifndef GM_ADDR", "#define GM_ADDR uint8_t *", "#endif", "",
        f'extern "C" {"int" if needs_sync_base(src.program) else "void"} launch_{plan.entry}({", ".join(params)});', "",
        f"#endif  // {guard}", ""])


def _pybind(src: ExportSource) -> str:
    plan, p = src.plan, src.program
    ins = p.inputs + p.model_params
    anchor = cpp_name(ins[0].name)
    sig = [f"const at::Tensor &{cpp_name(t.name)}" for t in ins]
    sig += [f"{'double' if s.dtype.is_float else 'int64_t'} {cpp_name(s.name)}" for s in p.scalars]
    outs = p.outputs
    ret = "at::Tensor" if len(outs) == 1 else f"std::tuple<{', '.join(['at::Tensor'] * len(outs))}>"
    dims = dim_sources(src, lambda i, t, axis: f"{t}.size({axis})")
    lines = [f"// pybind module `{MODULE}`: {src.op} on the current NPU stream "
             "(AscendC, generated by AscendCraft Lab).",
             "#include <ATen/Operators.h>", "#include <torch/all.h>", "#include <torch/extension.h>",
             '#include "torch_npu/csrc/core/npu/NPUStream.h"', f'#include "{plan.op}_launch.h"', "",
             f"namespace ascendcraft_{plan.op} {{", "",
             f"{ret} {src.op}({', '.join(sig)})", "{"]
    for t in ins:
        n = cpp_name(t.name)
        lines.append(f'    TORCH_CHECK({n}.is_contiguous() && {n}.scalar_type() == at::k{AT_DTYPE[t.dtype.value]}, '
                     f'"{t.name} must be a contiguous {t.dtype.torch_name} tensor");')
    lines.append(f"    const c10::OptionalDeviceGuard guard({anchor}.device());")
    lines += [f"    const int64_t {cpp_name(d)} = {read};" for d, read in dims]
    lines += ["    " + a for a in output_allocations(src, anchor)]
    call = [cpp_name(d) for d, _, _ in dim_args(plan)] + [cpp_name(s.name) for s in p.scalars] + ["tiling"]
    ptrs = [f"reinterpret_cast<GM_ADDR>({n}.data_ptr())" for n in _gm_args(src)]
    lines += [f"    {plan.tiling_struct} tiling{{}};",
              f"    const uint32_t blockDim = {plan.tiling_struct}Func({', '.join(call)});"]
    if needs_workspace(p):
        lines += [f"    // {workspace_note(p)}",
                  f"    const int64_t workspaceBytes = {workspace_bytes_cpp(p, {})};",
                  f"    at::Tensor workspace = at::zeros({{workspaceBytes}}, {anchor}.options().dtype(at::kByte));"]
    lines += [f"    // {STREAM_NOTE}",
              "    auto stream = c10_npu::getCurrentNPUStream().stream(true);",
              *_launch_call(src, f"launch_{plan.entry}(blockDim, stream, {', '.join(ptrs)}, &tiling)"),
              return_outputs(outs),
              "}", "", f"}}  // namespace ascendcraft_{plan.op}", "",
              f"PYBIND11_MODULE({MODULE}, m)", "{",
              f'    m.doc() = "AscendCraft Lab direct-launch {src.op} operator";',
              f'    m.def("{src.op}", &ascendcraft_{plan.op}::{src.op}, '
              f'"{p.kernel.name} (AscendC, generated by AscendCraft Lab)");',
              "}", ""]
    return "\n".join(lines)


def _launch_call(src: ExportSource, call: str) -> list[str]:
    """The binding's launch statement; a MIX kernel's launch returns the sync-base query's aclError."""
    if not needs_sync_base(src.program):
        return [f"    {call};"]
    return [f"    const int launched = {call};",
            f'    TORCH_CHECK(launched == 0, "{src.op}: {SYNC_BASE_QUERY} failed with aclError ", launched, '
            '" (the cross-core sync base of a cube + vector kernel)");']


_MODEL_IMPORT = f'''import sys
from pathlib import Path

_KERNEL_BUILD = Path(__file__).resolve().parent / "kernel" / "build"
if _KERNEL_BUILD.is_dir() and str(_KERNEL_BUILD) not in sys.path:
    sys.path.insert(0, str(_KERNEL_BUILD))

import {MODULE} as _ops'''


def export_direct(src: ExportSource) -> dict:
    """The direct-launch submission as a JSON-ready dict."""
    plan = src.plan
    tiling_h = PurePosixPath(plan.tiling_path).name
    tiling_cpp = PurePosixPath(plan.tiling_impl_path).name
    kernel_cpp = PurePosixPath(plan.kernel_path).name
    sources = {
        "ModelNew.py": model_new_source(src, module_import=_MODEL_IMPORT, call=f"_ops.{src.op}"),
        f"kernel/{tiling_h}": src.bundle[plan.tiling_path],
        f"kernel/{tiling_cpp}": src.bundle[plan.tiling_impl_path],
        f"kernel/{kernel_cpp}": _kernel_file(src),
        f"kernel/{plan.op}_launch.h": _launch_header(src),
        "kernel/pybind11.cpp": _pybind(src),
    }
    return {
        "name": f"ascendcraft_{src.op}",
        "author": "AscendCraft Lab",
        "problem": src.op,
        "format_version": FORMAT_VERSION,
        "description": (f"`{src.program.kernel.name}` lowered from its DSL by AscendCraft Lab for {src.soc.name} "
                        f"({src.soc.arch}); the kernel class and tiling function are the emulator-verified ones."),
        "entry": {"model": ENTRY},
        "build": {"type": BUILD_TYPE, "module_name": MODULE, "kernel_sources": [f"kernel/{kernel_cpp}"],
                  "binding_sources": ["kernel/pybind11.cpp", f"kernel/{tiling_cpp}"], "include_dirs": ["kernel"]},
        "sources": [{"path": p, "content": c} for p, c in sources.items()],
    }


def _safe(path: str) -> bool:
    p = PurePosixPath(path)
    return bool(path) and not p.is_absolute() and ".." not in p.parts


def validate_direct(spec) -> list[str]:
    """What the upstream direct-launch backend would reject (empty when the spec is well-formed)."""
    if not isinstance(spec, dict):
        return ["the submission must be a JSON object"]
    problems = [f"missing `{k}`" for k in TOP_LEVEL if k not in spec]
    if problems:
        return problems
    if spec["build"].get("type") != BUILD_TYPE:
        problems.append(f"build.type must be {BUILD_TYPE!r}")
    entry = spec["entry"].get("model", "")
    if "::" not in entry:
        problems.append(f"entry.model must be FILE::CLASS, not {entry!r}")
    sources = spec["sources"]
    if not isinstance(sources, list) or not all(isinstance(s, dict) and isinstance(s.get("path"), str)
                                                and isinstance(s.get("content"), str) for s in sources):
        return problems + ["sources must be a list of {path, content} strings"]
    paths = [s["path"] for s in sources]
    problems += [f"unsafe source path {p!r}" for p in paths if not _safe(p)]
    problems += [f"duplicate source path {p!r}" for p in sorted({p for p in paths if paths.count(p) > 1})]
    b = spec["build"]
    kernels = b.get("kernel_sources") or [p for p in paths if p.startswith("kernel/") and p.endswith(".cpp")
                                          and p != "kernel/pybind11.cpp"]
    bindings = b.get("binding_sources") or ["kernel/pybind11.cpp"]
    for p in list(kernels) + list(bindings):
        if p not in paths:
            problems.append(f"build lists {p}, which is not among the sources")
    if not kernels:
        problems.append("no kernel source to compile")
    model_file, _, model_class = entry.partition("::")
    content = next((s["content"] for s in sources if s["path"] == model_file), None)
    if content is None:
        problems.append(f"the entry file {model_file} is not among the sources")
    else:
        try:
            compile(content, model_file, "exec")
        except SyntaxError as exc:
            problems.append(f"{model_file} is not Python: {exc.msg} (line {exc.lineno})")
        if f"class {model_class}" not in content:
            problems.append(f"{model_file} defines no class {model_class}")
    module = b.get("module_name", MODULE)
    binding_text = "".join(s["content"] for s in sources if s["path"] in bindings)
    if f"PYBIND11_MODULE({module}," not in binding_text:
        problems.append(f"no binding source defines PYBIND11_MODULE({module}, ...)")
    return problems
