"""`ascendcraft export DIR --format mkb|mkb-direct -o OUT`: a session as a MultiKernelBench submission.

`--format mkb` writes MultiKernelBench's AscendC submission: a Python file assigning six
strings, matched against the upstream repository (wzzll123/MultiKernelBench):
`prompts/ascendc_new_model_add.py` (the one-shot example: field names and shapes) and
`utils/ascend_compile_pipeline.py` (how they are used: the op is `<problem>_custom`, its
PascalCase `<Problem>Custom` is the msopgen op type; `project_json_src` is fed to
`msopgen gen -i <op>.json -c ai_core-<SoC> -lan cpp`; `host_tiling_src` becomes
`op_host/<op>_tiling.h`, `host_operator_src` `op_host/<op>.cpp`, `kernel_src`
`op_kernel/<op>.cpp`, `python_bind_src` `CppExtension/csrc/op.cpp`; `model_src` is exec'd and
must define `ModelNew`, importing the extension as `custom_ops_lib`):

- `project_json_src`: the op JSON (op, language, input_desc/output_desc with name,
  param_type, format, type; `attr` for the kernel's scalars);
- `host_tiling_src`: the tiling struct as BEGIN_TILING_DATA_DEF / TILING_DATA_FIELD_DEF /
  END_TILING_DATA_DEF / REGISTER_TILING_DATA_CLASS (namespace optiling);
- `host_operator_src`: the session's tiling function verbatim (in namespace `ascendcraft`),
  a `TilingFunc(gert::TilingContext*)` that reads the dims from the input shapes and the
  scalars from the attributes, calls it and fills the TilingData; InferShape/InferDataType
  from the DSL's Out[...] declarations; the `OpDef` registration with `OP_ADD`;
- `kernel_src`: the session's kernel class verbatim, its tiling struct inlined, and an entry
  `<op>_custom(inputs..., outputs..., workspace, tiling)` that reads the TilingData with
  GET_TILING_DATA (supported in this msopgen project form) and copies it into that struct;
- `python_bind_src`: a pybind function allocating the outputs and calling `aclnn<Op>Custom`
  through torch_npu's `EXEC_NPU_CMD` (inputs, scalars, outputs: the aclnn argument order);
- `model_src`: `class ModelNew(nn.Module)` calling `custom_ops_lib.<op>_custom`.

`--format mkb-direct` writes the newer direct-launch JSON (export/direct.py).
"""
from __future__ import annotations

import ast
import json
import re

from ..dsl import ir
from ..dsl.host import syncs_all
from ..passes.host import dim_args
from ..passes.init import kernel_entry_prologue
from ..passes.plan import cpp_name
from .common import (ExportError, ExportSource, check_names, dim_sources, init_call,
                     model_new_source, op_order, output_allocations, pascal, py_string, return_outputs, shape_exprs,
                     split_kernel, tiling_function_text, tiling_struct_text)

FIELDS = ("project_json_src", "host_tiling_src", "host_operator_src", "kernel_src", "python_bind_src", "model_src")

# msopgen JSON type names and the matching ge::DataType.
MSOPGEN_TYPE = {"f16": "float16", "bf16": "bfloat16", "f32": "float", "i8": "int8", "i16": "int16",
                "i32": "int32", "i64": "int64", "u8": "uint8", "bool": "bool"}
GE_TYPE = {"f16": "DT_FLOAT16", "bf16": "DT_BF16", "f32": "DT_FLOAT", "i8": "DT_INT8", "i16": "DT_INT16",
           "i32": "DT_INT32", "i64": "DT_INT64", "u8": "DT_UINT8", "bool": "DT_BOOL"}


def names(src: ExportSource) -> dict[str, str]:
    snake = f"{src.op}_custom"
    op = pascal(snake)
    return {"snake": snake, "op": op, "tiling_data": f"{op}TilingData", "aclnn": f"aclnn{op}"}


