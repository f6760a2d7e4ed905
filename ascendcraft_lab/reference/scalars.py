"""Which value of a reference run each scalar parameter of a kernel takes: by name, else by position.

The one binding rule, used by the interpreter check (bind.py), the NPU run and profile and the
exported ModelNew (backends/cann/signature.bind_op_args):

- a scalar whose name is one of forward's parameters takes that argument of the call
  (`def forward(self, x, alpha, beta)` binds `beta: f32` to the third argument, whatever the
  kernel's order);
- else one named like a Model attribute takes it (`self.negative_slope = negative_slope` in
  `__init__`): the get_init_inputs() value it was set from when `__init__`'s parameter of that
  name holds the same number, the attribute itself otherwise (`self.eps = 1e-5`);
- else one named like a parameter of `__init__` takes that value of get_init_inputs();
- the scalars whose names match nothing take, in declaration order, the numbers of get_inputs()
  then of get_init_inputs() that no named scalar took (with no names matching, this is the old
  binding by position: a kernel may declare a prefix of them).

A name matching an argument that is not a number (a tensor, a tuple, a Model parameter), or two
arguments of different values (forward's `alpha` and `self.alpha`), is an error at the parameter.

A plan is a tuple of sources, one per kernel scalar: an int indexes the position list (the
numbers of get_inputs() then of get_init_inputs()), a str names a Model attribute. It is plain
data, so it crosses into the NPU child as JSON and into the exported ModelNew as a literal.
"""
from __future__ import annotations

from ..dsl.errors import DslError
from ..dsl.ir import Program
from .load import ReferenceRun, _is_scalar


def scalar_plan(program: Program, ref: ReferenceRun) -> tuple:
    """One source per scalar of `program` (see the module doc); DslError at the parameter otherwise."""
    def fail(p, msg, help):
        return DslError(msg, p.span, help, program.path, program.source)

    values = list(ref.inputs) + list(ref.init_inputs)
    positions, index = {}, 0                         # value index -> position index (numbers only)
    for i, v in enumerate(values):
        if _is_scalar(v):
            positions[i] = index
            index += 1
    n_inputs = len(ref.inputs)
    forward = {n: i for i, n in enumerate(ref.forward_args) if n}
    init = {n: n_inputs + j for j, n in enumerate(ref.init_args) if n}
    named = ref.named_tensors

    def what(i):
        v = values[i]
        kind = "a tensor" if hasattr(v, "shape") else f"a {type(v).__name__}"
        where = (f"forward argument `{ref.forward_args[i]}`" if i < n_inputs
                 else f"get_init_inputs() value `{ref.init_args[i - n_inputs]}`")
        return f"{where} is {kind}"

    plan: list = [None] * len(program.scalars)
    claimed: dict = {}                               # source -> the scalar that took it
    for k, p in enumerate(program.scalars):
        name = p.name
        if name in named:
            raise fail(p, f"scalar `{name}` is named like the Model's parameter or buffer `{name}`, a tensor",
                       f'read it as a tensor: `{name}: Param[dtype, shape, "{name}"]`, or rename the scalar')
        source = None
        if name in forward:
            i = forward[name]
            if i not in positions:
                raise fail(p, f"scalar `{name}` is named like a forward argument, but {what(i)}",
                           "declare it as a GM[...] tensor parameter, or rename the scalar")
            source = positions[i]
        if name in ref.attrs:
            attr = ref.attrs[name]
            if not _is_scalar(attr):
                raise fail(p, f"scalar `{name}` is named like the Model attribute `self.{name}`, but it is a "
                           f"{attr.get('kind', 'value') if isinstance(attr, dict) else type(attr).__name__}, "
                           "not a number",
                           "a scalar parameter takes a number; rename the scalar")
            same = init.get(name)
            attr_source = positions[same] if same in positions and values[same] == attr else name
            if source is not None and values[forward[name]] != attr:
                raise fail(p, f"scalar `{name}` is named like both forward argument `{name}` and the Model "
                           f"attribute `self.{name}`, which differ ({values[forward[name]]!r} and {attr!r})",
                           "rename the scalar or the reference's argument so one name means one value")
            source = attr_source if source is None else source
        elif name in init:
            i = init[name]
            if i not in positions:
                raise fail(p, f"scalar `{name}` is named like a Model.__init__ argument, but {what(i)}",
                           "a scalar parameter takes a number; rename the scalar")
            if source is not None and values[forward[name]] != values[i]:
                raise fail(p, f"scalar `{name}` is named like both forward argument `{name}` and the Model.__init__ "
                           f"argument `{name}`, which differ ({values[forward[name]]!r} and {values[i]!r})",
                           "rename the scalar or the reference's argument so one name means one value")
            source = positions[i] if source is None else source
        if source is None:
            continue
        if source in claimed:
            raise fail(p, f"scalars `{claimed[source]}` and `{name}` both bind to one argument of the reference",
                       "give each scalar the name of a different forward or Model argument")
        claimed[source] = name
        plan[k] = source
    free = [i for i in range(index) if i not in claimed]
    by_position = [k for k, s in enumerate(plan) if s is None]
    if len(by_position) > len(free):
        p = program.scalars[by_position[len(free)]]
        numbers = [v for v in values if _is_scalar(v)]
        raise fail(p, f"kernel declares {len(program.scalars)} scalars but the reference gives {len(numbers)} "
                   f"({', '.join(map(repr, numbers)) or 'none'})"
                   + (f" and `{p.name}` names none of its arguments" if claimed or forward or init else ""),
                   "a scalar binds by name to a forward argument or Model attribute, else in order to the "
                   "numbers of get_inputs() then get_init_inputs()")
    for k, i in zip(by_position, free):
        plan[k] = i
    return tuple(plan)


def scalar_args(plan, inputs, init_inputs, model=None):
    """The scalar arguments of one call: `plan` (scalar_plan's tuple, or an int n for the first n
    by position) applied to the forward inputs, get_init_inputs() and the Model (its attributes).
    Self-contained: the exported ModelNew carries its source."""
    numbers = [v for v in [*inputs, *init_inputs] if isinstance(v, (bool, int, float))]
    if isinstance(plan, int):
        return numbers[:plan]
    return [numbers[s] if isinstance(s, int) else getattr(model, s) for s in plan]


def unbound_numbers(program: Program, ref: ReferenceRun) -> list[int]:
    """The forward arguments of `ref` (positions) holding a number (not a bool) that no scalar of
    `program` takes: numbers the draft read as constants when it was made (a `dim`, a `k`, a size),
    so a case passing another value needs a draft of its own. Every number when the kernel's
    scalars do not bind to `ref` at all (their own error, reported where the kernel runs)."""
    numbers = [j for j, v in enumerate(ref.inputs) if _is_scalar(v)]
    try:
        taken = {s for s in scalar_plan(program, ref) if isinstance(s, int)}
    except DslError:
        taken = set()
    return [j for k, j in enumerate(numbers) if k not in taken and not isinstance(ref.inputs[j], bool)]
