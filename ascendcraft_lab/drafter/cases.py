"""One draft for every case of an NPUKernelBench reference: generic over the dtypes and ranks of its cases.

The drafter proper (draft.py) drafts one traced input set: concrete dtypes, one rank. A
reference in NPUKernelBench format has tens of cases: float32 / float16 / bfloat16, 0-d to
5-d, empty and huge. `generalize` turns the concrete draft into the one kernel that serves them:

- dtypes: the tensors whose dtype changes from case to case (in step with each other) are
  declared with a type variable, `@kernel(T=(f32, f16, bf16, i32))` (float32 first, then the
  half types, then the integers); the f16/bf16 variants compute in f32, the integer ones in
  their own type, and a variant whose operations the vector unit lacks for its dtype fails
  its own cases only (dsl/generic.py);
- ranks: a view that flattens a tensor (`((B, M, N),)`, the map template) or its leading axes
  (`((B, M), N)`, a row template) becomes a dim pack, `(*S,)` or `(*S, N)`, and every product
  of those dims in the host function and the kernel becomes `S`: the host function then sizes
  the launch for whatever rank a case has. A flat view whose leading dims are another tensor's
  run (a windows reduction: x `((B, M, N),)`, y `((B, M),)`) packs those, `((*S, N),)`. A view whose dims are
  also used one by one is left
  as it is (its cases of another rank then fail to bind, one line each).

Attributes the draft takes as constants (a reduction's `dim`, `approximate="tanh"`) keep the
traced case's value; the bench drafts once per value of the string, bool, None and list arguments
(`bench/worker.attribute_groups`: `approximate="none"` cases get their own draft) and of the numbers
a draft reads as constants rather than as kernel scalars (`bench/worker.SplitByConstants`: a `dim`).
`live` (the tile budget) is raised until every variant's UB plan
fits, on the traced shapes and on shapes 64 times larger.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..dsl.errors import DslError
from ..dsl.generic import instantiate, variants
from ..dsl.ir import Call, Const, DType, Expr, Name, Pack, Program, TensorParam, map_exprs, walk
from ..dsl.parser import parse
from ..dsl.printer import print_program
from ..dsl.verifier import verify
from ..reference import bind

TORCH_TO_DSL = {d.torch_name: d for d in DType}
FLOAT_ORDER = (DType.f32, DType.f16, DType.bf16)
# The order of T's dtypes (the first is the variant the passes lower): float32 first, then the
# half types, then the integers. bool is a mask, never T.
T_ORDER = FLOAT_ORDER + (DType.i32, DType.i16, DType.i8, DType.u8, DType.i64)


def case_signature(case) -> dict:
    """What generalize needs of one case: tensor input dtypes and ranks, output dtypes."""
    return {"inputs": list(case.dtypes), "ranks": [len(v.shape) for v in case.tensor_inputs],
            "outputs": [str(d) for d in case.output_dtypes]}


def broadcast_pattern(shapes) -> tuple:
    """How the tensor shapes of one case broadcast against each other, rank-free: per axis of the
    broadcast shape that is not 1, each tensor full there (`F`), of size 1 (`1`) or without the
    axis (`-`), runs of equal axes folded into one; `()` when every tensor has one shape (or there
    is no broadcast to speak of). Cases of one pattern can share a draft (dim packs cover their
    ranks); cases of another pattern need a draft of their own (bench/worker.py regroups them)."""
    shapes = [tuple(s) for s in shapes]
    if len(set(shapes)) <= 1:
        return ()
    try:
        out = np.broadcast_shapes(*shapes)
    except ValueError:
        return ("no broadcast",)
    rank = len(out)
    cols: list[tuple] = []
    for a in range(rank):
        if out[a] == 1:
            continue
        col = tuple("-" if a < rank - len(s) else "F" if s[a - rank + len(s)] == out[a] else "1" for s in shapes)
        if not cols or cols[-1] != col:
            cols.append(col)
    return () if all(set(c) == {"F"} for c in cols) else tuple(cols)


def generalize(text: str, cases: list[dict], path: str = "kernel.dsl.py") -> tuple[str, list[str]]:
    """The concrete draft `text` made generic over the dtypes and ranks of `cases`
    (`case_signature` dicts); returns (text, notes)."""
    program = parse(text, path)
    notes: list[str] = []
    packed = _packs(program)
    if packed is not program:
        notes.append("dims packed: " + ", ".join(f"`{_dims(p)}`" for p in packed.tensors() if p.packs) +
                     " (any rank)")
    program = packed
    typed, why = _type_variable(program, cases)
    if typed is not program:
        notes.append(f"generic over T in ({', '.join(d.value for d in dict(typed.generics)['T'])})")
    elif why:
        notes.append(why)
    return print_program(typed), notes


def fit_live(text: str, shapes_list: list[tuple[dict, dict]], soc=None, path: str = "kernel.dsl.py",
             limit: int = 48) -> str:
    """Raise `live` in the host's ub_elems(...) calls until every variant verifies on every
    (shapes, scalars) given; the text unchanged when it already does (or nothing helps)."""
    def fits(t: str) -> bool:
        prog = parse(t, path)
        for b in variants(prog):
            try:
                v = instantiate(prog, b)
            except DslError:
                continue        # an operation this variant does not serve (int8 add) is its cases' failure, not live's
            for shapes, scalars in shapes_list:
                try:
                    verify(v, soc, shapes=shapes, scalars=scalars)
                except DslError as e:
                    if "UB" in e.message and ("over the" in e.message or "exceeds" in e.message):
                        return False
                    # other errors (a shape this kernel does not serve) are the case's, not live's
        return True
    if fits(text):
        return text
    program = parse(text, path)
    for extra in range(1, limit):
        bumped = print_program(_bump_live(program, extra))
        if fits(bumped):
            return bumped
    return text


def largest_cases(text: str, runs: list) -> list:
    """(shapes, scalars) of the two largest cases of each variant: what the tile budget must fit."""
    program = parse(text, "kernel.dsl.py")
    out = []
    for b in variants(program):
        try:
            v = instantiate(program, b)
        except DslError:
            continue            # a variant that does not instantiate fails its own cases, with its error
        bound = []
        for r in runs:
            try:
                inputs, _ = bind(v, r)
            except DslError:
                continue
            shapes = {n: np.shape(a) for n, a in inputs.items() if isinstance(a, np.ndarray)}
            size = sum(int(np.prod(s)) for s in shapes.values())
            bound.append((size, shapes, {p.name: inputs[p.name] for p in v.scalars}))
        bound.sort(key=lambda x: -x[0])
        out += [(s, sc) for _, s, sc in bound[:2]]
    return out


def _bump_live(program: Program, extra: int) -> Program:
    def fn(e: Expr) -> Expr:
        if isinstance(e, Call) and e.op == "ub_elems" and isinstance(e.args[1], Const):
            return replace(e, args=(e.args[0], Const(int(e.args[1].value) + extra, "int"), *e.args[2:]))
        return e
    return replace(program, host=map_exprs(program.host, fn))


# ----------------------------------------------------------------------------- ranks
def _dims(p: TensorParam) -> str:
    from ..dsl.printer import shape_text
    return f"{p.name}: {shape_text(p.groups)}"


def _packs(program: Program) -> Program:
    """Flattened dims -> one dim pack each (see the module docstring); the program itself when
    the draft's views cannot be generalized safely."""
    runs = _pack_runs(program)
    if not runs:
        return program
    taken = {n.id for n in walk(program) if isinstance(n, Name)}
    names = {}
    for ids in runs:
        base = "S" if len(runs) == 1 else f"S{len(names)}"
        name, i = base, 1
        while name in taken:
            name, i = f"{base}{i}", i + 1
        taken.add(name)
        names[ids] = name

    def sub(e):
        return _substitute(e, names)

    def param(p):
        return _packed_param(p, names)

    host = replace(program.host, params=tuple(param(p) for p in program.host.params),
                   body=tuple(replace(s, value=sub(s.value)) for s in program.host.body),
                   launch=replace(program.host.launch, cores=sub(program.host.launch.cores),
                                  fields=tuple(replace(f, value=sub(f.value)) for f in program.host.launch.fields)))
    kernel = replace(program.kernel, params=tuple(param(p) for p in program.kernel.params),
                     body=_sub_body(program.kernel.body, names))
    out = replace(program, host=host, kernel=kernel)
    gone = {i for ids in runs for i in ids} - set(names.values())
    left = {n.id for n in walk(out) if type(n) is Name and n.id in gone}
    if left:
        return program              # a packed dim is also used on its own: keep the concrete views
    try:
        return parse(print_program(out), program.path)
    except DslError:
        return program