def project_json(src: ExportSource) -> str:
    def desc(t: ir.TensorParam) -> dict:
        return {"name": cpp_name(t.name), "param_type": "required", "format": ["ND"],
                "type": [MSOPGEN_TYPE[t.dtype.value]]}
    p = src.program
    entry = {"op": names(src)["op"], "language": "cpp",
             "input_desc": [desc(t) for t in p.inputs + p.model_params],
             "output_desc": [desc(t) for t in p.outputs]}
    if p.scalars:
        entry["attr"] = [{"name": cpp_name(s.name), "param_type": "required",
                          "type": "float" if s.dtype.is_float else "int"}
                         for s in p.scalars]
    return json.dumps([entry], indent=4) + "\n"


def host_tiling(src: ExportSource) -> str:
    n = names(src)
    lines = [f"// Tiling data of {n['op']}: the fields of {src.plan.tiling_struct} in AscendCraft Lab's generated",
             "// host/" + src.plan.tiling_path.split("/")[-1] + ", in the msopgen project's TilingData form.",
             '#include "register/tilingdata_base.h"', "", "namespace optiling {",
             f"BEGIN_TILING_DATA_DEF({n['tiling_data']})"]
    for f in src.plan.tiling_fields:
        lines.append(f"  TILING_DATA_FIELD_DEF({f.ctype}, {f.name});  // {f.doc}")
    lines += ["END_TILING_DATA_DEF;", "", f"REGISTER_TILING_DATA_CLASS({n['op']}, {n['tiling_data']})",
              "}  // namespace optiling", ""]
    return "\n".join(lines)


def _attr_reads(src: ExportSource, indent: str = "    ") -> list[str]:
    if not src.program.scalars:
        return []
    lines = [f"{indent}const gert::RuntimeAttrs *attrs = context->GetAttrs();"]
    for i, s in enumerate(src.program.scalars):
        if s.dtype.is_float:
            lines.append(f"{indent}const float {cpp_name(s.name)} = *attrs->GetFloat({i});")
        else:
            lines.append(f"{indent}const int64_t {cpp_name(s.name)} = *attrs->GetInt({i});")
    return lines


