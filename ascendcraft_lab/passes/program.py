"""Lowering a program of kernels: each kernel through the four passes on its own, then the host
code that launches them in order on one stream.

The project of a program keeps each kernel's project as its own lowering writes it, under the
kernel's name (`<kernel>/kernel/...`, `<kernel>/host/...`), and adds `program/<name>_program.cpp`:
`Launch<Name>(stream, dims..., scalars..., tensors...)` allocates the intermediates in GM (zeroed),
then runs each launch statement's tiling function once and copies its tiling struct to the device
(a launch's shapes are the same in every step of a host loop), then calls the kernels'
`Launch<Kernel>` in order, each with a fresh zeroed workspace when it has one; a host loop is a C++
loop, a view `x[s]` a pointer offset. It synchronises the stream once, at the end, and frees what it
allocated.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from ..dsl import ir
from ..dsl.program import arg_text
from ..dsl.program_check import arg_dims, launch_params
from ..dsl.printer import expr_text
from .bundle import Bundle
from .cexpr import HOST, render
from .emit import Emitter
from .host import HEADER_NOTE, dim_args, workspace_bytes_cpp
from .kernel import needs_sync_base
from .manager import Step, run_pipeline
from .plan import Plan, cpp_name, plan_for
from .spec import LowerOptions


@dataclass
class ProgramLowering:
    """One stage list per kernel (`steps[kernel]`) and the program's project."""

    steps: dict[str, list[Step]]
    bundle: Bundle

    @property
    def failed(self) -> list[str]:
        return [k for k, steps in self.steps.items() if not steps or steps[-1].failed]


def kernel_project(project: Bundle, kernel: str) -> Bundle:
    """One kernel's own project out of a program's (its files under `<kernel>/`), with its source maps."""
    prefix = f"{kernel}/"
    return Bundle({p[len(prefix):]: t for p, t in project.files.items() if p.startswith(prefix)},
                  {p[len(prefix):]: m for p, m in project.source_map.items() if p.startswith(prefix)})


def lower_multi(mp: ir.MultiProgram, engine, options: LowerOptions = LowerOptions()) -> ProgramLowering:
    """Every kernel through the pipeline; the project holds each kernel's final bundle and the program."""
    steps = {k.kernel.name: run_pipeline(k, engine, options) for k in mp.kernels}
    files: dict[str, str] = {}
    maps: dict[str, tuple[int, ...]] = {}
    for name, ks in steps.items():
        final = ks[-1].bundle
        for path in final:
            files[f"{name}/{path}"] = final[path]
            maps[f"{name}/{path}"] = final.source_map.get(path, ())
    em = program_source(mp, options)
    files[program_path(mp)] = em.text()
    maps[program_path(mp)] = em.source_map()
    return ProgramLowering(steps, Bundle(files, maps))


def program_path(mp: ir.MultiProgram) -> str:
    return f"program/{mp.name}_program.cpp"


def launch_name(plan: Plan) -> str:
    return f"Launch{plan.tiling_struct[:-len('Tiling')]}"


def program_signature(mp: ir.MultiProgram) -> str:
    """`aclError Launch<Name>(aclrtStream stream, int64_t M, ..., void *x, ...)`: dims, scalars, tensors."""
    iface = mp.interface
    args = ["aclrtStream stream"] + [f"int64_t {cpp_name(d)}" for d in iface.dim_names()]
    args += [f"{'float' if p.dtype.is_float else 'int64_t'} {cpp_name(p.name)}" for p in iface.scalars]
    args += [f"void *{cpp_name(t.name)}" for t in iface.tensors()]
    return f"aclError Launch{camel(mp.name)}({', '.join(args)})"