def _pack_runs(program: Program) -> list[tuple[str, ...]] | None:
    """The runs of dims that become packs, each a tuple of dim names; None when a view cannot be
    generalized (a dim that is not a name, runs that overlap)."""
    runs: list[tuple[str, ...]] = []
    scalars = {p.name for p in program.scalars}
    # the row length of a rows view ((B, M), N): a tensor of one row, (N,) (a bias, a weight), is
    # read along it and packs nothing
    row_dims = {p.groups[1][0].id for p in program.tensors()
                if len(p.groups) == 2 and len(p.groups[1]) == 1 and type(p.groups[1][0]) is Name}
    for p in program.tensors():
        if p.groups and all(type(d) is Name and d.id in scalars for g in p.groups for d in g):
            continue                                  # sized by scalars alone (histc's (bins,)): no input dims
        if all(isinstance(d, Const) and d.value == 1 for g in p.groups for d in g):
            continue                                  # one element ((1,), ((1, 1),)): the same at any rank
        if len(p.groups) == 1 and len(p.groups[0]) == 1 and type(p.groups[0][0]) is Name \
                and p.groups[0][0].id in row_dims:
            continue
        if len(p.groups) == 1 and len(p.groups[0]) >= 1:
            run = p.groups[0]                         # ((B, M, N),) or (N,): the whole tensor
            while len(run) > 1 and isinstance(run[-1], Const) and run[-1].value == 1:
                run = run[:-1]                        # ((B, M, 1),): a keepdim reduction's rows
        elif len(p.groups) == 2 and len(p.groups[1]) == 1:
            run = p.groups[0]                         # ((B, M), N) or (B, N): the rows
        else:
            return None
        if not all(type(d) is Name for d in run):
            return None
        ids = tuple(d.id for d in run)
        if ids not in runs:
            runs.append(ids)
    # a run that another one starts (x `((B, M, N),)` read as windows of N, y `((B, M),)`): the
    # leading dims are the pack, the rest stay, `((*S, N),)`
    runs = list(dict.fromkeys(next((r for r in runs if len(r) < len(run) and run[:len(r)] == r), run)
                              for run in runs))
    if not runs or any(set(a) & set(b) for i, a in enumerate(runs) for b in runs[i + 1:]):
        return None
    return runs