def host_operator(src: ExportSource) -> str:
    n, plan, p = names(src), src.plan, src.program
    tiling_dims = dim_sources(src, lambda i, t, axis: f"context->GetInputShape({i})->GetOriginShape().GetDim({axis})")
    shape_dims = dim_sources(src, lambda i, t, axis: f"context->GetInputShape({i})->GetDim({axis})")
    call_args = [cpp_name(d) for d, _, _ in dim_args(plan)] + [cpp_name(s.name) for s in p.scalars] + ["plain"]
    out = [
        f"// Host side of {n['op']}: tiling, shape inference and registration, generated by AscendCraft Lab",
        f"// from {p.kernel.name}'s DSL for {plan.soc.name}.",
        "#include <algorithm>", "#include <cmath>", "#include <cstdint>", "",
        f'#include "{n["snake"]}_tiling.h"', '#include "register/op_def_registry.h"', "",
        "// The tiling exactly as AscendCraft Lab generated it (its tiling header's struct and its",
        "// tiling function, verified on the emulator); TilingFunc below feeds it the input shapes.",
        "namespace ascendcraft {", tiling_struct_text(src).rstrip(), "", tiling_function_text(src).rstrip(),
        "}  // namespace ascendcraft", "",
        "namespace optiling {",
        "static ge::graphStatus TilingFunc(gert::TilingContext *context)", "{"]
    out += [f"    const int64_t {cpp_name(d)} = {read};" for d, read in tiling_dims]
    out += _attr_reads(src)
    out += [f"    ascendcraft::{plan.tiling_struct} plain{{}};",
            f"    const uint32_t blockDim = ascendcraft::{plan.tiling_struct}Func({', '.join(call_args)});",
            f"    {n['tiling_data']} tiling;"]
    out += [f"    tiling.set_{f.name}(plain.{f.name});" for f in plan.tiling_fields]
    out += ["    context->SetBlockDim(blockDim);",
            "    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), "
            "context->GetRawTilingData()->GetCapacity());",
            "    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());",
            "    size_t *currentWorkspace = context->GetWorkspaceSizes(1);",
            "    currentWorkspace[0] = 0;  // the kernel needs no GM workspace",
            "    return ge::GRAPH_SUCCESS;", "}", "}  // namespace optiling", "",
            "namespace ge {",
            "// Output shapes: the DSL's Out[...] dims, from the input shapes.",
            "static ge::graphStatus InferShape(gert::InferShapeContext *context)", "{"]
    scalar_in_shapes = any(isinstance(x, ir.Name) and x.id in {s.name for s in p.scalars}
                           for o in p.outputs for d in o.dims for x in ir.walk_exprs(d))
    out += [f"    const int64_t {cpp_name(d)} = {read};" for d, read in shape_dims]
    if scalar_in_shapes:
        out += _attr_reads(src)
    for k, o in enumerate(p.outputs):
        dims = shape_exprs(o)
        var = f"{cpp_name(o.name)}Shape"
        out += [f"    gert::Shape *{var} = context->GetOutputShape({k});", f"    {var}->SetDimNum({len(dims)});"]
        out += [f"    {var}->SetDim({j}, {e});" for j, e in enumerate(dims)]
    out += ["    return GRAPH_SUCCESS;", "}", "",
            "static ge::graphStatus InferDataType(gert::InferDataTypeContext *context)", "{"]
    out += [f"    context->SetOutputDataType({k}, ge::{GE_TYPE[o.dtype.value]});" for k, o in enumerate(p.outputs)]
    out += ["    return ge::GRAPH_SUCCESS;", "}", "}  // namespace ge", "",
            "namespace ops {", f"class {n['op']} : public OpDef {{", "public:",
            f"    explicit {n['op']}(const char *name) : OpDef(name)", "    {"]
    for t in op_order(src):
        kind = "Output" if t.role is ir.TensorRole.output else "Input"
        out.append(f'        this->{kind}("{cpp_name(t.name)}")'
                   f".ParamType(REQUIRED).DataType({{ge::{GE_TYPE[t.dtype.value]}}})"
                   ".Format({ge::FORMAT_ND}).UnknownShapeFormat({ge::FORMAT_ND});")
    for s in p.scalars:
        kind = "Float" if s.dtype.is_float else "Int"
        out.append(f'        this->Attr("{cpp_name(s.name)}").AttrType(REQUIRED).{kind}();')
    out += ["        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);",
            "        this->AICore().SetTiling(optiling::TilingFunc);",
            f'        this->AICore().AddConfig("{plan.soc.family}");',
            "    }", "};", "", f"OP_ADD({n['op']});", "}  // namespace ops", ""]
    return "\n".join(out)


def refuse_workspaces(src: ExportSource) -> None:
    """A kernel whose cores share a GM Workspace, or that calls sync_all() (SyncAll's soft form
    keeps its flags in the workspace), needs it zeroed before the launch. In an msopgen op
    project the framework allocates the launch's workspace itself (sized by TilingFunc's
    GetWorkspaceSizes, system workspace first, not zeroed) inside aclnn, out of the binding's
    reach; the direct-launch export's binding allocates it zeroed instead."""
    p = src.program
    if p.workspaces:
        raise ExportError(f"the kernel shares GM Workspace tensors between its cores "
                          f"({', '.join(t.name for t in p.workspaces)}), which must start at zero, but an msopgen op "
                          "project's workspace is allocated by the framework and not zeroed: export it with "
                          "--format mkb-direct, whose binding passes a zeroed workspace")
    if syncs_all(p):
        raise ExportError("the kernel calls sync_all(), lowered to SyncAll's soft form whose GM flags must start at "
                          "zero, but an msopgen op project's workspace is allocated by the framework and not zeroed: "
                          "export it with --format mkb-direct, whose binding passes a zeroed workspace")


