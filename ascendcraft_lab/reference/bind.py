"""Binding a DSL kernel to a run of its PyTorch reference, comparing outputs, and the interpreter check.

Owns the binding of kernel parameters to a reference run and the verdict:

- GM tensors (`x: GM[...]`), in declaration order, take the tensors of `get_inputs()` in order;
- `w: Param[f32, (N,), "ln.weight"]` takes the Model's parameter or buffer of that name (the
  kernel parameter's own name when the string is left out);
- scalars (`lr: f32`) bind by name to a forward argument or a Model attribute, else in order
  to the numbers of `get_inputs()` then of `get_init_inputs()` (ints, floats and bools; tensors,
  tuples and lists are skipped; a kernel may declare a prefix of them): scalars.py;
- outputs (`y: Out[...]`), in order, are compared with the values `forward` returns; an output
  with a row count (`n: Out[i64, (1,), "y"]`, nonzero's data-dependent rows) is declared at an
  upper bound, compared on the rows the kernel says it filled (`trim_outputs`), and the count
  with the reference's rows;
- a tensor declared with dim packs (`GM[T, (*S, N)]`) is bound as the kernel's view of it: the
  array reshaped to one size per declared dim (`dsl.host.fold_shape`), and an output's
  reference value reshaped to the kernel's view when it holds as many elements (a `keepdim`
  size-1 axis changes nothing else).

Tolerances default by output dtype: f32 1e-4, f16/bf16 1e-2 (rtol and atol), exact for ints.

Two correctness rules are reported side by side for every input set (`RULES`, `check_rules`):

- `dtype-aware`, this project's: rtol = atol = the output dtype's tolerance above (about one
  unit in the last place of a half type, ten of f32's), exact for integers and bool; equal
  infinities and NaN against NaN agree;
- `mkb`, MultiKernelBench's (utils/correctness.py at e6c7543): `torch.allclose(ref, new,
  atol=1e-4, rtol=1e-4)` for every dtype, so NaN never equals NaN and a half-type result must
  agree to about a tenth of its last place.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from ..dsl.errors import DslError
from ..dsl.generic import binding_for, instantiate
from ..dsl.host import bind_dims, fold_shape, leading_ones, output_shape
from ..dsl.interp import run
from ..dsl.ir import DType, Program
from ..dsl.parser import parse, parse_file
from ..dsl.verifier import verify
from ..soc import get_soc
from .load import ReferenceRun, load_reference
from .scalars import scalar_args, scalar_plan

TOLERANCES = {DType.f32: 1e-4, DType.f16: 1e-2, DType.bf16: 1e-2}
MKB_TOLERANCE = 1e-4
RULES = ("dtype-aware", "mkb")
RULE_TEXT = {"dtype-aware": "dtype-aware rule (f32 1e-4, f16/bf16 1e-2, integers exact)",
             "mkb": "MultiKernelBench rule (allclose atol=rtol=1e-4, every dtype)"}


@dataclass
class OutputCheck:
    name: str
    shape: tuple
    dtype: str
    rtol: float
    atol: float
    max_abs_err: float
    max_rel_err: float
    mismatches: int
    unwritten: int
    correct: bool
    worst: str = ""      # where the largest error is: index, got, expected
    nonfinite: int = 0   # mismatches where the reference gives NaN or Inf


@dataclass
class Verdict:
    correct: bool
    max_abs_err: float
    max_rel_err: float
    rtol: float
    atol: float
    outputs: list = field(default_factory=list)     # OutputCheck per kernel output
    message: str = ""
    backend: str = "interpreter"
    soc: str = ""
    launch: dict = field(default_factory=dict)
    ub_peak: int = 0

    def summary(self) -> str:
        lines = [self.message]
        for o in self.outputs:
            lines.append(f"  {o.name}: {o.dtype} {tuple(o.shape)}  max abs err {o.max_abs_err:.3g}, "
                         f"max rel err {o.max_rel_err:.3g}  (rtol {o.rtol:g}, atol {o.atol:g})"
                         + ("" if o.correct else f"  — {o.mismatches} mismatches"
                            + (f", {o.unwritten} never stored" if o.unwritten else "")))
        return "\n".join(lines)


def load_program(dsl_path_or_text) -> Program:
    """Parse a DSL file (a path) or DSL text (anything with a newline); a Program as it is."""
    if isinstance(dsl_path_or_text, Program):
        return dsl_path_or_text
    if isinstance(dsl_path_or_text, Path) or "\n" not in str(dsl_path_or_text):
        return parse_file(dsl_path_or_text)
    return parse(str(dsl_path_or_text))


def bind(program: Program, ref: ReferenceRun) -> tuple[dict, dict]:
    """Kernel inputs (param name -> array/scalar) and expected outputs (name -> array) from a reference run."""
    def fail(node, msg, help):
        return DslError(msg, node.span, help, program.path, program.source)

    k = program.kernel
    inputs: dict = {}
    tensors = [(i, v) for i, v in enumerate(ref.inputs) if isinstance(v, np.ndarray)]
    declared = program.inputs
    if len(declared) != len(tensors):
        got = ", ".join(f"{' x '.join(map(str, v.shape)) or 'scalar'} {ref.input_dtypes[i] or v.dtype}"
                        for i, v in tensors)
        raise fail(k, f"kernel `{k.name}` declares {len(declared)} input tensors but get_inputs() gives {len(tensors)}"
                   + (f" ({got})" if got else ""),
                   "declare one GM[dtype, shape] parameter per tensor of get_inputs(), in the same order")
    scalars = scalar_args(scalar_plan(program, ref), ref.inputs, ref.init_inputs, SimpleNamespace(**ref.attrs))
    for p, v in zip(program.scalars, scalars):
        if p.dtype.is_int and isinstance(v, float):
            raise fail(p, f"scalar `{p.name}` is declared {p.dtype.value} but the reference gives {v!r}",
                       f"declare it `{p.name}: f32`")
        inputs[p.name] = v
    scalar_env = {p.name: inputs[p.name] for p in program.scalars}
    for p, (i, v) in zip(declared, tensors):
        _check_dtype(p, ref.input_dtypes[i] or str(v.dtype), f"reference input {i}", fail)
        inputs[p.name] = _view(program, p, v, scalar_env)
    named = ref.named_tensors
    for p in program.model_params:
        if p.param_name not in named:
            have = ", ".join(named) or "none"
            raise fail(p, f"the Model has no parameter or buffer `{p.param_name}` (it has: {have})",
                       'name one of them: Param[dtype, shape, "name"]')
        _check_dtype(p, str(named[p.param_name].dtype), f"Model parameter `{p.param_name}`", fail)
        inputs[p.name] = _view(program, p, named[p.param_name], scalar_env)
    outs = program.results
    if len(outs) != len(ref.outputs):
        raise fail(k, f"kernel `{k.name}` declares {len(outs)} outputs but forward returns {len(ref.outputs)}",
                   "declare one Out[dtype, shape] parameter per returned tensor, in order")
    shapes = {n: np.shape(v) for n, v in inputs.items() if isinstance(v, np.ndarray)}
    env = dict(bind_dims(program, shapes))
    env.update({p.name: inputs[p.name] for p in program.scalars})
    soc = get_soc(None)
    expected = {}
    counts = program.row_counts
    for p, (i, v) in zip(outs, enumerate(ref.outputs)):
        _check_dtype(p, ref.output_dtypes[i] or str(v.dtype), f"reference output {i}", fail)
        shape = output_shape(program, p, env, soc)
        if p.name in counts:               # declared at an upper bound: the reference's rows must fit
            rows = int(np.shape(v)[0]) if np.ndim(v) else -1
            if np.ndim(v) != len(shape) or tuple(np.shape(v)[1:]) != tuple(shape[1:]) or rows > shape[0]:
                raise fail(p, f"output `{p.name}` holds up to {tuple(shape)} here but forward returns "
                              f"{tuple(np.shape(v))}", "declare the output at the largest shape forward can return")
            expected[p.name] = v
            expected[counts[p.name].name] = np.array([rows], dtype=np.int64)
            continue
        if p.packs and int(np.prod(shape, dtype=np.int64)) == int(np.size(v)) and tuple(shape) != tuple(np.shape(v)):
            v = np.reshape(v, shape)           # the kernel's view of the output (dim packs)
        if tuple(shape) != tuple(np.shape(v)):
            raise fail(p, f"output `{p.name}` has shape {tuple(shape)} here but forward returns {tuple(np.shape(v))}",
                       "declare the output's dims so they evaluate to the reference shape")
        expected[p.name] = v
    return inputs, expected


def trim_outputs(program: Program, outputs) -> dict:
    """The kernel's outputs as forward returns them: an output with a row count (`n: Out[i64, (1,),
    "y"]`, data-dependent sizes) cut to the rows the kernel says it filled (clamped to its bound), as
    CANN's framework sizes an OutputShapeDependOnCompute output by the shape the kernel wrote."""
    out = dict(outputs)
    for name, count in program.row_counts.items():
        got, n = out.get(name), out.get(count.name)
        if got is None or n is None or np.size(n) < 1:
            continue
        rows = min(max(int(np.reshape(n, -1)[0]), 0), int(np.shape(got)[0]))
        out[name] = np.asarray(got)[:rows]
    return out


def _view(program: Program, p, v: np.ndarray, scalars: dict) -> np.ndarray:
    """The array as the kernel declares it: dim packs folded into one axis each, leading 1s where
    the declaration has them and the tensor does not (host.leading_ones)."""
    if not p.packs:
        shape = leading_ones(p, tuple(np.shape(v)))
        return v if shape == tuple(np.shape(v)) else np.reshape(v, shape)
    shape = fold_shape(program, p, np.shape(v), scalars)
    return v if tuple(shape) == tuple(v.shape) else np.reshape(v, shape)


def _check_dtype(p, torch_dtype: str, what: str, fail):
    if torch_dtype != p.dtype.torch_name:
        want = {d.torch_name: d.value for d in DType}.get(torch_dtype)
        raise fail(p, f"`{p.name}` is declared {p.dtype.value} but {what} is {torch_dtype}",
                   f"declare it {want}" if want else f"{torch_dtype} tensors are not supported by the DSL")


CHUNK = 1 << 20    # elements compared at a time: float64 temporaries of a few MiB, whatever the output's size


def chunks(*arrays: np.ndarray, size: int = CHUNK):
    """(offset, float64 slices of each array) over the arrays flattened, `size` elements at a time."""
    flat = [np.asarray(a).reshape(-1) for a in arrays]
    n = flat[0].size if flat else 0
    for i in range(0, n, size):
        yield i, [f[i:i + size].astype(np.float64) for f in flat]


def check_rules(name: str, got: np.ndarray, want: np.ndarray, dtype: DType) -> dict[str, OutputCheck]:
    """One output under both rules (RULES): {"dtype-aware": OutputCheck, "mkb": OutputCheck}."""
    return {"dtype-aware": compare(name, got, want, dtype, None, None),
            "mkb": compare(name, got, want, dtype, MKB_TOLERANCE, MKB_TOLERANCE, equal_nan=False)}


def compare(name: str, got: np.ndarray, want: np.ndarray, dtype: DType, rtol: float | None, atol: float | None,
            unwritten: int = 0, equal_nan: bool = True) -> OutputCheck:
    tol = TOLERANCES.get(dtype, 0.0)
    rtol = tol if rtol is None else rtol
    atol = tol if atol is None else atol
    g_all, w_all = np.asarray(got), np.asarray(want)
    if g_all.shape != w_all.shape:
        return OutputCheck(name, w_all.shape, dtype.value, rtol, atol, float("inf"), float("inf"), int(w_all.size),
                           unwritten, False, f"shape {g_all.shape} instead of {w_all.shape}")
    max_abs = max_rel = 0.0
    at, n_bad, n_nonfinite = -1, 0, 0
    for i, (g, w) in chunks(g_all, w_all):
        with np.errstate(invalid="ignore"):      # inf - inf: equal infinities are no error
            diff = np.abs(g - w)
        both_nan = np.isnan(g) & np.isnan(w) if equal_nan else np.zeros(g.shape, dtype=bool)
        diff = np.where(both_nan | (g == w), 0.0, diff)
        diff = np.where(np.isnan(diff), np.inf, diff)
        bad = ~(diff <= atol + rtol * np.abs(np.nan_to_num(w, nan=0.0, posinf=0.0, neginf=0.0))) & ~both_nan
        bad &= ~((g == w) & np.isinf(w))
        n_bad += int(bad.sum())
        n_nonfinite += int((bad & ~np.isfinite(w)).sum())
        k = int(np.argmax(diff))
        if diff[k] > max_abs:          # strictly greater: the first worst element, as one argmax would find
            max_abs, at = float(diff[k]), i + k
        with np.errstate(invalid="ignore", divide="ignore"):   # a NaN or Inf expected: the relative error is inf
            rel = np.where(diff == 0, 0.0, np.where(np.isfinite(w), diff / np.maximum(np.abs(w), 1e-12), np.inf))
        max_rel = max(max_rel, float(np.max(rel, initial=0.0)))
    worst = ""
    if at >= 0:
        idx = np.unravel_index(at, w_all.shape)
        worst = f"at {tuple(int(i) for i in idx)}: got {float(g_all[idx]):.6g}, expected {float(w_all[idx]):.6g}"
        if n_nonfinite:
            worst += f"; the reference's output is not finite (NaN or Inf) at {n_nonfinite} of them"
    return OutputCheck(name, w_all.shape, dtype.value, rtol, atol, max_abs, max_rel, n_bad, unwritten,
                       n_bad == 0 and unwritten == 0, worst, n_nonfinite)


def case_dtypes(program: Program, case: ReferenceRun) -> list[str]:
    """The torch dtypes a variant is picked by: the tensor inputs, then the Model tensors the kernel reads."""
    named = case.named_tensors
    return list(case.dtypes) + [str(named[p.param_name].dtype) if p.param_name in named else "?"
                                for p in program.model_params]


def variant_for(program: Program, ref: ReferenceRun, what: str = "the input set") -> Program:
    """The variant of a dtype-generic kernel that serves this input set (the program itself when
    plain); VariantMismatch (one line) when no variant does."""
    if not program.generics:
        return program
    return instantiate(program, binding_for(program, case_dtypes(program, ref), what))


def check_interpreter(dsl_path_or_text, ref_path, *, soc: str | None = None, overrides: dict | None = None,
                      rtol: float | None = None, atol: float | None = None, seed: int = 0,
                      reference: ReferenceRun | None = None) -> Verdict:
    """Parse, verify and interpret a DSL kernel; compare its outputs with the reference's.

    Raises DslError (the draft is wrong) or ReferenceError (the reference cannot run);
    returns a Verdict otherwise. `reference` reuses an already loaded run of `ref_path`.
    """
    s = get_soc(soc)
    program = load_program(dsl_path_or_text)
    ref = reference if reference is not None else load_reference(ref_path, overrides=overrides, seed=seed)
    program = variant_for(program, ref, ref.label)
    inputs, expected = bind(program, ref)
    if expected and all(np.size(v) == 0 for v in expected.values()):      # a zero size is the user's input
        shapes = ", ".join(f"`{n}` {list(np.shape(v))}" for n, v in expected.items())
        return Verdict(True, 0.0, 0.0, 0.0, 0.0, [], f"correct: every output of `{program.kernel.name}` is empty "
                       f"({shapes}): nothing to compute, no launch", "interpreter", s.name)
    shapes = {n: np.shape(v) for n, v in inputs.items() if isinstance(v, np.ndarray)}
    scalars = {p.name: inputs[p.name] for p in program.scalars}
    typed = verify(program, s, shapes=shapes, scalars=scalars)
    outs = run(typed, inputs, s)
    got = trim_outputs(typed, outs)
    checks = [compare(p.name, got[p.name], expected[p.name], p.dtype, rtol, atol, outs.unwritten.get(p.name, 0))
              for p in typed.outputs]
    correct = all(c.correct for c in checks)
    max_abs = max((c.max_abs_err for c in checks), default=0.0)
    max_rel = max((c.max_rel_err for c in checks), default=0.0)
    used_rtol = max((c.rtol for c in checks), default=0.0)
    used_atol = max((c.atol for c in checks), default=0.0)
    name = typed.kernel.name
    if correct:
        msg = (f"correct: `{name}` matches {Path(ref.path).name} on the interpreter ({s.name}, "
               f"{outs.launch['cores']} cores): max abs err {max_abs:.3g}, max rel err {max_rel:.3g} "
               f"(rtol {used_rtol:g}, atol {used_atol:g})")
    else:
        bad = next(c for c in checks if not c.correct)
        if bad.unwritten:
            why = (f"{bad.unwritten} elements of `{bad.name}` are never stored — the core and tile loops "
                   "do not cover the whole output")
        else:
            why = f"`{bad.name}` differs at {bad.mismatches} elements (worst {bad.worst})"
        msg = (f"incorrect: {why}; max abs err {max_abs:.3g}, max rel err {max_rel:.3g} "
               f"(rtol {used_rtol:g}, atol {used_atol:g})")
    return Verdict(correct, max_abs, max_rel, used_rtol, used_atol, checks, msg, "interpreter", s.name,
                   dict(outs.launch), outs.ub_peak)