def _packed_param(p, names: dict):
    """A tensor parameter with its run of dims replaced by the pack's name (`names`: run -> name)."""
    if not isinstance(p, TensorParam) or not p.groups:     # a 0-d tensor (kthvalue of a vector) packs nothing
        return p
    groups = list(p.groups)
    flat = tuple(d.id if type(d) is Name else None for d in p.dims)
    for ids, name in names.items():
        lead = tuple(d.id if type(d) is Name else None for d in groups[0])
        if len(groups) <= 2 and lead == ids:
            groups[0] = (Pack(name),)
            break
        if len(groups) == 1 and lead[:len(ids)] == ids:
            groups[0] = (Pack(name), *groups[0][len(ids):])
            break
        # a host parameter lists every dim as its own group: find the run among them
        for start in range(len(flat) - len(ids) + 1):
            if flat[start:start + len(ids)] == ids and all(len(g) == 1 for g in groups):
                groups = groups[:start] + [(Pack(name),)] + groups[start + len(ids):]
                flat = flat[:start] + (None,) + flat[start + len(ids):]
                break
    return replace(p, groups=tuple(tuple(_substitute(d, names) if not isinstance(d, Pack) else d for d in g)
                                   for g in groups))


def _leaves(e: Expr):
    if isinstance(e, Call) and e.op == "mul":
        return _leaves(e.args[0]) + _leaves(e.args[1])
    return [e]