def kernel(src: ExportSource) -> str:
    n, plan = names(src), src.plan
    refuse_workspaces(src)
    check_names(src)
    before, _ = split_kernel(src)
    include = f'#include "{plan.tiling_path.split("/")[-1]}"'
    if include not in before:
        raise ExportError(f"{plan.kernel_path} does not include {include}")
    struct = ("// The tiling struct of the generated host/" + plan.tiling_path.split("/")[-1]
              + " (the kernel class reads it).\n" + tiling_struct_text(src).rstrip())
    head = before.replace(include, struct, 1)
    params = ", ".join(f"GM_ADDR {cpp_name(t.name)}" for t in op_order(src)) + ", GM_ADDR workspace, GM_ADDR tiling"
    lines = [head.rstrip(), "",
             "// The msopgen project passes the TilingData filled by TilingFunc; "
             "copy it into the struct the class reads.",
             f'extern "C" __global__ __aicore__ void {n["snake"]}({params}) {{']
    # The kernel type as the session's entry declares it (a MIX kernel syncs, which refuse_workspaces refused).
    lines += [f"    {line}" for line in kernel_entry_prologue(src.program)]
    lines += ["    (void)workspace;  // this kernel needs no GM workspace",
              "    GET_TILING_DATA(tilingData, tiling);",
              f"    {plan.tiling_struct} t;"]
    lines += [f"    t.{f.name} = tilingData.{f.name};" for f in plan.tiling_fields]
    lines += [f"    {plan.cls} op;", f"    {init_call(src, 't')}", "    op.Process();", "}", ""]
    return "\n".join(lines)


def python_bind(src: ExportSource) -> str:
    n, p = names(src), src.program
    ins = p.inputs + p.model_params
    anchor = cpp_name(ins[0].name)
    sig = [f"const at::Tensor &{cpp_name(t.name)}" for t in ins]
    sig += [f"{'double' if s.dtype.is_float else 'int64_t'} {cpp_name(s.name)}" for s in p.scalars]
    outs = p.outputs
    ret = "at::Tensor" if len(outs) == 1 else f"std::tuple<{', '.join(['at::Tensor'] * len(outs))}>"
    dims = dim_sources(src, lambda i, t, axis: f"{t}.size({axis})")
    exec_args = [cpp_name(v.name) for v in (*ins, *p.scalars, *outs)]
    lines = [f"// Python binding of {n['op']}: allocates the outputs and calls {n['aclnn']} (generated by msopgen).",
             "#include <torch/library.h>", "#include <torch/csrc/autograd/custom_function.h>",
             '#include "pytorch_npu_helper.hpp"', "#include <torch/extension.h>", "",
             f"{ret} {n['snake']}_impl_npu({', '.join(sig)})", "{"]
    lines += [f"    const int64_t {cpp_name(d)} = {read};" for d, read in dims]
    lines += ["    " + a for a in output_allocations(src, anchor)]
    lines.append(f"    EXEC_NPU_CMD({n['aclnn']}, {', '.join(exec_args)});")
    lines.append(return_outputs(outs))
    lines += ["}", "", "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)", "{",
              f'    m.def("{n["snake"]}", &{n["snake"]}_impl_npu, '
              f'"{p.kernel.name} (AscendC, generated by AscendCraft Lab)");',
              "}", ""]
    return "\n".join(lines)


def export_mkb(src: ExportSource) -> dict[str, str]:
    """The six strings of a MultiKernelBench AscendC submission."""
    refuse_workspaces(src)
    n = names(src)
    return {
        "project_json_src": project_json(src),
        "host_tiling_src": host_tiling(src),
        "host_operator_src": host_operator(src),
        "kernel_src": kernel(src),
        "python_bind_src": python_bind(src),
        "model_src": model_new_source(src, module_import="import torch_npu\nimport custom_ops_lib",
                                      call=f"custom_ops_lib.{n['snake']}"),
    }


def render_submission(fields: dict[str, str], src: ExportSource | None = None) -> str:
    """The submission file: the six assignments, in MultiKernelBench's order."""
    head = ""
    if src is not None:
        head = (f"# MultiKernelBench AscendC submission for `{src.op}` ({src.soc.name}), "
                "exported by AscendCraft Lab\n"
                f"# from the DSL kernel `{src.program.kernel.name}`. "
                "Six strings: see ascendcraft_lab/export/mkb.py.\n\n")
    return head + "\n\n".join(f"{k} = {py_string(fields[k])}" for k in FIELDS) + "\n"


# ----------------------------------------------------------------------------- validation


