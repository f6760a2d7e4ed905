"""What every export format needs from a session: the program, the plan, the project's sources,
and the pieces of those sources the formats reuse verbatim.

The exports never recompute a kernel: the kernel class, the tiling struct and the tiling
function are cut out of the session's final project (`ascendc/`) and placed in the target
format's files; only the glue around them (kernel entry, host registration, bindings, Python
model) is written here. So an exported kernel is the kernel the emulator verified.
"""
from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from pathlib import Path

from ..backends.cann.signature import bind_op_args, model_new_builds_reference
from ..dsl.errors import DslError
from ..dsl import ir
from ..dsl.host import needs_workspace
from ..engines.rule import render as render_bundle
from ..passes.bundle import Bundle, read_bundle
from ..passes.cexpr import HOST, render
from ..passes.host import dim_args
from ..passes.pipeline import PIPELINE
from ..passes.plan import Plan, camel, cpp_name, plan_for
from ..passes.spec import LowerOptions
from ..reference import ReferenceError, load_reference
from ..reference.scalars import scalar_args, scalar_plan
from ..session.folder import SessionFolder
from ..session.lower import load_dsl
from ..soc import get_soc


class ExportError(Exception):
    """The session cannot be exported; the message says why in one sentence."""


@dataclass(frozen=True)
class ExportSource:
    program: ir.Program
    plan: Plan
    bundle: Bundle
    op: str                        # the benchmark problem name (MultiKernelBench: the reference's file stem)
    reference_source: str | None   # the PyTorch reference, when the session has one
    scalar_plan: tuple | None = None   # how the scalars bind to a reference call (reference/scalars.py)

    @property
    def soc(self):
        return self.plan.soc


def load_session(folder: str | Path, *, op: str | None = None, soc: str | None = None) -> ExportSource:
    """The final project of a lowered session folder (`ascendcraft lower` output)."""
    session = SessionFolder(folder)
    if not session.exists():
        raise ExportError(f"{folder} is not a session folder (no ascendcraft.json)")
    manifest = session.manifest()
    soc_name = soc or manifest.get("soc")
    project = session.path / "ascendc"
    bundle = read_bundle(project) if project.is_dir() else session.read_stage("align")
    if bundle is None or not bundle.files:
        raise ExportError(f"{folder} has not been lowered through pass 4 (align); run `ascendcraft lower` first")
    program = load_dsl(session.dsl_path().read_text(), str(session.dsl_path()), soc_name)
    ref = session.path / "reference.py"
    return _source(program, bundle, soc_name, op, ref if ref.is_file() else None)


def load_dsl_file(path: str | Path, *, reference: str | Path | None = None, op: str | None = None,
                  soc: str | None = None) -> ExportSource:
    """A DSL file lowered on the fly by the rule engine (no session needed)."""
    text = Path(path).read_text()
    soc_name = get_soc(soc).name
    program = load_dsl(text, str(path), soc_name)
    bundle = render_bundle(program, LowerOptions(soc=soc_name), len(PIPELINE))
    return _source(program, bundle, soc_name, op, Path(reference) if reference else None)


def _scalar_plan(program: ir.Program, reference: Path | None) -> tuple | None:
    """The kernel's scalar binding, from one run of the reference (the names of its arguments);
    None (by position) for a kernel without scalars or without a reference."""
    if not program.scalars or reference is None:
        return None
    try:
        return scalar_plan(program, load_reference(reference))
    except ReferenceError as exc:
        raise ExportError(f"the reference cannot run, so the scalars cannot be bound: {exc}") from None
    except DslError as exc:
        raise ExportError(exc.render()) from None


def _source(program: ir.Program, bundle: Bundle, soc: str | None, op: str | None,
            reference: Path | None) -> ExportSource:
    plan = plan_for(program, LowerOptions(soc=get_soc(soc).name))
    for p in (plan.kernel_path, plan.tiling_path, plan.tiling_impl_path):
        if p not in bundle.files:
            raise ExportError(f"the project has no {p}")
    name = op or program.kernel.name
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        suggestion = re.sub(r"_+", "_", re.sub(r"[^a-z0-9_]", "_", name.lower())).strip("_")
        suggestion = re.sub(r"_(?=\d)", "", suggestion)        # k_1_relu would come back from C++ as k1_relu
        suggestion = suggestion if re.fullmatch(r"[a-z][a-z0-9_]*", suggestion) else "my_op"
        hint = "the kernel's name" if op is None else "--op"
        raise ExportError(f"op name {name!r} ({hint}) must be lower_snake_case (MultiKernelBench derives the C++ "
                          f"names from it): pass --op with the problem's name, e.g. --op {suggestion}")
    return ExportSource(program, plan, bundle, name, reference.read_text() if reference else None,
                        _scalar_plan(program, reference))


# ----------------------------------------------------------------------------- pieces of the project


