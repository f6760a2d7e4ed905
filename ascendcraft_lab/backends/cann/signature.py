"""The custom op as PyTorch sees it: its schema, its arguments and its output shapes, from the DSL.

One source for every place that calls the op: the torch.library schema (it must equal the
`m.def(...)` line of the generated `torch/<op>_torch.cpp`), the fake (meta) implementation,
the NPU run, and the `ModelNew` of the MultiKernelBench export. The argument order is the
kernel's binding order (dsl/check.py): input tensors, then Model parameters, then scalars.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ...dsl import ir
from ...dsl.host import bind_dims, output_shape
from ...reference.scalars import scalar_args
from ...soc import get_soc


@dataclass(frozen=True)
class OpSignature:
    entry: str
    inputs: tuple[ir.TensorParam, ...]      # GM inputs then Param[...] tensors
    scalars: tuple[ir.ScalarParam, ...]
    outputs: tuple[ir.TensorParam, ...]

    @classmethod
    def of(cls, program: ir.Program) -> "OpSignature":
        return cls(program.kernel.name, tuple(program.inputs + program.model_params), tuple(program.scalars),
                   tuple(program.outputs))

    @property
    def params(self) -> tuple[ir.TensorParam, ...]:
        return tuple(t for t in self.inputs if t.role is ir.TensorRole.param)

    def schema(self) -> str:
        """`gelu(Tensor x) -> Tensor`: the schema the generated C++ binding defines."""
        args = [f"Tensor {t.name}" for t in self.inputs]
        args += [f"{'float' if s.dtype.is_float else 'int'} {s.name}" for s in self.scalars]
        ret = "Tensor" if len(self.outputs) == 1 else "(" + ", ".join(["Tensor"] * len(self.outputs)) + ")"
        return f"{self.entry}({', '.join(args)}) -> {ret}"

    def output_shapes(self, program: ir.Program, input_shapes: dict[str, tuple[int, ...]],
                      scalars: dict[str, float] | None = None, soc: str | None = None) -> dict[str, tuple[int, ...]]:
        """Each output's shape for concrete input shapes (by param name): the DSL's Out dims evaluated."""
        env: dict = dict(bind_dims(program, input_shapes))
        env.update(scalars or {})
        s = get_soc(soc)
        return {o.name: output_shape(program, o, env, s) for o in self.outputs}


def bind_op_args(inputs, init_scalars, params, scalars, model=None):
    """The op's arguments for one reference forward call, in the binding order of dsl/check.py:
    the tensors of `inputs`, the Model parameters, then the scalars as `scalars` binds them
    (reference/scalars.py: a plan of sources, or an int n for the first n numbers of `inputs`
    followed by those of get_init_inputs(), `init_scalars`); `model` serves attribute sources."""
    tensors = [v for v in inputs if hasattr(v, "shape")]
    return [*tensors, *params, *scalar_args(scalars, inputs, init_scalars, model)]


def model_new_builds_reference(program: ir.Program, scalar_plan=None) -> bool:
    """Whether the exported ModelNew builds a copy of the reference Model in its __init__ (to own the
    parameters the kernel reads, or the attributes a scalar comes from; export/common.py). Under
    MultiKernelBench's protocol that construction follows the second torch.manual_seed and comes before
    the input draws, so it moves the random stream the inputs are drawn from."""
    return bool(program.model_params) or any(isinstance(s, str) for s in scalar_plan or ())


_DEF_RE = re.compile(r'm\.def\("(?P<schema>[^"]+)"\)')


def schema_in_binding(torch_cpp: str) -> str | None:
    """The schema string of the first `m.def("...")` in a generated torch binding, if any."""
    m = _DEF_RE.search(torch_cpp)
    return m["schema"] if m else None