def _forward_arithmetic(tree: ast.Module) -> list[int]:
    """Lines of arithmetic in ModelNew.forward or module functions it calls (MultiKernelBench
    rejects tensor arithmetic outside the kernel)."""
    funcs = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
    cls = next((c for c in tree.body if isinstance(c, ast.ClassDef) and c.name == "ModelNew"), None)
    fwd = next((f for f in (cls.body if cls else []) if isinstance(f, ast.FunctionDef) and f.name == "forward"), None)
    if fwd is None:
        return []
    seen, stack, lines = set(), [fwd], []
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        for child in ast.walk(node):
            if isinstance(child, ast.BinOp):
                lines.append(child.lineno)
            if isinstance(child, ast.Call) and isinstance(child.func, ast.Name) and child.func.id in funcs:
                stack.append(funcs[child.func.id])
    return sorted(lines)


def validate_fields(fields: dict[str, str]) -> list[str]:
    """What is wrong with six submission strings (empty when the submission is well-formed)."""
    problems = [f"missing {k}" for k in FIELDS if not isinstance(fields.get(k), str) or not fields[k].strip()]
    if problems:
        return problems
    try:
        spec = json.loads(fields["project_json_src"])
    except json.JSONDecodeError as exc:
        return [f"project_json_src is not JSON: {exc.msg}"]
    if not (isinstance(spec, list) and len(spec) == 1 and isinstance(spec[0], dict)):
        return ["project_json_src must be a JSON list with one op"]
    op = spec[0].get("op", "")
    for key in ("op", "language", "input_desc", "output_desc"):
        if key not in spec[0]:
            problems.append(f"project_json_src has no `{key}`")
    for d in spec[0].get("input_desc", []) + spec[0].get("output_desc", []):
        if set(d) != {"name", "param_type", "format", "type"} or len(d["format"]) != len(d["type"]):
            problems.append(f"project_json_src: bad tensor description {d}")
    snake = re.sub(r"(?<!^)(?=[A-Z])", "_", op).lower()
    tiling = fields["host_tiling_src"]
    m = re.search(r"BEGIN_TILING_DATA_DEF\((\w+)\)", tiling)
    registered = m and re.search(rf"REGISTER_TILING_DATA_CLASS\({op},\s*{m.group(1)}\)", tiling)
    if not registered or "END_TILING_DATA_DEF;" not in tiling:
        problems.append(f"host_tiling_src must define a TilingData registered for {op}")
    host = fields["host_operator_src"]
    for needle in ("TilingFunc(gert::TilingContext", f"OP_ADD({op});", f'#include "{snake}_tiling.h"',
                   f"class {op} : public OpDef"):
        if needle not in host:
            problems.append(f"host_operator_src lacks `{needle}`")
    if not re.search(rf'extern "C" __global__ __aicore__ void {snake}\(', fields["kernel_src"]):
        problems.append(f"kernel_src has no entry `{snake}`")
    if "GET_TILING_DATA(" not in fields["kernel_src"]:
        problems.append("kernel_src does not read its TilingData (GET_TILING_DATA)")
    bind = fields["python_bind_src"]
    if f"EXEC_NPU_CMD(aclnn{op}," not in bind or "PYBIND11_MODULE(" not in bind:
        problems.append(f"python_bind_src must call aclnn{op} through EXEC_NPU_CMD and define a pybind module")
    try:
        tree = ast.parse(fields["model_src"])
    except SyntaxError as exc:
        return problems + [f"model_src is not Python: {exc.msg} (line {exc.lineno})"]
    if not any(isinstance(c, ast.ClassDef) and c.name == "ModelNew" for c in tree.body):
        problems.append("model_src defines no class ModelNew")
    if f"custom_ops_lib.{snake}" not in fields["model_src"]:
        problems.append(f"model_src does not call custom_ops_lib.{snake}")
    arith = _forward_arithmetic(tree)
    if arith:
        problems.append(f"model_src does arithmetic in forward (lines {arith})")
    return problems


def read_submission(text: str) -> dict[str, str]:
    """The string fields a submission file assigns (without executing it)."""
    fields = {}
    for node in ast.parse(text).body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    fields[t.id] = node.value.value
    return fields
