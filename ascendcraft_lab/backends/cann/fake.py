"""A Python mirror of the custom op for machines without an NPU: schema, fake (meta) kernel, CPU kernel.

The generated `torch/<op>_torch.cpp` registers `ascendcraft::<entry>` with a PrivateUse1 (NPU)
kernel and a Meta kernel. Neither can be built here, so this module registers the same op
from Python with `torch.library`, in its own namespace (default `ascendcraft_fake`, so it never
collides with the real library when that is loaded):

- the schema is `OpSignature.schema()`, and `check_binding_schema` holds it against the
  `m.def(...)` line of the generated C++;
- the fake kernel (`register_fake`) returns empty tensors shaped by the DSL's `Out[...]` dims,
  evaluated from the input shapes (and scalars) exactly as the interpreter does;
- the CPU kernel runs the DSL interpreter, so `torch.library.opcheck` can compare the fake
  kernel's shapes and dtypes with real outputs.

What `check_fake` proves: the schema is valid and matches the generated binding's; for these
inputs, the fake kernel's output shapes/dtypes equal what the kernel's DSL computes; the op
passes torch's custom-op checks (schema, fake tensor, autograd registration, AOT dispatch), so
shape propagation and torch.compile tracing work. What it does NOT prove: that the C++ Meta
function compiles or computes the same shapes (only the schema line is compared), nor anything
about the NPU kernel's numbers.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...dsl import ir
from .signature import OpSignature, schema_in_binding

_REGISTERED: dict[tuple[str, str], "FakeOp"] = {}


@dataclass
class FakeOp:
    namespace: str
    signature: OpSignature
    library: Any          # torch.library.Library; kept alive so the registration stays

    @property
    def qualname(self) -> str:
        return f"{self.namespace}::{self.signature.entry}"

    @property
    def op(self):
        import torch
        return getattr(getattr(torch.ops, self.namespace), self.signature.entry).default


def _torch_dtype(d: ir.DType):
    import torch
    return getattr(torch, d.torch_name)


def register_fake_op(program: ir.Program, *, soc: str | None = None, namespace: str = "ascendcraft_fake",
                     cpu_kernel: bool = True) -> FakeOp:
    """Define `<namespace>::<entry>` with the DSL's schema, a fake kernel and (optionally) a CPU
    kernel that runs the interpreter. Registering the same op twice returns the first."""
    import torch
    sig = OpSignature.of(program)
    key = (namespace, sig.entry)
    if key in _REGISTERED:
        if _REGISTERED[key].signature.schema() != sig.schema():
            raise ValueError(f"{namespace}::{sig.entry} is already registered with another schema")
        return _REGISTERED[key]
    lib = torch.library.Library(namespace, "FRAGMENT")
    lib.define(sig.schema())
    qualname = f"{namespace}::{sig.entry}"

    def split(args):
        tensors = {t.name: a for t, a in zip(sig.inputs, args)}
        scalars = {s.name: a for s, a in zip(sig.scalars, args[len(sig.inputs):])}
        return tensors, scalars

    def fake(*args):
        tensors, scalars = split(args)
        shapes = sig.output_shapes(program, {n: tuple(t.shape) for n, t in tensors.items()}, scalars, soc)
        anchor = next(iter(tensors.values()))
        outs = [anchor.new_empty(shapes[o.name], dtype=_torch_dtype(o.dtype)) for o in sig.outputs]
        return outs[0] if len(outs) == 1 else tuple(outs)

    torch.library.register_fake(qualname, fake, lib=lib)

    if cpu_kernel:
        from ...dsl.interp import run

        def cpu(*args):
            tensors, scalars = split(args)
            inputs = {n: t.detach().float().numpy() if t.dtype == torch.bfloat16 else t.detach().numpy()
                      for n, t in tensors.items()}
            inputs.update(scalars)
            outs = run(program, inputs, soc)
            result = [torch.from_numpy(np.ascontiguousarray(outs[o.name])).to(_torch_dtype(o.dtype))
                      for o in sig.outputs]
            return result[0] if len(result) == 1 else tuple(result)

        lib.impl(sig.entry, cpu, "CPU")
    op = FakeOp(namespace, sig, lib)
    _REGISTERED[key] = op
    return op


def check_binding_schema(program: ir.Program, torch_cpp: str) -> str | None:
    """None when the generated C++ binding defines the DSL's schema; else what differs."""
    want = OpSignature.of(program).schema()
    got = schema_in_binding(torch_cpp)
    if got is None:
        return "the torch binding has no m.def(\"...\") schema"
    return None if got == want else f"the torch binding defines `{got}`, the DSL gives `{want}`"


def sample_args(program: ir.Program, ref, *, device: str = "cpu") -> list:
    """The op's arguments for a reference run (dsl/check.py binding) as torch tensors/numbers."""
    import torch
    from ...reference.bind import bind
    inputs, _ = bind(program, ref)
    sig = OpSignature.of(program)
    args: list = []
    for t in sig.inputs:
        a = np.ascontiguousarray(inputs[t.name])
        args.append(torch.from_numpy(a).to(_torch_dtype(t.dtype)).to(device))
    args += [inputs[s.name] for s in sig.scalars]
    return args


def check_fake(program: ir.Program, args: list, *, soc: str | None = None, namespace: str = "ascendcraft_fake",
               full: bool = True) -> dict:
    """Run torch.library.opcheck on the Python mirror with `args` (CPU tensors and numbers), and
    propagate meta tensors through the fake kernel. Returns what was checked; raises on failure."""
    import torch
    fop = register_fake_op(program, soc=soc, namespace=namespace, cpu_kernel=True)
    tests = ("test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic") if full \
        else ("test_schema", "test_faketensor")
    result = torch.library.opcheck(fop.op, tuple(args), test_utils=tests)
    meta_args = [a.to("meta") if isinstance(a, torch.Tensor) else a for a in args]
    meta_out = fop.op(*meta_args)
    meta_out = list(meta_out) if isinstance(meta_out, (tuple, list)) else [meta_out]
    return {"opcheck": result, "meta_shapes": [tuple(t.shape) for t in meta_out],
            "meta_dtypes": [str(t.dtype) for t in meta_out], "schema": fop.signature.schema()}