def split_kernel(src: ExportSource) -> tuple[str, str]:
    """The kernel file cut at its entry: (everything before `extern "C" ... <entry>(`, the entry)."""
    text = src.bundle[src.plan.kernel_path]
    m = re.search(rf'^extern "C" __global__ __aicore__ void {re.escape(src.plan.entry)}\(', text, re.M)
    if m is None:
        raise ExportError(f"{src.plan.kernel_path} has no "
                          f"`extern \"C\" __global__ __aicore__ void {src.plan.entry}(` entry (was it edited?)")
    return text[:m.start()], text[m.start():]


def kernel_class_text(src: ExportSource) -> str:
    """From `class Kernel...` to the end of its definition: the part every export keeps verbatim."""
    before, _ = split_kernel(src)
    start = before.find(f"class {src.plan.cls}")
    if start < 0:
        raise ExportError(f"{src.plan.kernel_path} has no class {src.plan.cls}")
    return before[start:].rstrip() + "\n"


def tiling_struct_text(src: ExportSource) -> str:
    """`struct <Op>Tiling { ... };` as the tiling header defines it."""
    text = src.bundle[src.plan.tiling_path]
    m = re.search(rf"^struct {re.escape(src.plan.tiling_struct)} \{{.*?^\}};\n", text, re.M | re.S)
    if m is None:
        raise ExportError(f"{src.plan.tiling_path} has no `struct {src.plan.tiling_struct}`")
    return m.group(0)


def tiling_function_text(src: ExportSource) -> str:
    """The tiling source without its #include lines: SoC constants, helpers and the tiling function."""
    lines = src.bundle[src.plan.tiling_impl_path].splitlines()
    text = "\n".join(l for l in lines if not l.startswith("#include")).strip()
    return re.sub(r"\n{3,}", "\n\n", text) + "\n"


def tiling_function_only(src: ExportSource) -> str:
    """Just `uint32_t <Struct>Func(...) { ... }` from the tiling source."""
    text = src.bundle[src.plan.tiling_impl_path]
    m = re.search(rf"^uint32_t {re.escape(src.plan.tiling_struct)}Func\(.*?^\}}\n", text, re.M | re.S)
    if m is None:
        raise ExportError(f"{src.plan.tiling_impl_path} has no {src.plan.tiling_struct}Func")
    return m.group(0)


def init_call(src: ExportSource, tiling_var: str) -> str:
    """`op.Init(x, y, [workspace,] <tiling_var>);` as the session's entry calls it (GM params in
    kernel order, then the launch's workspace when the kernel has Workspace tensors or syncs)."""
    gm = [cpp_name(t.name) for t in src.program.tensors()] + (["workspace"] if needs_workspace(src.program) else [])
    return f"op.Init({', '.join(gm + [tiling_var])});"


def op_order(src: ExportSource) -> list[ir.TensorParam]:
    """Tensors in the order an op registration declares them: inputs, Model parameters, outputs."""
    p = src.program
    return p.inputs + p.model_params + p.outputs


def accumulated_outputs(program: ir.Program) -> set[str]:
    return {s.dst.tensor for s, _ in ir.walk_stmts(program.kernel.body) if isinstance(s, ir.Store) and s.accumulate}


def check_names(src: ExportSource) -> None:
    """Kernel arguments of the exports are GM params (and `workspace`) plus tiling fields: they must not collide."""
    gm = {cpp_name(t.name) for t in src.program.tensors()} | ({"workspace"} if needs_workspace(src.program) else set())
    clash = sorted(gm & {f.name for f in src.plan.tiling_fields})
    if clash:
        raise ExportError(f"tiling field(s) {', '.join(clash)} share a name with a tensor parameter; "
                          "rename one in the DSL")


# ----------------------------------------------------------------------------- shapes in C++


def dim_sources(src: ExportSource, size_of) -> list[tuple[str, str]]:
    """(dim name, C++ reading it) for every named dim; `size_of(tensor_index, tensor, axis)` spells the read.
    The index is the tensor's position in `op_order` (inputs and parameters only)."""
    order = [t.name for t in op_order(src)]
    out = []
    for d, t, axis in dim_args(src.plan):
        tp = src.program.param(t)
        if tp is None or tp.role is ir.TensorRole.output:
            raise ExportError(f"dim {d} is only known from output `{t}`; the op cannot infer it from its inputs")
        out.append((d, size_of(order.index(t), cpp_name(t), axis)))
    return out


def shape_exprs(t: ir.TensorParam, scalar_names: dict[str, str] | None = None) -> list[str]:
    """C++ for each dim of `t`, in terms of local variables named after the dims (and scalars)."""
    scalar_names = scalar_names or {}

    def names(e):
        if isinstance(e, ir.Name):
            return scalar_names.get(e.id, cpp_name(e.id))
        raise ExportError(f"dim `{e}` of `{t.name}` cannot be written in C++")
    return [render(d, names, HOST) for d in t.dims]


AT_DTYPE = {d.value: d.aten for d in ir.DType}


