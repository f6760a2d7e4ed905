"""MultiKernelBench's judging rules, as its harness (wzzll123/MultiKernelBench) applies them:

- correctness (utils/correctness.py): both models built after ``torch.manual_seed(1024)``; N input
  sets drawn from ``get_inputs()`` (or ``get_input_groups()`` when the reference defines it), set
  k reshaped by the value profile k mod 7 (reference, normal, uniform_signed, small_magnitude,
  large_magnitude, near_one, sparse_first); outputs compared with ``torch.allclose`` at
  atol = rtol = 1e-4 (float32), 1e-3 (a float16 / bfloat16 side), 1e-2 (float8), exactly for
  integers and booleans; shapes must agree; the first mismatch ends the check.
- the anti-hack rule (utils/cheating_detection.py): no PyTorch compute reachable from
  ``ModelNew.forward`` (through module functions and ``self`` methods): no arithmetic operators,
  no ``torch.*`` call beyond tensor creation, no ``torch.nn.functional`` call, no compute tensor
  method, no other ``self`` module call, and no Python ``range`` loop that indexes tensors and
  computes. Calls into the kernel extension are allowed.

This module re-implements those rules for the emulator's checker; the protocol's numbers and name
lists are MultiKernelBench's, the code is not.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

SEED = 1024
TRIALS = 5
VALUE_PROFILES = ("reference", "normal", "uniform_signed", "small_magnitude", "large_magnitude", "near_one",
                  "sparse_first")


# ----------------------------------------------------------------------------- correctness


def tolerance(dtypes: set[str]) -> float:
    """atol = rtol for a comparison whose sides have these torch dtypes."""
    if any("float8" in d for d in dtypes):
        return 1e-2
    if {"torch.float16", "torch.bfloat16"} & dtypes:
        return 1e-3
    return 1e-4


def set_seed(seed: int) -> None:
    import torch
    torch.manual_seed(seed)


def _profile(value, profile: str, index: int):
    import torch
    if not (isinstance(value, torch.Tensor) and (value.is_floating_point() or value.is_complex())):
        return value
    grad = value.requires_grad
    rand = lambda: torch.rand_like(value)  # noqa: E731
    if profile == "reference":
        return value
    if profile == "normal":
        out = torch.randn_like(value)
    elif profile == "uniform_signed":
        out = (rand() * 2 - 1).to(value.dtype)
    elif profile == "small_magnitude":
        out = ((rand() * 2 - 1) * 1e-3).to(value.dtype)
    elif profile == "large_magnitude":
        scale = 5 if value.dtype in (torch.float16, torch.bfloat16) else 10
        out = ((rand() * 2 - 1) * scale).to(value.dtype)
    elif profile == "near_one":
        out = (1 + (rand() * 2 - 1) * 1e-2).to(value.dtype)
    elif profile == "sparse_first" and index == 0:
        mask = torch.rand(value.shape, device=value.device) < 0.8
        out = torch.randn_like(value).masked_fill(mask, 0).to(value.dtype)
    else:
        return value
    return out.requires_grad_(grad) if grad else out


def input_sets(namespace: dict, trials: int) -> list[list]:
    """The input sets of a check, drawn as MultiKernelBench draws them (after the models)."""
    import torch
    if "get_input_groups" in namespace:
        return [list(g) for g in namespace["get_input_groups"]()]
    sets = []
    for trial in range(trials):
        profile = VALUE_PROFILES[trial % len(VALUE_PROFILES)]
        k = 0
        one = []
        for v in namespace["get_inputs"]():
            if isinstance(v, torch.Tensor):
                one.append(_profile(v, profile, k))
                k += 1
            else:
                one.append(v)
        sets.append(one)
    return sets


@dataclass
class Comparison:
    ok: bool
    message: str = ""
    max_abs: float = 0.0
    max_rel: float = 0.0
    tol: float = 0.0


def compare(ref, new) -> Comparison:
    """MultiKernelBench's comparison of one input set's outputs (tensors, or tuples of them)."""
    import torch
    if isinstance(ref, torch.Tensor) and isinstance(new, torch.Tensor):
        if ref.shape != new.shape:
            return Comparison(False, f"output shape mismatch: expected {tuple(ref.shape)}, got {tuple(new.shape)}")
        numeric = lambda t: t.is_floating_point() or t.is_complex()  # noqa: E731
        if ref.dtype == torch.bool or new.dtype == torch.bool or not numeric(ref) or not numeric(new):
            same = torch.equal(ref, new)
            return Comparison(same, "" if same else "output mismatch (exact comparison of integer/boolean outputs)")
        tol = tolerance({str(ref.dtype), str(new.dtype)})
        a, b = ref.detach().double(), new.detach().double()
        diff = (a - b).abs()
        max_abs = float(diff.max()) if diff.numel() else 0.0
        max_rel = float((diff / a.abs().clamp_min(1e-12)).max()) if diff.numel() else 0.0
        ok = bool(torch.allclose(ref, new, atol=tol, rtol=tol))
        msg = ""
        if not ok:
            bad = (diff > tol + tol * a.abs()) | (torch.isnan(b) != torch.isnan(a))
            idx = tuple(int(i) for i in (bad.nonzero()[0] if bad.any() else []))
            first = (f" first at index {list(idx)}: expected {float(a[idx]):.6g}, got {float(b[idx]):.6g};"
                     if idx else "")
            msg = f"output mismatch:{first} max abs error {max_abs:.3g} (atol = rtol = {tol:g})"
        return Comparison(ok, msg, max_abs, max_rel, tol)
    if isinstance(ref, (tuple, list)) and isinstance(new, (tuple, list)):
        if len(ref) != len(new):
            return Comparison(False, f"output length mismatch: expected {len(ref)}, got {len(new)}")
        worst = Comparison(True)
        for k, (r, n) in enumerate(zip(ref, new)):
            c = compare(r, n)
            if not c.ok:
                c.message = f"output {k}: {c.message}"
                return c
            worst = Comparison(True, "", max(worst.max_abs, c.max_abs), max(worst.max_rel, c.max_rel),
                               max(worst.tol, c.tol))
        return worst
    same = ref == new
    return Comparison(bool(same), "" if same else f"output mismatch: expected {ref!r}, got {new!r}")


# ----------------------------------------------------------------------------- the anti-hack rule

TORCH_CREATION = frozenset({"empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones", "ones_like",
                            "full", "full_like", "tensor", "arange", "linspace", "as_tensor"})
PLAIN_BUILTINS = frozenset({"min", "max", "abs", "len", "range", "int", "float", "bool", "list", "tuple", "str",
                            "type", "isinstance", "print", "enumerate", "zip", "map", "filter", "sorted", "reversed",
                            "hasattr", "getattr", "setattr"})
COMPUTE_METHODS = frozenset({
    "sum", "mean", "max", "min", "prod", "cumsum", "cumprod", "argmax", "argmin", "var", "std",
    "matmul", "mm", "bmm", "addmm",
    "add", "sub", "mul", "div", "fmod", "remainder", "add_", "sub_", "mul_", "div_",
    "relu", "sigmoid", "tanh", "gelu", "silu", "elu", "leaky_relu", "relu_", "sigmoid_", "tanh_",
    "exp", "log", "log2", "log10", "sqrt", "pow", "abs", "sin", "cos", "clamp", "clamp_", "ceil", "floor", "round",
    "reciprocal", "neg", "sign",
    "softmax", "log_softmax", "norm", "layer_norm", "batch_norm", "group_norm",
    "conv1d", "conv2d", "conv3d", "conv_transpose2d", "linear", "dropout", "softplus", "hardtanh", "hardswish",
    "eq", "ne", "lt", "gt", "le", "ge", "where"})
FUNCTIONAL = frozenset({"F", "functional", "torch.nn.functional", "nn.functional"})
EXTENSION_NAMES = (r"_?\w+_ext$", r"\w+_ascendc\w*$", r"benchmark_ops$", r"custom_ops_lib$", r"cann_bench$", r"_C$")
ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Pow, ast.Mod, ast.MatMult)


@dataclass
class Violation:
    line: int
    call: str
    reason: str
    function: str


@dataclass
class AntiHack:
    passed: bool
    violations: list[Violation] = field(default_factory=list)
    error: str = ""

    def to_dict(self) -> dict:
        return {"passed": self.passed, "error": self.error,
                "violations": [{"line": v.line, "call": v.call, "reason": v.reason, "function": v.function}
                               for v in self.violations]}


def _name(node) -> tuple[str | None, str] | None:
    """(qualifier, attribute) of a call's function: `torch.relu` -> ("torch", "relu"), `f` -> (None, "f")."""
    f = node.func if isinstance(node, ast.Call) else node
    if isinstance(f, ast.Attribute):
        if isinstance(f.value, ast.Name):
            return f.value.id, f.attr
        if isinstance(f.value, ast.Attribute) and isinstance(f.value.value, ast.Name):
            return f"{f.value.value.id}.{f.value.attr}", f.attr
    if isinstance(f, ast.Name):
        return None, f.id
    return None


