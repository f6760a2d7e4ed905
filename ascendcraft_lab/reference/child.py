"""The child process that runs a reference file (user code) for the drafter and the bench.

Run as `python -I child.py jobs.json`: it imports nothing from ascendcraft_lab (isolated mode,
no user site, no cwd on sys.path), so a reference cannot reach the parent's state. For each
job it loads the reference (module-level constant overrides applied to its source, seeds
fixed as MultiKernelBench does) and does one thing:

  trace   torch.fx symbolic trace of Model.forward + a run that records every node's shape,
          dtype or scalar value -> graph.json (a JSON-able graph description, never objects)
  run     inputs (saved BEFORE forward, which gets untouched clones), outputs, parameters and
          buffers as .npy files -> meta.json; also whether forward changed its inputs in place
  cases   the same for every input group of `get_input_groups()` (NPUKernelBench format): one
          call, then case by case (a case is dropped from memory once saved) -> case<i>/meta.json
          and cases.json; a case whose forward fails is that case's error, not the job's
  time    PyTorch eager forward: 3 warm-up calls, then `repeats` timed calls (perf_counter),
          one thread -> timing.json

Every job but `time` (which takes `threads`) runs torch on one thread, so outputs do not depend
on the machine: a write by a repeated index keeps its last write, as PyTorch's loop does.

A reference is KernelBench format (`get_inputs()`, one input set per seed) or NPUKernelBench
format (`get_input_groups()`: a list of input sets, usually read from a JSON-lines file beside
the reference); `trace`, `run` and `time` take `case` to use one input group. A job may give
`as_file`, the path `__file__` should hold (a session keeps its copy as reference.py and the
files it reads, under their own names, in reference_files/): a reference that finds its JSON
cases through `__file__` finds the copies.

torch_npu: when it is not installed, `import torch_npu` (and its submodules) gives a stand-in
module, so a reference that imports it only to be importable runs on CPU (noted once in the
answer); calling any of its operations raises, and the job is refused with one line naming the
operation (there is no CPU version of an NPU op). An op whose float16 / bfloat16 kernel CPU
PyTorch lacks (avg_pool3d) runs that case in float32, its outputs rounded back, with a note.

Errors go to error.json as one line: where (import, get_inputs, trace...) and the exception.
"""
import ast
import inspect
import json
import math
import os
import random
import re
import sys
import time
import traceback
import types
from pathlib import Path


def _first_line(exc):
    raw = exc.msg if isinstance(exc, SyntaxError) and exc.msg else str(exc)
    msg = raw.strip().splitlines()[0] if raw.strip() else ""
    text = f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__
    return text if len(text) <= 300 else text[:297] + "..."


def _line_in(exc, path):
    line = None
    for fr in traceback.extract_tb(exc.__traceback__):
        if os.path.abspath(fr.filename) == path:
            line = fr.lineno
    if isinstance(exc, SyntaxError) and exc.filename and os.path.abspath(exc.filename) == path:
        line = exc.lineno
    return line


class JobError(Exception):
    def __init__(self, where, message, line=None):
        super().__init__(message)
        self.where, self.message, self.line = where, message, line


# -- torch_npu on a machine without it ---------------------------------------------------------------
class NpuOpCalled(Exception):
    """A reference called an operation of the torch_npu stand-in: an NPU-only op, refused."""

    def __init__(self, name):
        super().__init__(name)
        self.name = name


class _NpuAttr:
    """Any attribute of the stand-in: calling it (or anything under it) refuses the reference."""

    def __init__(self, name):
        self._name = name

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _NpuAttr(f"{self._name}.{name}")

    def __call__(self, *args, **kwargs):
        raise NpuOpCalled(self._name)

    def __repr__(self):
        return f"<torch_npu stand-in {self._name}>"


class _NpuModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _NpuAttr(f"{self.__name__}.{name}")


class _NpuFinder:
    """A meta-path finder that answers `import torch_npu[.anything]` with a stand-in module."""

    used = False

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "torch_npu" and not fullname.startswith("torch_npu."):
            return None
        import importlib.machinery
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        _NpuFinder.used = True
        module = _NpuModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        pass