def output_allocations(src: ExportSource, anchor: str) -> list[str]:
    """`at::Tensor y = at::empty({B, N}, x.options().dtype(at::kFloat));` per output; outputs the
    kernel accumulates into start at zero, as in the generated torch binding."""
    acc = accumulated_outputs(src.program)
    lines = []
    for o in src.program.outputs:
        alloc = "at::zeros" if o.name in acc else "at::empty"
        dims = ", ".join(shape_exprs(o))
        dtype = f"at::k{AT_DTYPE[o.dtype.value]}"
        lines.append(f"at::Tensor {cpp_name(o.name)} = {alloc}({{{dims}}}, {anchor}.options().dtype({dtype}));")
    return lines


def return_outputs(outs: list[ir.TensorParam]) -> str:
    """The binding's `return y;`, or `return {y, z};` for several outputs."""
    names = [cpp_name(o.name) for o in outs]
    return f"    return {names[0] if len(names) == 1 else '{' + ', '.join(names) + '}'};"


def pascal(snake: str) -> str:
    return camel(snake)


# ----------------------------------------------------------------------------- Python text


def py_string(text: str) -> str:
    """A Python literal for `text`, as a readable triple-quoted raw string when that is exact."""
    for q in ("'''", '"""'):
        if q not in text and not text.endswith(q[0]) and not text.endswith("\\"):
            return f"r{q}{text}{q}"
    return repr(text)


def py_lines(text: str, indent: str = "    ") -> str:
    """A Python expression rebuilding `text` line by line (keeps a file's quotes out of the
    enclosing source, so that source can itself be embedded as one triple-quoted string)."""
    body = "\n".join(f"{indent}{line!r}," for line in text.splitlines())
    return f'"\\n".join([\n{body}\n{indent}"",\n])'


def model_new_source(src: ExportSource, *, module_import: str, call: str, header: str = "") -> str:
    """`class ModelNew(nn.Module)` calling the custom op `call` (e.g. `custom_ops_lib.gelu_custom`).

    With no scalars and no Model parameters, forward takes the DSL's input tensors by name.
    Otherwise it binds arguments as dsl/check.py does (tensors of forward's inputs, the Model's
    parameters, then the scalars by the session's scalar plan, reference/scalars.py: by name or
    by position over forward's inputs and get_init_inputs()); the parameters (and attributes a
    scalar reads) are owned by a copy of the reference Model built in __init__, which MultiKernelBench seeds like
    the reference, so the weights are equal. forward does no tensor arithmetic of its own
    (MultiKernelBench's cheating check rejects that).
    """
    p = src.program
    lines = [header.rstrip()] if header else []
    lines += ["import torch", "import torch.nn as nn"] + module_import.strip().splitlines()
    simple = not p.scalars and not p.model_params
    if simple:
        names = ", ".join(t.name for t in p.inputs)
        lines += ["", "", "class ModelNew(nn.Module):",
                  f'    """`{p.kernel.name}` as an AscendC kernel generated by AscendCraft Lab."""', "",
                  "    def __init__(self, *init_inputs) -> None:", "        super().__init__()", "",
                  f"    def forward(self, {names}):", f"        return {call}({names})", ""]
        return "\n".join(lines)
    plan = len(p.scalars) if src.scalar_plan is None else src.scalar_plan
    needs_model = model_new_builds_reference(p, src.scalar_plan)
    if needs_model and src.reference_source is None:
        raise ExportError("the kernel reads Model parameters or attributes, so the export needs the session's "
                          "reference.py")
    lines += ["", "", inspect.getsource(scalar_args).rstrip(), "", "", inspect.getsource(bind_op_args).rstrip()]
    if needs_model:
        lines += ["", "", f"_REFERENCE_SOURCE = {py_lines(src.reference_source)}", "", "",
                  "def _reference_model(*init_inputs):",
                  '    """The reference Model, built to own the parameters the kernel reads '
                  '(same seed, same weights)."""',
                  '    namespace = {"__name__": "reference"}',
                  "    exec(_REFERENCE_SOURCE, namespace)",
                  '    return namespace["Model"](*init_inputs)']
    if p.model_params:
        lines += ["", "", "def _model_tensor(model, name):",
                  "    found = dict(model.named_buffers())",
                  "    found.update(dict(model.named_parameters()))",
                  "    return found[name]"]
    lines += ["", "", "class ModelNew(nn.Module):",
              f'    """`{p.kernel.name}` as an AscendC kernel generated by AscendCraft Lab."""', "",
              "    def __init__(self, *init_inputs) -> None:", "        super().__init__()",
              "        self.init_scalars = [v for v in init_inputs if isinstance(v, (bool, int, float))]"]
    if needs_model:
        lines.append("        self.reference = _reference_model(*init_inputs)")
    lines += ["", "    def forward(self, *inputs):"]
    params = ", ".join(f"_model_tensor(self.reference, {t.param_name!r})" for t in p.model_params)
    lines.append(f"        params = [{params}]")
    model = ", self.reference" if needs_model else ""
    lines.append(f"        return {call}(*bind_op_args(inputs, self.init_scalars, params, {plan!r}{model}))")
    return "\n".join(lines) + "\n"