def _extensions(tree: ast.Module) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name != "TORCH_EXTENSION_NAME" and any(re.match(p, alias.name) for p in EXTENSION_NAMES):
                    names.add(alias.asname or alias.name)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Call) and _name(node.value) in {("importlib", "import_module"),
                                                                             ("importlib.util", "module_from_spec")}:
            names.add(node.targets[0].id)
    return names


def anti_hack(model_source: str) -> AntiHack:
    try:
        tree = ast.parse(model_source)
    except SyntaxError as exc:
        return AntiHack(False, error=f"the model source is not Python: {exc.msg} (line {exc.lineno})")
    exts = _extensions(tree)
    forward, cls = None, None
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name in ("ModelNew", "Model"):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == "forward":
                    if node.name == "ModelNew" or forward is None:
                        forward, cls = item, node
    if forward is None:
        return AntiHack(True)
    module_funcs = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    methods = {n.name: n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    reachable, seen, stack = [], set(), [("forward", forward)]
    while stack:
        name, node = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        reachable.append((name, node))
        for c in ast.walk(node):
            if isinstance(c, ast.Call) and (r := _name(c)) is not None:
                if r[0] is None and r[1] in module_funcs:
                    stack.append((r[1], module_funcs[r[1]]))
                elif r[0] == "self" and r[1] in methods:
                    stack.append((f"self.{r[1]}", methods[r[1]]))
    out = []
    for fname, node in reachable:
        for c in ast.walk(node):
            if isinstance(c, ast.BinOp) and isinstance(c.op, ARITHMETIC):
                out.append(Violation(c.lineno, type(c.op).__name__,
                                     "tensor arithmetic in the model must be done by the kernel", fname))
                continue
            if not isinstance(c, ast.Call) or (r := _name(c)) is None:
                continue
            qual, attr = r
            if qual in exts:
                continue
            if qual == "torch" and attr not in TORCH_CREATION:
                out.append(Violation(c.lineno, f"torch.{attr}", "a PyTorch compute op in the model", fname))
            elif qual in FUNCTIONAL:
                out.append(Violation(c.lineno, f"{qual}.{attr}", "a torch.nn.functional op in the model", fname))
            elif qual is None and (attr in PLAIN_BUILTINS or attr in module_funcs):
                continue
            elif qual == "self" and attr in methods:
                continue
            elif attr in COMPUTE_METHODS and qual not in {"torch"} | FUNCTIONAL:
                out.append(Violation(c.lineno, f"{qual}.{attr}()" if qual else f"{attr}()",
                                     "a tensor compute method in the model", fname))
            elif qual == "self" and attr != "forward":
                out.append(Violation(c.lineno, f"self.{attr}(...)",
                                     "an nn.Module call in the model may hide PyTorch compute", fname))
    if out:
        return AntiHack(False, out)
    for fname, node in reachable:
        for c in ast.walk(node):
            if isinstance(c, ast.For) and isinstance(c.iter, ast.Call) and _name(c.iter) == (None, "range") \
                    and isinstance(c.target, ast.Name) and _indexes(c, c.target.id) and _computes(c):
                out.append(Violation(c.lineno, f"for {c.target.id} in range(...)",
                                     "a Python loop over tensor elements that computes", fname))
    return AntiHack(not out, out)


def _indexes(loop: ast.For, var: str) -> bool:
    return any(isinstance(s, ast.Subscript) and any(isinstance(n, ast.Name) and n.id == var for n in ast.walk(s.slice))
               for s in ast.walk(loop))


def _computes(loop: ast.For) -> bool:
    ops = 0
    for c in ast.walk(loop):
        if isinstance(c, ast.BinOp) and isinstance(c.op, ARITHMETIC):
            ops += 1
        if isinstance(c, ast.Call) and (r := _name(c)) is not None:
            qual, attr = r
            if qual is None and attr in PLAIN_BUILTINS:
                continue
            if (qual == "torch" and attr not in TORCH_CREATION) or qual in FUNCTIONAL or attr in COMPUTE_METHODS:
                return True
    return ops >= 2