def install_npu_stand_in():
    """torch_npu stand-in when the real one is not installed (never shadows a real torch_npu)."""
    import importlib.util
    try:
        real = importlib.util.find_spec("torch_npu")
    except (ImportError, ValueError):
        real = None
    if real is None and not any(isinstance(f, _NpuFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _NpuFinder())


def npu_refusal(exc):
    return f"it calls `{exc.name}`, an NPU-only torch_npu operation: refused (there is no CPU version of an NPU op)"


# -- JSON-lines cases ----------------------------------------------------------------------------
def json_sidecars(path):
    """Files beside the reference it may read as JSON: `<stem>.json*` and any `.json` file whose
    name is a string in its source."""
    folder, stem = Path(path).parent, Path(path).stem
    try:
        source = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        source = ""
    found = []
    for f in sorted(folder.glob("*.json*")):
        if f.is_file() and (f.name.startswith(stem + ".") or f.name in source):
            found.append(f)
    return found


def bad_json_line(files):
    """(file name, line number, why) of the first line of `files` that is not one JSON value."""
    for f in files:
        try:
            text = f.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            return f.name, 0, _first_line(e)
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                json.loads(line)
            except ValueError as e:
                why = e.msg if hasattr(e, "msg") else str(e)
                col = f" at column {e.colno}" if hasattr(e, "colno") else ""
                return f.name, n, f"{why}{col}"
    return None


# -- loading a reference -------------------------------------------------------------------------
def load_module(path, overrides, as_file=None):
    try:
        data = Path(path).read_bytes()
        source = data.decode("utf-8")
        tree = ast.parse(source, filename=path)
    except UnicodeDecodeError as e:
        raise JobError("to read", f"it is not UTF-8 text: byte 0x{data[e.start]:02x} at offset {e.start}",
                       data.count(b"\n", 0, e.start) + 1)
    except SyntaxError as e:
        raise JobError("to parse", _first_line(e), _line_in(e, path))
    except (OSError, ValueError) as e:      # ValueError: null bytes
        raise JobError("to open", _first_line(e))
    seen = set()
    for node in tree.body:
        targets = []
        if isinstance(node, ast.Assign):
            targets = [t for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            targets = [node.target]
        for t in targets:
            if t.id in overrides:
                value = overrides[t.id]
                text = repr(tuple(value)) if isinstance(value, list) else repr(value)
                node.value = ast.copy_location(ast.parse(text, mode="eval").body, node.value)
                seen.add(t.id)
    missing = sorted(set(overrides) - seen)
    if missing:
        raise JobError("to take overrides", f"it has no module-level constant {', '.join(missing)}")
    ast.fix_missing_locations(tree)
    name = "ascendcraft_reference_" + str(abs(hash(path)))
    module = types.ModuleType(name)
    module.__file__ = as_file or path
    sys.modules[name] = module
    sys.path.insert(0, str(Path(as_file or path).parent))
    install_npu_stand_in()
    try:
        exec(compile(tree, path, "exec"), module.__dict__)
    except NpuOpCalled as e:
        raise JobError("on import", npu_refusal(e))
    except BaseException as e:  # noqa: BLE001 - user code may raise anything, even SystemExit
        raise JobError("on import", _first_line(e), _line_in(e, path))
    finally:
        sys.path.pop(0)
    if not hasattr(module, "Model"):
        raise JobError("the format check", "it defines no `Model` class (KernelBench and NPUKernelBench format)")
    if not hasattr(module, "get_inputs") and not hasattr(module, "get_input_groups"):
        raise JobError("the format check", "it defines neither `get_inputs` (KernelBench format) nor "
                       "`get_input_groups` (NPUKernelBench format)")
    if not hasattr(module, "get_init_inputs"):
        if hasattr(module, "get_inputs") and not hasattr(module, "get_input_groups"):
            raise JobError("the format check", "it defines no `get_init_inputs` function (KernelBench format)")
        module.get_init_inputs = lambda: []     # NPUKernelBench: Model() takes nothing
    return module


def input_groups(module, path):
    """`get_input_groups()` checked: a non-empty list of input lists. A JSON-lines file that
    does not parse is named with its line."""
    try:
        groups = module.get_input_groups()
    except NpuOpCalled as e:
        raise JobError("in get_input_groups()", npu_refusal(e))
    except BaseException as e:  # noqa: BLE001
        bad = bad_json_line(json_sidecars(module.__file__)) if isinstance(e, ValueError) else None
        if bad is not None:
            name, line, why = bad
            raise JobError("in get_input_groups()", f"{name} line {line} is not valid JSON ({why})" if line
                           else f"{name} cannot be read ({why})")
        raise JobError("in get_input_groups()", _first_line(e), _line_in(e, path))
    if not isinstance(groups, (list, tuple)) or not groups:
        raise JobError("in get_input_groups()", f"it returned {type(groups).__name__} "
                       f"{'(empty)' if isinstance(groups, (list, tuple)) else ''}".rstrip() +
                       "; it must return a non-empty list of input lists (one per case)")
    groups = list(groups)
    for i, g in enumerate(groups):
        if not isinstance(g, (list, tuple)):
            raise JobError("in get_input_groups()",
                           f"case {i} is a {type(g).__name__}, not a list of forward arguments")
        groups[i] = list(g)
    return groups


def build(module, path, seed, cast_inputs, torch, np, case=None):
    """(inputs, init_inputs, model): inputs of get_inputs() (seeded), or input group `case` of
    get_input_groups() (seeded once, after the model is built, as MultiKernelBench does)."""
    if case is not None or not hasattr(module, "get_inputs"):
        index = 0 if case is None else int(case)
        init_inputs, model = build_model(module, path, seed, torch, np)
        groups = input_groups(module, path)
        if not 0 <= index < len(groups):
            raise JobError("in get_input_groups()", f"there is no case {index} (it gives {len(groups)})")
        return cast(groups[index], cast_inputs, torch), init_inputs, model
    stage = "in get_inputs()"
    try:
        _seed_all(seed, torch, np)
        inputs = cast(module.get_inputs(), cast_inputs, torch)
        stage = "in get_init_inputs()"
        init_inputs = list(module.get_init_inputs())
        stage = "building Model(*get_init_inputs())"
        torch.manual_seed(seed)
        model = module.Model(*init_inputs)
    except NpuOpCalled as e:
        raise JobError(stage, npu_refusal(e))
    except BaseException as e:  # noqa: BLE001
        raise JobError(stage, _first_line(e), _line_in(e, path))
    return inputs, init_inputs, model


def _seed_all(seed, torch, np):
    """The same seed for every generator a reference may draw from (torch, numpy, random)."""
    torch.manual_seed(seed)
    np.random.seed(seed)
    random.seed(seed)


def build_model(module, path, seed, torch, np):
    """(init_inputs, Model(*init_inputs)) with the seed set before, and again after (the inputs' RNG)."""
    stage = "in get_init_inputs()"
    try:
        _seed_all(seed, torch, np)
        init_inputs = list(module.get_init_inputs())
        stage = "building Model(*get_init_inputs())"
        model = module.Model(*init_inputs)
        _seed_all(seed, torch, np)
    except NpuOpCalled as e:
        raise JobError(stage, npu_refusal(e))
    except BaseException as e:  # noqa: BLE001
        raise JobError(stage, _first_line(e), _line_in(e, path))
    return init_inputs, model


def cast(inputs, cast_inputs, torch):
    """The inputs with their floating tensors cast to `cast_inputs` ("float32"); "float32:integers"
    casts int8 / int16 / int32 tensors as well (a draft traced in float32 for integer cases; int64
    indices and bool masks stay)."""
    if not cast_inputs:
        return list(inputs)
    name, _, also = cast_inputs.partition(":")
    dt = getattr(torch, name)
    ints = (torch.int8, torch.int16, torch.int32) if also == "integers" else ()
    return [v.to(dt) if isinstance(v, torch.Tensor) and (v.is_floating_point() or v.dtype in ints) else v
            for v in inputs]


def describe_value(v, torch):
    if isinstance(v, torch.Tensor):
        return {"kind": "tensor", "shape": list(v.shape), "dtype": str(v.dtype).replace("torch.", "")}
    if isinstance(v, bool):
        return {"kind": "scalar", "type": "bool", "value": v}
    if isinstance(v, int):
        return {"kind": "scalar", "type": "int", "value": v}
    if isinstance(v, float):
        return {"kind": "scalar", "type": "float", "value": v}
    if isinstance(v, (list, tuple)):
        return {"kind": "sequence", "items": [describe_value(x, torch) for x in v]}
    if v is None or isinstance(v, str):     # an attribute such as approximate="tanh", or an omitted tensor
        return {"kind": "const", "value": v}
    return {"kind": "other", "repr": repr(v)[:80]}


def tensor_list(v, torch) -> bool:
    return isinstance(v, (list, tuple)) and any(isinstance(x, torch.Tensor) or tensor_list(x, torch) for x in v)


def flat_inputs(inputs, torch) -> list:
    """forward's inputs with every list of tensors spread in place, one input per tensor (torch.export's
    placeholders, and the kernel's GM tensors)."""
    out = []
    for v in inputs:
        out += flat_inputs(v, torch) if tensor_list(v, torch) else [v]
    return out


def plain_tensors(model, torch):
    """Tensors a module holds as plain attributes (`self.gamma = torch.ones(n)`, no nn.Parameter,
    no register_buffer), by their dotted name as fx names them: inputs of forward as much as
    parameters and buffers are, so they are recorded and bound like buffers. Names starting with
    `_` are left out (the tracer's own `_tensor_constant0`)."""
    if not isinstance(model, torch.nn.Module):
        return {}
    found = {}
    for prefix, m in model.named_modules():
        for k, v in vars(m).items():
            if isinstance(v, torch.Tensor) and not isinstance(v, torch.nn.Parameter) and not k.startswith("_"):
                found.setdefault(f"{prefix}.{k}" if prefix else k, v)
    return found


def constant_fill(v, torch):
    """The one value every element of a tensor constant holds (torch.ones(n), torch.tensor(2.0)), or None."""
    if not isinstance(v, torch.Tensor) or v.numel() == 0 or v.is_complex():
        return None
    flat = v.detach().reshape(-1)
    if not bool((flat == flat[0]).all()):
        return None
    x = flat[0].item()
    return x if not isinstance(x, float) or math.isfinite(x) else repr(x)


def init_names(model_cls, init_inputs):
    try:
        params = [p for p in inspect.signature(model_cls.__init__).parameters.values() if p.name != "self"]
    except (TypeError, ValueError):
        return [None] * len(init_inputs)
    names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return (names + [None] * len(init_inputs))[: len(init_inputs)]


# -- tracing -------------------------------------------------------------------------------------
class _MathShim(types.ModuleType):
    """`math` for the reference during a symbolic trace: math.sqrt(proxy) becomes proxy ** 0.5
    (and exp/log/pow likewise) so a scalar computed from a forward argument stays symbolic."""

    def __init__(self, fx):
        super().__init__("math")
        self.__dict__.update({k: getattr(math, k) for k in dir(math) if not k.startswith("__")})
        proxy = fx.Proxy

        def wrap(name, sym):
            real = getattr(math, name)

            def f(*args):
                if any(isinstance(a, proxy) for a in args):
                    return sym(*args)
                return real(*args)
            f.__name__ = name
            return f
        self.sqrt = wrap("sqrt", lambda a: a ** 0.5)
        self.pow = wrap("pow", lambda a, b: a ** b)
        self.exp = wrap("exp", lambda a: math.e ** a)


def encode_arg(a, fx, torch, names):
    if isinstance(a, fx.Node):
        return {"node": a.name}
    if a is None or isinstance(a, (bool, int, str)):
        return {"const": a}
    if isinstance(a, float):
        return {"const": a} if math.isfinite(a) else {"float": repr(a)}
    if isinstance(a, (list, tuple)):
        return {"list" if isinstance(a, list) else "tuple": [encode_arg(x, fx, torch, names) for x in a]}
    if isinstance(a, slice):
        return {"slice": [encode_arg(x, fx, torch, names) for x in (a.start, a.stop, a.step)]}
    if a is Ellipsis:
        return {"ellipsis": True}
    if isinstance(a, torch.dtype):
        return {"dtype": str(a).replace("torch.", "")}
    if isinstance(a, torch.memory_format) or a is torch.strided:    # the defaults torch.export spells out
        return {"const": None}
    if isinstance(a, torch.device):
        return {"device": str(a)}
    if isinstance(a, torch.Tensor):
        return {"tensor_const": list(a.shape)}
    return {"repr": repr(a)[:80]}


def target_name(t):
    if isinstance(t, str):
        return t
    if type(t).__name__ in ("OpOverload", "OpOverloadPacket"):
        return "aten:" + str(t)
    mod = getattr(t, "__module__", None) or ""
    name = getattr(t, "__name__", None) or repr(t)
    if mod in ("_operator", "operator"):
        mod = "operator"
    if mod == "builtins" or (not mod and name in ("getattr", "len")):
        mod = "builtins"
    return f"{mod}.{name}" if mod else name


def module_info(m, torch):
    attrs = {}
    for k, v in vars(m).items():
        if k.startswith("_") or k == "training":
            continue
        if v is None or isinstance(v, (bool, int, float, str)):
            attrs[k] = v if not isinstance(v, float) or math.isfinite(v) else repr(v)
        elif isinstance(v, (tuple, list)) and all(isinstance(x, (bool, int, float)) for x in v):
            attrs[k] = list(v)
    own = [n for n, _ in m.named_parameters(recurse=False)] + [n for n, _ in m.named_buffers(recurse=False)]
    return {"type": f"{type(m).__module__}.{type(m).__name__}", "class": type(m).__name__, "attrs": attrs,
            "training": bool(m.training), "tensors": own}


def _symbolic_trace(fx, model, concrete=None, arg_names=(), defaults=None):
    """fx.symbolic_trace, with each node's stack recorded (the line of forward that made it).
    `concrete`: forward arguments traced as their values, the graph then keeping one placeholder
    per forward argument (`_unspecialize`)."""
    tracer = fx.Tracer()
    tracer.record_stack_traces = True
    graph = tracer.trace(model, concrete_args=concrete)
    if concrete:
        _unspecialize(graph, concrete, arg_names, defaults or {}, fx)
    return fx.GraphModule(tracer.root, graph, type(model).__name__)


def _unspecialize(graph, concrete, arg_names, defaults, fx):
    """A trace with concrete arguments guards each value (`torch._assert(repeats_1 == 2)`,
    `_assert_is_none(red_1)`) and gives a tuple one placeholder per item: the guards go (the
    values are inlined where forward used them) and each concrete argument gets back one
    placeholder, in forward's order, so placeholder i is forward's argument i again."""
    import torch
    from torch.fx._symbolic_trace import _assert_is_none
    guards = [n for n in graph.nodes if n.op == "call_function" and n.target in (torch._assert, _assert_is_none)]
    for n in guards:
        checked = n.args[0] if n.args else None
        graph.erase_node(n)
        if getattr(checked, "op", None) == "call_function" and not checked.users:
            graph.erase_node(checked)
    kept = {n.target: n for n in graph.nodes if n.op == "placeholder" and n.target not in concrete}
    kept = {t: n for t, n in kept.items() if t in arg_names or n.users}   # a concrete argument's items go
    for n in [n for n in graph.nodes if n.op == "placeholder" and n not in kept.values()]:
        graph.erase_node(n)
    last, defaulted = None, False
    for name in arg_names:
        if name in kept:
            last = kept[name]
        elif name in concrete:
            where = graph.inserting_after(last) if last is not None else graph.inserting_before(next(iter(graph.nodes)))
            with where:   # a default when one comes before (the generated forward must be valid Python)
                default = defaults.get(name) if defaulted else inspect.Signature.empty
                last = graph.placeholder(name, default_value=default)
        defaulted = defaulted or bool(last is not None and last.args)
    graph._codegen = fx.graph.CodeGen()     # the trace's pytree flattening of the concrete arguments no longer applies


# torch.export's wrappers of a region of forward run under `with torch.no_grad():` / `torch.autocast(...)`
# (a submodule `submod_1` called by a higher-order op): its submodule's index of the module called
_REGIONS = {"wrap_with_set_grad_enabled": 1, "wrap_with_autocast": 4}


def inline_grad_regions(gm, fx):
    """The nodes of every no_grad / autocast region torch.export wrapped in a submodule, put back in the
    graph in its place (the region computes what it computes; the grad mode is not the operator's)."""
    import operator
    for n in list(gm.graph.nodes):
        k = _REGIONS.get(getattr(n.target, "__name__", "")) if n.op == "call_function" else None
        if k is None or len(n.args) <= k or getattr(n.args[k], "op", None) != "get_attr":
            continue
        holder = n.args[k]
        sub = getattr(gm, holder.target)
        env = dict(zip([p for p in sub.graph.nodes if p.op == "placeholder"], n.args[k + 1:]))
        out = ()
        with gm.graph.inserting_before(n):
            for sn in sub.graph.nodes:
                if sn.op == "placeholder":
                    continue
                if sn.op == "output":
                    out = fx.map_arg(sn.args[0], lambda a: env[a])
                    continue
                env[sn] = gm.graph.node_copy(sn, lambda a: env[a])
                if sn.op == "get_attr":
                    env[sn].target = f"{holder.target}.{sn.target}"
        for u in list(n.users):
            if u.op == "call_function" and u.target is operator.getitem:
                u.replace_all_uses_with(out[u.args[1]])
                gm.graph.erase_node(u)
        if not n.users:
            gm.graph.erase_node(n)
            if not holder.users:
                gm.graph.erase_node(holder)
    gm.graph.lint()
    gm.recompile()


def _forward_line(node, path):
    """The line of the reference file `path` that made the fx node (its innermost frame there)."""
    if not path or not getattr(node, "stack_trace", None):
        return None
    found = re.findall(r'File "([^"]+)", line (\d+)', node.stack_trace)
    lines = [int(n) for f, n in found if os.path.abspath(f) == os.path.abspath(path)]
    return lines[-1] if lines else None


def trace(module, model, inputs, torch, np):
    import torch.fx as fx
    if not isinstance(model, torch.nn.Module):
        raise JobError("to trace", "Model(...) is not a torch.nn.Module")
    forward_params = list(inspect.signature(model.forward).parameters.values())
    arg_names = [p.name for p in forward_params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    defaults = {p.name: p.default for p in forward_params if p.default is not p.empty}
    had_math = module.__dict__.get("math")
    if isinstance(had_math, types.ModuleType) and had_math.__name__ == "math":
        module.__dict__["math"] = _MathShim(fx)
    method, gm, errors = None, None, []
    # A None is never a runtime value: traced as itself, so `if reduce is not None:` takes the
    # branch this input set takes (a placeholder is never None).
    nones = {n: None for n, v in zip(arg_names, inputs) if v is None}
    # a list of tensors among the inputs (the foreach family): torch.export flattens it into one placeholder
    # per tensor, which fx's symbolic trace cannot iterate and a concrete trace would freeze into constants
    lists = any(tensor_list(v, torch) for v in inputs)
    try:
        try:
            if lists:
                raise ValueError("a list of tensors among the inputs (traced by torch.export)")
            gm = _symbolic_trace(fx, model, nones, arg_names, defaults)
            method = "fx"
        except NpuOpCalled as e:
            raise JobError("to trace", npu_refusal(e))
        except Exception as e:  # noqa: BLE001
            errors.append(f"symbolic trace: {_first_line(e)}")
        if gm is None and not lists:
            concrete = {n: v for n, v in zip(arg_names, inputs) if not isinstance(v, torch.Tensor)}
            if concrete:
                try:
                    gm = _symbolic_trace(fx, model, concrete, arg_names, defaults)
                    method = "fx-concrete-scalars"
                except NpuOpCalled as e:
                    raise JobError("to trace", npu_refusal(e))
                except Exception as e:  # noqa: BLE001
                    errors.append(f"symbolic trace with concrete scalars: {_first_line(e)}")
    finally:
        if had_math is not None:
            module.__dict__["math"] = had_math
    if gm is None:
        try:
            tensors = tuple(v for v in inputs)
            ep = torch.export.export(model, tensors)
            gm = ep.module()
            method = "export"
            # its guards compute nothing (aten._assert_tensor_metadata, _assert_async): not the op's
            for n in [n for n in gm.graph.nodes if n.op == "call_function" and not n.users
                      and str(getattr(n.target, "__name__", n.target)).lstrip("_").startswith("assert")]:
                gm.graph.erase_node(n)
            inline_grad_regions(gm, fx)
        except NpuOpCalled as e:
            raise JobError("to trace", npu_refusal(e))
        except Exception as e:  # noqa: BLE001
            errors.append(f"torch.export: {_first_line(e)}")
            raise JobError("to trace", "; ".join(errors))

    meta, fills = {}, {}

    class Recorder(fx.Interpreter):
        def run_node(self, n):
            result = super().run_node(n)
            meta[n.name] = describe_value(result, torch)
            if n.op == "get_attr" and isinstance(result, torch.Tensor):
                fills[n.name] = constant_fill(result, torch)
            return result

    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    inputs = flat_inputs(inputs, torch)
    run_args = []
    for i, n in enumerate(placeholders):
        # an argument the input set leaves out takes forward's default (fx keeps it as the placeholder's arg)
        run_args.append(inputs[i] if i < len(inputs) else (n.args[0] if n.args else None))
    with torch.no_grad():
        try:
            Recorder(gm).run(*[a.clone() if isinstance(a, torch.Tensor) else a for a in run_args])
        except NpuOpCalled as e:
            raise JobError("running the traced graph", npu_refusal(e))
        except Exception as e:  # noqa: BLE001
            raise JobError("running the traced graph", _first_line(e))
    modules = dict(gm.named_modules())
    nodes = []
    names = {}
    for n in gm.graph.nodes:
        d = {"name": n.name, "op": n.op, "meta": meta.get(n.name)}
        line = _forward_line(n, getattr(module, "__file__", None))
        if line:
            d["line"] = line
        if n.op == "placeholder":
            d["index"] = placeholders.index(n)
            d["target"] = str(n.target)
        elif n.op in ("call_function", "call_method"):
            d["target"] = target_name(n.target)
            d["args"] = [encode_arg(a, fx, torch, names) for a in n.args]
            d["kwargs"] = {k: encode_arg(v, fx, torch, names) for k, v in n.kwargs.items()}
        elif n.op == "call_module":
            d["target"] = str(n.target)
            d["module"] = module_info(modules[n.target], torch)
            d["args"] = [encode_arg(a, fx, torch, names) for a in n.args]
            d["kwargs"] = {k: encode_arg(v, fx, torch, names) for k, v in n.kwargs.items()}
        elif n.op == "get_attr":
            d["target"] = str(n.target)
            if fills.get(n.name) is not None:     # a constant the tracer lifted holds one value: that value
                d["fill"] = fills[n.name]
        elif n.op == "output":
            d["args"] = [encode_arg(a, fx, torch, names) for a in n.args]
        nodes.append(d)
    return {"method": method, "nodes": nodes, "fallback_errors": errors}


# -- jobs ----------------------------------------------------------------------------------------
def save_array(v, out, stem, np, torch):
    t = v.detach().cpu()
    dtype = str(t.dtype).replace("torch.", "")
    if t.dtype == torch.bfloat16:
        t = t.float()
    np.save(out / f"{stem}.npy", t.numpy(), allow_pickle=False)
    return {"kind": "array", "file": f"{stem}.npy", "torch_dtype": dtype}


def save_value(v, out, stem, np, torch):
    if isinstance(v, torch.Tensor):
        return save_array(v, out, stem, np, torch)
    if isinstance(v, (bool, int, float, str)) or v is None:
        return {"kind": "scalar", "value": v}
    if isinstance(v, (list, tuple)) and all(isinstance(x, (bool, int, float, str)) or x is None for x in v):
        return {"kind": "scalar", "value": list(v)}
    if isinstance(v, (list, tuple)):      # a tensor list (cat, stack): each item in order
        return {"kind": "list", "items": [save_value(x, out, f"{stem}_{i}", np, torch) for i, x in enumerate(v)]}
    return {"kind": "scalar", "value": repr(v)}


# PyTorch's CPU build lacks some half-precision kernels the NPU has ("avg_pool3d_out_frame" not
# implemented for 'Half'): such a case runs in float32, its half outputs rounded back, and says so.
_NO_HALF_KERNEL = re.compile(r"not implemented for '(Half|BFloat16)'")


def forward(model, args, path, torch, notes_out=None):
    try:
        with torch.no_grad():
            result = model(*args)
    except NpuOpCalled as e:
        raise JobError("in forward", npu_refusal(e))
    except BaseException as e:  # noqa: BLE001
        half = _NO_HALF_KERNEL.search(str(e)) if isinstance(e, (NotImplementedError, RuntimeError)) else None
        if half is None or notes_out is None:
            raise JobError("in forward", _first_line(e), _line_in(e, path))
        result = _forward_upcast(model, args, path, torch)
        dtype = {"Half": "float16", "BFloat16": "bfloat16"}[half.group(1)]
        notes_out.append(f"reference run in float32, rounded to {dtype} (CPU PyTorch: {_first_line(e)})")
    return list(result) if isinstance(result, (tuple, list)) else [result]


def _forward_upcast(model, args, path, torch):
    """forward with float16/bfloat16 tensors as float32, float32 outputs cast back to that half dtype."""
    halves = [v.dtype for v in _tensors(args, torch) if v.dtype in (torch.float16, torch.bfloat16)]
    up = _map_tensors(args, torch, lambda t: t.float() if t.dtype in (torch.float16, torch.bfloat16) else t)
    try:
        with torch.no_grad():
            result = model(*up)
    except BaseException as e:  # noqa: BLE001
        raise JobError("in forward", _first_line(e), _line_in(e, path))
    return _map_tensors(result, torch, lambda t: t.to(halves[0]) if t.dtype == torch.float32 and halves else t)


def _tensors(v, torch):
    if isinstance(v, torch.Tensor):
        return [v]
    if isinstance(v, (list, tuple)):
        return [t for x in v for t in _tensors(x, torch)]
    return []


def _map_tensors(v, torch, fn):
    if isinstance(v, torch.Tensor):
        return fn(v)
    if isinstance(v, (list, tuple)):
        return type(v)(_map_tensors(x, torch, fn) for x in v)
    return v


def clone(v, torch):
    if isinstance(v, torch.Tensor):
        return v.clone()
    if isinstance(v, list):
        return [clone(x, torch) for x in v]
    if isinstance(v, tuple):
        return tuple(clone(x, torch) for x in v)
    return v


def run_one(model, inputs, init_inputs, out, path, exact, torch, np, params=True, case=None):
    """Forward on clones of `inputs`; inputs (as they were), outputs and the Model's tensors -> out/meta.json."""
    pristine = [clone(v, torch) for v in inputs]
    args = [clone(v, torch) for v in inputs]
    if exact:
        # The same forward in float64, rounded back to float32 at the end: the answer a float32
        # kernel should approach (PyTorch's own float32 result can be further off, e.g. a norm
        # over tens of millions of elements).
        args = [v.double() if isinstance(v, torch.Tensor) and v.dtype == torch.float32 else v for v in args]
        if isinstance(model, torch.nn.Module):
            model = model.double()
    case_notes = []
    outs = forward(model, args, path, torch, case_notes)
    if exact:
        outs = [v.float() if isinstance(v, torch.Tensor) and v.dtype == torch.float64 else v for v in outs]
    meta = {
        "inputs": [save_value(v, out, f"in{i}", np, torch) for i, v in enumerate(pristine)],
        "init_inputs": [save_value(v, out, f"init{i}", np, torch) for i, v in enumerate(init_inputs)],
        "outputs": [save_value(v if isinstance(v, (torch.Tensor, list, tuple)) else torch.tensor(v),
                               out, f"out{i}", np, torch)
                    for i, v in enumerate(outs)],
        "parameters": {}, "buffers": {},
        "training": bool(getattr(model, "training", False)),
        "notes": notes() + case_notes,
        "case": case,
        **argument_names(model, inputs, init_inputs),
    }
    if isinstance(model, torch.nn.Module) and params:
        for i, (k, v) in enumerate(model.named_parameters()):
            meta["parameters"][k] = save_array(v, out, f"param{i}", np, torch)
        for i, (k, v) in enumerate(model.named_buffers()):
            meta["buffers"][k] = save_array(v, out, f"buffer{i}", np, torch)
        for i, (k, v) in enumerate(plain_tensors(model, torch).items()):
            meta["buffers"].setdefault(k, save_array(v, out, f"attr{i}", np, torch))
    (out / "meta.json").write_text(json.dumps(meta))


def argument_names(model, inputs, init_inputs):
    """What a DSL scalar can bind to by name (reference/scalars.py): forward's positional parameter
    names (one per get_inputs() value), Model.__init__'s (one per get_init_inputs() value) and the
    Model's own attributes (numbers, or the kind of anything else, which no scalar may take)."""
    forward_fn = getattr(model, "forward", model)
    try:
        params = list(inspect.signature(forward_fn).parameters.values())
        names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        names = []
    attrs = {}
    for k, v in (vars(model).items() if hasattr(model, "__dict__") else ()):
        if k.startswith("_") or k == "training" or callable(v):
            continue
        attrs[k] = v if isinstance(v, (bool, int, float)) else {"kind": type(v).__name__}
    return {"forward_args": (names + [None] * len(inputs))[: len(inputs)],
            "init_args": init_names(type(model), init_inputs), "attrs": attrs}


def notes():
    return ["it imports torch_npu, which is not installed here: a stand-in module was given, so it runs on CPU"] \
        if _NpuFinder.used else []


def job_run(job, module, out, torch, np):
    path = job["path"]
    case = job.get("case")
    if case is None and not hasattr(module, "get_inputs"):
        case = 0                                     # an NPUKernelBench reference's first case
    inputs, init_inputs, model = build(module, path, int(job.get("seed", 0)), job.get("cast_inputs"), torch, np, case)
    run_one(model, inputs, init_inputs, out, path, bool(job.get("exact")), torch, np, case=case)


def job_cases(job, module, out, torch, np):
    """Every input group: case<i>/meta.json (or case<i>/error.json), then cases.json."""
    path = job["path"]
    init_inputs, model = build_model(module, path, int(job.get("seed", 0)), torch, np)
    groups = input_groups(module, path)
    only = job.get("cases")
    wanted = set(range(len(groups))) if only is None else {int(i) for i in only}
    count = len(groups)
    for i in range(count):
        inputs, groups[i] = groups[i], None          # dropped once saved: peak memory is one case's outputs
        if i not in wanted:
            continue
        case_out = out / f"case{i}"
        case_out.mkdir(parents=True, exist_ok=True)
        try:
            run_one(model, cast(inputs, job.get("cast_inputs"), torch), init_inputs, case_out, path,
                    bool(job.get("exact")), torch, np, params=(i == min(wanted)), case=i)
        except JobError as e:
            if "NPU-only torch_npu operation" in e.message:
                raise                               # the task is refused, not one case
            (case_out / "error.json").write_text(json.dumps({"where": e.where, "message": e.message, "line": e.line}))
        del inputs
    (out / "cases.json").write_text(json.dumps({"count": count, "cases": sorted(wanted & set(range(count))),
                                                "notes": notes()}))


def job_trace(job, module, out, torch, np):
    path = job["path"]
    inputs, init_inputs, model = build(module, path, int(job.get("seed", 0)), job.get("cast_inputs"), torch, np,
                                       job.get("case"))
    if isinstance(model, torch.nn.Module):
        training = bool(model.training)
        params = {k: describe_value(v, torch) for k, v in model.named_parameters()}
        buffers = {k: describe_value(v, torch) for k, v in model.named_buffers()}
        for k, v in plain_tensors(model, torch).items():
            buffers.setdefault(k, describe_value(v, torch))
    else:
        training, params, buffers = False, {}, {}
    try:
        graph = trace(module, model, inputs, torch, np)
    except JobError:
        raise
    except BaseException as e:  # noqa: BLE001
        raise JobError("to trace", _first_line(e), _line_in(e, path))
    graph.update({
        "inputs": [describe_value(v, torch) for v in flat_inputs(inputs, torch)],
        "init_inputs": [describe_value(v, torch) for v in init_inputs],
        "init_names": init_names(module.Model, init_inputs),
        "training": training, "parameters": params, "buffers": buffers,
    })
    (out / "graph.json").write_text(json.dumps(graph))


def job_time(job, module, out, torch, np):
    path = job["path"]
    inputs, _, model = build(module, path, int(job.get("seed", 0)), job.get("cast_inputs"), torch, np,
                             job.get("case"))
    torch.set_num_threads(int(job.get("threads", 1)))
    repeats = int(job.get("repeats", 20))
    times = []
    try:
        with torch.no_grad():
            for _ in range(3):
                model(*inputs)
            for _ in range(repeats):
                t0 = time.perf_counter()
                model(*inputs)
                times.append(time.perf_counter() - t0)
    except BaseException as e:  # noqa: BLE001
        raise JobError("in forward", _first_line(e), _line_in(e, path))
    times.sort()
    (out / "timing.json").write_text(json.dumps({"median_s": times[len(times) // 2], "min_s": times[0],
                                                  "repeats": repeats, "warmup": 3,
                                                  "threads": torch.get_num_threads()}))


def main():
    jobs = json.loads(Path(sys.argv[1]).read_text())
    _private_torch_caches(Path(sys.argv[1]).parent)
    import numpy as np
    import torch
    modules = {}
    for job in jobs:
        out = Path(job["out"])
        out.mkdir(parents=True, exist_ok=True)
        path = job["path"]
        try:
            key = (path, json.dumps(job.get("overrides", {}), sort_keys=True), job.get("as_file"))
            if key not in modules:
                modules[key] = load_module(path, dict(job.get("overrides", {})), job.get("as_file"))
            module = modules[key]
            # the outputs are computed on one thread: a write by a repeated index (index_copy, x[i] = v,
            # scatter) is then PyTorch's sequential loop, the last write winning; on several threads the
            # result of a repeat depends on how the threads split the work
            torch.set_num_threads(1)
            handler = {"trace": job_trace, "run": job_run, "cases": job_cases, "time": job_time}[job["mode"]]
            handler(job, module, out, torch, np)
        except JobError as e:
            (out / "error.json").write_text(json.dumps({"where": e.where, "message": e.message, "line": e.line}))
        except BaseException as e:  # noqa: BLE001
            (out / "error.json").write_text(json.dumps({"where": "in the child", "message": _first_line(e),
                                                        "line": _line_in(e, path)}))


def _private_torch_caches(scratch):
    """torch.export and friends make caches (`torchinductor_<user>` in TMPDIR, triton's): they go
    in the run's own scratch folder, which the parent removes. A cache folder the user named is theirs."""
    for var, name in (("TORCHINDUCTOR_CACHE_DIR", "torchinductor"), ("TRITON_CACHE_DIR", "triton")):
        os.environ.setdefault(var, str(Path(scratch) / name))


def _die_with_parent():
    """SIGKILL this process when its parent dies (Linux), as ascendcraft_lab.procs asks of every child."""
    parent = os.environ.get("ASCENDCRAFT_PARENT_PID")
    try:
        import ctypes
        import signal
        ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)   # PR_SET_PDEATHSIG
    except (OSError, AttributeError, ImportError):
        pass
    if parent and parent.isdigit() and os.getppid() != int(parent):
        os._exit(1)


# -- everything the reference starts dies with it ----------------------------------------------------
_PR_SET_CHILD_SUBREAPER = 36


def become_subreaper():
    """Make this process the reaper of its orphaned descendants: a grandchild that called setsid(),
    or a `Popen(start_new_session=True)` whose parent exited, is re-parented here instead of to
    init, so `kill_descendants` still finds it. Linux >= 3.4, no privilege needed.

    Where the machine offers nothing (not Linux, a kernel or a seccomp policy that refuses the
    prctl) this returns False, and what is left is the process group the parent kills: a
    descendant that leaves the group (setsid) and whose parent exits then outlives the run."""
    try:
        import ctypes
        return ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError, ImportError):
        return False


def _descendants():
    """Pids of this process's descendants, zombies included (from /proc; none where there is no /proc)."""
    children = {}
    try:
        names = [n for n in os.listdir("/proc") if n.isdigit()]
    except OSError:
        return []
    for name in names:
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(b")") + 2:].split()[1])   # after "pid (comm) state"
        children.setdefault(ppid, []).append(int(name))
    found, todo = [], [os.getpid()]
    while todo:
        for pid in children.get(todo.pop(), []):
            found.append(pid)
            todo.append(pid)
    return found