def _substitute(e: Expr, names: dict) -> Expr:
    if isinstance(e, Call) and e.op == "mul" or type(e) is Name:
        leaves = tuple(x.id if type(x) is Name else None for x in _leaves(e))
        if leaves in names:
            return Name(names[leaves], span=e.span)
    if isinstance(e, Call):
        args = tuple(_substitute(a, names) for a in e.args)
        return replace(e, args=args) if args != e.args else e
    return e


def _sub_body(body, names):
    """Every expression of the kernel body with the packed products replaced (outermost first)."""
    from dataclasses import fields, is_dataclass

    def go(node):
        if isinstance(node, tuple):
            return tuple(go(x) for x in node)
        if isinstance(node, Expr):
            return _substitute(node, names) if not isinstance(node, Pack) else node
        if not is_dataclass(node):
            return node
        changes = {}
        for f in fields(node):
            if f.name in ("span", "type", "locals"):
                continue
            v = getattr(node, f.name)
            nv = go(v)
            if nv is not v:
                changes[f.name] = nv
        return replace(node, **changes) if changes else node
    return go(body)


# ----------------------------------------------------------------------------- dtypes
def _type_variable(program: Program, cases: list[dict]) -> tuple[Program, str]:
    """Tensors whose dtype follows the cases' float dtype -> declared with T; (program, why not)."""
    if not cases:
        return program, ""
    ins = program.inputs
    outs = program.results          # a row count is i64 in every case
    per_case = []
    for c in cases:
        dts = [TORCH_TO_DSL.get(d) for d in c["inputs"]] + [TORCH_TO_DSL.get(d) for d in c["outputs"]]
        if len(c["inputs"]) != len(ins) or len(c["outputs"]) != len(outs):
            return program, ""
        per_case.append(dts)
    params = ins + outs
    seen = [list(dict.fromkeys(row[i] for row in per_case)) for i in range(len(params))]
    # varying across the cases, or one dtype in every case other than the traced one (a float16 or an
    # integer group traced in float32)
    varying = [i for i, s in enumerate(seen) if len(s) > 1 or
               (s[0] is not None and getattr(params[i], "dtype", s[0]) != s[0])]
    if not varying:
        return program, ""
    if any(d is None or d not in T_ORDER for i in varying for d in seen[i]):
        return program, ("the cases' dtypes are not all numeric (a bool that varies is a mask): the draft keeps the "
                        "traced ones")
    # every varying tensor must have the same dtype within each case
    for row in per_case:
        if len({row[i] for i in varying}) != 1:
            return program, "the cases mix dtypes between tensors: the draft keeps the traced ones"
    # the tensors declared T: the varying ones, and a fixed one whose dtype equals T in every case
    t_params = {params[i].name for i in varying}
    choices = list(dict.fromkeys(d for row in per_case for d in [row[varying[0]]]))
    traced = params[varying[0]].dtype
    if traced not in choices:
        choices.append(traced)     # the traced dtype stays the base variant (no case of it: never compiled)
    choices.sort(key=T_ORDER.index)
    first = choices[0]

    def retype(p):
        if isinstance(p, TensorParam) and p.name in t_params:
            return replace(p, dtype=first, dtype_var="T")
        return p
    kernel = replace(program.kernel, params=tuple(retype(p) for p in program.kernel.params))
    host = replace(program.host, params=tuple(retype(p) for p in program.host.params))
    out = replace(program, host=host, kernel=kernel, generics=(("T", tuple(choices)),), binding=(("T", first),))
    try:
        return parse(print_program(out), program.path), ""
    except DslError as e:
        return program, f"the generic draft does not parse ({e.message}): the draft keeps the traced dtypes"


__all__ = ["broadcast_pattern", "generalize", "fit_live", "largest_cases", "case_signature"]