def program_source(mp: ir.MultiProgram, options: LowerOptions) -> Emitter:
    plans = {k.kernel.name: plan_for(k, options) for k in mp.kernels}
    em = Emitter()
    em.line(f"// Runs the program {mp.name}: {len(list(ir.launches(mp.main.body)))} launches of "
            f"{len(mp.kernels)} kernels, in order on one stream.")
    em.line("// " + HEADER_NOTE.format(src=PurePosixPath(mp.path).name))
    em.line("#include <cstdint>")
    em.line("#include <vector>")
    em.blank()
    em.line('#include "acl/acl.h"')
    for name, plan in plans.items():
        em.line(f'#include "../{name}/{plan.tiling_path}"')
    em.blank()
    em.line("// Each kernel's launch function (<kernel>/host/<kernel>_launch.cpp).")
    for plan in plans.values():
        ret = "aclError" if needs_sync_base(plan.program) else "void"
        gm = ", ".join(["void *"] * (len(plan.program.tensors()) + 2))
        em.line(f"{ret} {launch_name(plan)}(uint32_t blockDim, aclrtStream stream, {gm});")
    em.blank()
    _device_memory(em)
    em.blank()
    em.line("// Every pointer is device memory: the reference's inputs, the Model's parameters and the outputs.")
    with em.block(program_signature(mp)):
        em.line("DeviceMemory gm;")
        for t in mp.interface.workspaces:
            em.line(f"void *{cpp_name(t.name)} = gm.Zeros({bytes_cpp(t.dims, t.dtype)});  // intermediate "
                    f"{t.name} [{', '.join(expr_text(d) for d in t.dims)}]", t.span.line)
        em.line("if (!gm.ok) return ACL_ERROR_BAD_ALLOC;")
        em.line("// Each launch statement's tiling, once: its shapes are the same in every step of a loop.")
        index = {}
        for i, (st, _) in enumerate(ir.launches(mp.main.body)):
            index[id(st)] = i
            _prepare(em, mp, plans[st.kernel], st, i)
        em.line("if (!gm.ok) return ACL_ERROR_BAD_ALLOC;")
        _body(em, mp, plans, mp.main.body, index)
        em.line("return aclrtSynchronizeStream(stream);  // then `gm` frees what the launches used")
    return em


def _device_memory(em: Emitter) -> None:
    em.line("namespace {")
    em.line("    // Device memory the program owns until it returns: intermediates, workspaces, tiling copies.")
    with em.indented():
        with em.block("struct DeviceMemory", "};"):
            em.line("std::vector<void *> blocks;")
            em.line("bool ok = true;")
            em.line("DeviceMemory() = default;")
            em.line("DeviceMemory(const DeviceMemory &) = delete;")
            em.line("DeviceMemory &operator=(const DeviceMemory &) = delete;")
            with em.block("~DeviceMemory()"):
                em.line("for (void *p : blocks) aclrtFree(p);")
            with em.block("void *Zeros(int64_t bytes)"):
                em.line("void *p = nullptr;")
                em.line("const size_t size = static_cast<size_t>(bytes > 0 ? bytes : 32);")
                with em.block("if (aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)"):
                    em.line("ok = false;")
                    em.line("return nullptr;")
                em.line("blocks.push_back(p);")
                em.line("ok = aclrtMemset(p, size, 0, size) == ACL_SUCCESS && ok;")
                em.line("return p;")
            em.line("template <typename T>")
            with em.block("void *Copy(const T &host)"):
                em.line("void *p = Zeros(static_cast<int64_t>(sizeof(T)));")
                em.line("ok = p != nullptr && aclrtMemcpy(p, sizeof(T), &host, sizeof(T), "
                        "ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS && ok;")
                em.line("return p;")
        em.line("// `elements` elements of `bytes` each past `base`: a view of a tensor without its leading axes.")
        with em.block("void *At(void *base, int64_t elements, int64_t bytes)"):
            em.line("return static_cast<uint8_t *>(base) + elements * bytes;")
    em.line("}  // namespace")


def _body(em: Emitter, mp: ir.MultiProgram, plans: dict, body, index: dict) -> None:
    for st in body:
        if isinstance(st, ir.For):
            it = st.iter
            v = cpp_name(st.var)
            head = f"for (int64_t {v} = {host_cpp(it.start)}; {v} < {host_cpp(it.stop)}; {v} += {host_cpp(it.step)})"
            with em.block(head, dsl=st.span.line):
                _body(em, mp, plans, st.body, index)
        else:
            _launch(em, mp, plans[st.kernel], st, index[id(st)])