def kill_descendants(reap=True):
    """SIGKILL every descendant (and reap those re-parented here) until none is left."""
    import signal
    for _ in range(200):
        pids = _descendants()
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if not reap:
            return
        while True:
            try:
                if os.waitpid(-1, os.WNOHANG)[0] == 0:
                    break
            except ChildProcessError:
                break
        time.sleep(0.01)


def supervise(work):
    """Run `work()` (-> exit code) in a forked worker whose reaper this process is; once the worker
    ends, or SIGTERM / SIGINT / SIGHUP arrives (the parent's timeout or interrupt), every process
    the reference started is killed, wherever it went (a new session, another group). Returns the
    worker's exit code; a worker killed by a signal (the OOM killer's SIGKILL) is mirrored: this
    process dies of the same signal, so the parent sees the same -N."""
    import resource
    import signal
    become_subreaper()
    worker = os.fork()
    if worker == 0:
        code = 1
        try:
            os.environ["ASCENDCRAFT_PARENT_PID"] = str(os.getppid())
            _die_with_parent()
            code = work()
        except BaseException:  # noqa: BLE001 - reported on stderr; the parent reads the exit code
            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    stopped = []

    def stop(signum, frame):
        stopped.append(signum)
        kill_descendants(reap=False)        # the worker's exit is collected below
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, stop)
    _, status = os.waitpid(worker, 0)
    kill_descendants()
    died_of = stopped[0] if stopped else (-os.waitstatus_to_exitcode(status) if os.WIFSIGNALED(status) else 0)
    if died_of:
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if died_of not in (signal.SIGKILL, signal.SIGSTOP):
            signal.signal(died_of, signal.SIG_DFL)
        os.kill(os.getpid(), died_of)
    return os.waitstatus_to_exitcode(status)


def _run_main():
    main()
    return 0


if __name__ == "__main__":
    _die_with_parent()
    # Every answer is on disk when the worker exits: the exit does not wait for threads the
    # reference left running (the worker leaves with os._exit).
    os._exit(supervise(_run_main))