def _prepare(em: Emitter, mp: ir.MultiProgram, plan: Plan, st: ir.LaunchStmt, i: int) -> None:
    """Launch statement i's tiling struct, block dim and device copy of the struct."""
    source = launch_dims_cpp(mp, plan, st)
    dims = [source[d] for d, _, _ in dim_args(plan)]
    scalars = [host_cpp(a) for a, p in zip(st.args, launch_params(plan.program)) if isinstance(p, ir.ScalarParam)]
    with em.dsl(st.span.line):
        em.line(f"{plan.tiling_struct} tiling{i}{{}};  // DSL {st.span.line}: {st.kernel}")
        em.line(f"const uint32_t blockDim{i} = {plan.tiling_struct}Func({', '.join(dims + scalars + [f'tiling{i}'])});")
        em.line(f"void *tilingDevice{i} = gm.Copy(tiling{i});")


def _launch(em: Emitter, mp: ir.MultiProgram, plan: Plan, st: ir.LaunchStmt, i: int) -> None:
    """Launch statement i: its own zeroed workspace when the kernel has one (a workspace starts at zero)."""
    pairs = list(zip(st.args, launch_params(plan.program)))
    ws = workspace_bytes_cpp(plan.program, launch_dims_cpp(mp, plan, st), f"blockDim{i}")
    ptrs = [pointer_cpp(mp, a) for a, p in pairs if isinstance(p, ir.TensorParam)]
    call = (f"{launch_name(plan)}(blockDim{i}, stream, "
            f"{', '.join(ptrs + ['workspace' if ws else 'nullptr', f'tilingDevice{i}'])})")
    lines = [f"void *workspace = gm.Zeros({ws});", "if (!gm.ok) return ACL_ERROR_BAD_ALLOC;"] if ws else []
    if needs_sync_base(plan.program):
        lines += [f"const aclError status = {call};", "if (status != ACL_SUCCESS) return status;"]
    else:
        lines.append(f"{call};")
    with em.dsl(st.span.line):
        em.line(f"// DSL {st.span.line}: {st.kernel}({', '.join(arg_text(a) for a in st.args)})")
        if len(lines) == 1:
            em.line(lines[0])
            return
        em.line("{")
        with em.indented():
            for line in lines:
                em.line(line)
        em.line("}")


def launch_dims_cpp(mp: ir.MultiProgram, plan: Plan, st: ir.LaunchStmt) -> dict[str, str]:
    """Kernel dim name -> C++ of the program's dims that gives it at this launch."""
    out: dict[str, str] = {}
    for a, p in zip(st.args, launch_params(plan.program)):
        if isinstance(p, ir.TensorParam):
            for d, e in zip(p.dims, arg_dims(mp.tensor(a.tensor), a)):
                if isinstance(d, ir.Name):
                    out.setdefault(d.id, host_cpp(e))
    return out


def pointer_cpp(mp: ir.MultiProgram, a: ir.ArgView, base=None) -> str:
    """C++ of a launch argument's address: the tensor's (`base(name)`, default its name), moved past the
    indexed leading axes by `At(base, elements, bytes)`."""
    t = mp.tensor(a.tensor)
    ptr = base(a.tensor) if base else cpp_name(a.tensor)
    if not a.index:
        return ptr
    terms = []
    for i, e in enumerate(a.index):
        rest = t.dims[i + 1:]
        terms.append(" * ".join([f"({host_cpp(e)})"] + [f"({host_cpp(d)})" for d in rest]))
    return f"At({ptr}, {' + '.join(terms)}, sizeof({t.dtype.cpp}))"


def bytes_cpp(dims, dtype) -> str:
    return " * ".join([f"({host_cpp(d)})" for d in dims] + [f"static_cast<int64_t>(sizeof({dtype.cpp}))"])


def host_cpp(e: ir.Expr) -> str:
    def names(n):
        if isinstance(n, ir.Name):
            return cpp_name(n.id)
        raise ValueError(expr_text(n))
    return render(e, names, HOST)


def camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


__all__ = ["lower_multi", "ProgramLowering", "kernel_project", "program_source", "program_path", "program_signature",
           "launch_name", "camel", "pointer_cpp", "launch_dims_cpp", "host_cpp", "bytes_cpp"]
