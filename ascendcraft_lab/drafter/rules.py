"""Rules: each torch function, Tensor method or nn module the drafter knows, as canonical nodes.

One table, `RULES`, keyed by the call's short name (`gelu` for `torch.nn.functional.gelu`,
`torch._C._nn.gelu`, `Tensor.gelu`, `aten.gelu.default`; `module:GELU` for `nn.GELU()`), each
with the call's signature so positional and keyword spellings bind alike. `build_graph` walks
the traced nodes in order and applies the rules, then `rewrite` folds the patterns that span
several nodes (a reverse scan written with flips, an exclusive scan written with cat + slice).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from . import graph as G
from .graph import Builder, Graph, Node, Unsupported, argument_name
from .conv import conv_node
from .norms import MODULE_RULES
from .remap import pad_node, roll_node, tile_node
from .resize import affine_grid_node, grid_sample_node, resize_node

_REQUIRED = object()


@dataclass(frozen=True)
class TorchDType:
    name: str


@dataclass(frozen=True)
class Rule:
    names: tuple[str, ...]
    params: tuple[tuple[str, object], ...]    # (name, default or _REQUIRED); "*name" collects the rest
    fn: Callable


RULES: dict[str, Rule] = {}


def rule(names: str, signature: str = ""):
    """Register `fn(b, **bound)` for the comma-separated `names` with a Python-like `signature`."""
    params = []
    for part in [p.strip() for p in signature.split(",") if p.strip()]:
        if "=" in part:
            k, v = part.split("=", 1)
            params.append((k.strip(), eval(v, {"inf": math.inf})))   # noqa: S307 - literals written here
        else:
            params.append((part, _REQUIRED))

    def deco(fn):
        r = Rule(tuple(n.strip() for n in names.split(",")), tuple(params), fn)
        for n in r.names:
            RULES[n] = r
        return fn
    return deco


def bind(r: Rule, name: str, args: list, kwargs: dict) -> dict:
    out = {}
    args = list(args)
    for pname, default in r.params:
        if pname.startswith("*"):
            out[pname[1:]] = args
            args = []
            continue
        if args:
            out[pname] = args.pop(0)
        elif pname in kwargs:
            out[pname] = kwargs.pop(pname)
        elif default is _REQUIRED:
            raise Unsupported(f"`{name}` is called without its `{pname}` argument")
        else:
            out[pname] = default
    ignored = {"inplace", "out", "memory_format", "layout", "device", "pin_memory", "requires_grad",
               "non_blocking", "copy", "half_to_float", "_stacklevel"}
    extra = [k for k in kwargs if k not in ignored]
    if args or extra:
        given = ", ".join([repr(a) for a in args] + extra)
        raise Unsupported(f"`{name}` with arguments {given} the drafter does not know")
    return out


def val(x):
    """The Python value of a constant or traced scalar (None for tensors)."""
    if isinstance(x, Node):
        return None if x.is_tensor else x.value
    return x


def T(x, what="operand") -> Node:
    if not isinstance(x, Node):
        raise Unsupported(f"expected a tensor {what}, got {x!r}")
    return x


# -- elementwise arithmetic -------------------------------------------------------------------------
@rule("add, iadd, __add__, __radd__", "input, other, alpha=1")
def _add(b, input, other, alpha):
    return b.add(input, b.mul(other, alpha))


@rule("sub, subtract, isub, __sub__", "input, other, alpha=1")
def _sub(b, input, other, alpha):
    return b.sub(input, b.mul(other, alpha))


@rule("rsub, __rsub__", "input, other, alpha=1")
def _rsub(b, input, other, alpha):
    return b.sub(other, b.mul(input, alpha))


@rule("mul, multiply, imul, __mul__, __rmul__", "input, other")
def _mul(b, input, other):
    return b.mul(input, other)


@rule("div, divide, true_divide, truediv, itruediv, __truediv__", "input, other, rounding_mode=None")
def _div(b, input, other, rounding_mode):
    if rounding_mode is not None:
        raise Unsupported(f"division with rounding_mode={rounding_mode!r}")
    return b.div(input, other)


@rule("floordiv, __floordiv__", "input, other")
def _floordiv(b, input, other):
    x, y = val(input), val(other)
    if isinstance(input, Node) and input.is_tensor or isinstance(other, Node) and other.is_tensor:
        raise Unsupported("floor division of tensors")
    if isinstance(x, int) and isinstance(y, int) and not isinstance(input, Node) and not isinstance(other, Node):
        return b.const(x // y)
    return b.ew("floordiv", input, other)


@rule("neg, negative, __neg__", "input")
def _neg(b, input):
    return b.ew("neg", input)


@rule("pos, positive", "input")
def _pos(b, input):
    return input


for _name in ("abs", "exp", "log", "sqrt", "rsqrt", "reciprocal", "sigmoid", "tanh", "relu"):
    def _unary(b, input, _op=_name):
        return b.ew(_op, input)
    rule(_name + (", absolute" if _name == "abs" else ", expit" if _name == "sigmoid" else ""), "input")(_unary)


@rule("exp2", "input")
def _exp2(b, input):
    return b.ew("exp", b.mul(input, math.log(2.0)))


@rule("expm1", "input")
def _expm1(b, input):
    return b.sub(b.ew("exp", input), 1.0)


@rule("log2", "input")
def _log2(b, input):
    return b.mul(b.ew("log", input), 1.0 / math.log(2.0))


@rule("log10", "input")
def _log10(b, input):
    return b.mul(b.ew("log", input), 1.0 / math.log(10.0))


@rule("log1p", "input")
def _log1p(b, input):
    return b.ew("log", b.add(input, 1.0))


@rule("square", "input")
def _square(b, input):
    return b.mul(input, input)


@rule("pow, __pow__, float_power", "input, exponent")
def _pow(b, input, exponent):
    return G.power(b, input, exponent)


@rule("__rpow__", "input, other")
def _rpow(b, input, other):
    return G.power(b, other, input)


@rule("maximum, fmax", "input, other")
def _maximum(b, input, other):
    return b.maximum(input, other)


@rule("minimum, fmin", "input, other")
def _minimum(b, input, other):
    return b.minimum(input, other)


@rule("clamp, clip", "input, min=None, max=None")
def _clamp(b, input, min, max):
    return b.clamp(input, min, max)


@rule("clamp_min", "input, min")
def _clamp_min(b, input, min):
    return b.clamp(input, min, None)


@rule("clamp_max", "input, max")
def _clamp_max(b, input, max):
    return b.clamp(input, None, max)


@rule("where", "condition, input=None, other=None")
def _where(b, condition, input, other):
    if input is None:
        raise Unsupported("torch.where(condition) with one argument (it returns indices)")
    return b.ew("where", _as_mask(b, condition), input, other)


@rule("masked_fill", "input, mask, value")
def _masked_fill(b, input, mask, value):
    return b.ew("where", _as_mask(b, mask), value, input)


def _as_mask(b, m):
    if isinstance(m, Node) and m.is_tensor and m.dtype != "bool":
        return b.ew("ne", m, 0.0)
    return m


for _cmp, _aliases in (("lt", "less"), ("le", "less_equal"), ("gt", "greater"), ("ge", "greater_equal"),
                       ("eq", ""), ("ne", "not_equal")):
    def _compare(b, input, other, _op=_cmp):
        return b.ew(_op, input, other)
    rule(", ".join(n for n in (_cmp, _aliases, f"__{_cmp}__") if n), "input, other")(_compare)


@rule("item", "input")
def _item(b, input):
    """`t.item()` of a one-element tensor: that tensor as a 0-d value (it broadcasts like a number)."""
    if not T(input).is_tensor or math.prod(input.shape) != 1:
        raise Unsupported(f"`.item()` of a tensor of shape {tuple(input.shape or ())} (one element only)")
    return input if len(input.shape) <= 1 else b.reshape(input, [])     # (1,) broadcasts as () does


# predicates: comparisons of the value with itself and with infinity (NaN compares unequal to everything)
@rule("isinf", "input")
def _isinf(b, input):
    return b.ew("eq", b.ew("abs", _float_operand(input, "isinf")), math.inf)


@rule("isposinf", "input")
def _isposinf(b, input):
    return b.ew("eq", _float_operand(input, "isposinf"), math.inf)


@rule("isneginf", "input")
def _isneginf(b, input):
    return b.ew("eq", _float_operand(input, "isneginf"), -math.inf)


@rule("isnan", "input")
def _isnan(b, input):
    x = _float_operand(input, "isnan")
    return b.ew("ne", x, x)


@rule("isfinite", "input")
def _isfinite(b, input):
    return b.ew("lt", b.ew("abs", _float_operand(input, "isfinite")), math.inf)


# the largest finite value of each float dtype (nan_to_num's default replacements of +-inf)
_FINITE_MAX = {"float32": 3.4028234663852886e38, "float16": 65504.0, "bfloat16": 3.3895313892515355e38}


@rule("nan_to_num", "input, nan=0.0, posinf=None, neginf=None")
def _nan_to_num(b, input, nan, posinf, neginf):
    x = _float_operand(input, "nan_to_num")
    big = _FINITE_MAX[x.dtype]
    hi = big if posinf is None else posinf
    lo = -big if neginf is None else neginf
    y = b.ew("where", b.ew("eq", x, -math.inf), lo, x)
    y = b.ew("where", b.ew("eq", x, math.inf), hi, y)
    return b.ew("where", b.ew("ne", x, x), 0.0 if nan is None else nan, y)


def _float_operand(x, what: str) -> Node:
    if not T(x).is_tensor or x.dtype not in G.FLOAT_DTYPES:
        raise Unsupported(f"`{what}` of a {x.dtype if isinstance(x, Node) else type(x).__name__} value "
                          "(float tensors only)")
    return x


# logic on bool tensors (any other dtype: true where nonzero, as torch.logical_* reads it): a mask as
# 1.0 / 0.0 (a select), combined by a select, and compared back into a mask
def _ones(b, m) -> Node:
    if isinstance(m, Node) and m.op == "gt" and m.args[1].is_const and m.args[1].value == 0.5 and _is01(m.args[0]):
        return m.args[0]          # a mask this section made from a 1.0 / 0.0 value: that value
    return b.ew("where", _as_mask(b, m), 1.0, 0.0)


def _is01(n: Node) -> bool:
    def one_or_zero(a):
        return (a.is_const and a.value in (0.0, 1.0) and not isinstance(a.value, bool)) or (a.is_tensor and _is01(a))
    return n.op == "where" and one_or_zero(n.args[1]) and one_or_zero(n.args[2])


@rule("logical_and, __and__, and_, bitwise_and, __iand__", "input, other")
def _logical_and(b, input, other):
    _logic_operands("and", input, other)
    return b.ew("gt", b.ew("where", _as_mask(b, input), _ones(b, other), 0.0), 0.5)


@rule("logical_or, __or__, or_, bitwise_or, __ior__", "input, other")
def _logical_or(b, input, other):
    _logic_operands("or", input, other)
    return b.ew("gt", b.ew("where", _as_mask(b, input), 1.0, _ones(b, other)), 0.5)


@rule("logical_xor, __xor__, xor, bitwise_xor, __ixor__", "input, other")
def _logical_xor(b, input, other):
    _logic_operands("xor", input, other)
    return b.ew("ne", _ones(b, input), _ones(b, other))


@rule("logical_not, __invert__, invert, bitwise_not", "input")
def _logical_not(b, input):
    _logic_operands("not", input)
    return b.ew("gt", b.ew("where", _as_mask(b, input), 0.0, 1.0), 0.5)


def _logic_operands(what: str, *xs) -> None:
    for x in xs:
        if not (isinstance(x, Node) and x.is_tensor):
            raise Unsupported(f"a logical `{what}` of a {type(x).__name__} (tensors only)")


# torch's rounding functions: the DSL's rint / floor / ceil / trunc (torch.round is half to even: rint)
for _name, _mode in (("round", "rint"), ("floor", "floor"), ("ceil", "ceil"), ("trunc", "trunc"), ("fix", "trunc")):
    def _rounding(b, input, decimals=0, _mode=_mode, _name=_name):
        if val(decimals) != 0:
            raise Unsupported(f"`{_name}` with decimals={val(decimals)!r} (only whole numbers)")
        if not T(input).is_tensor or input.dtype not in G.FLOAT_DTYPES:
            return input                                    # an integer tensor is already whole
        return b.ew(_mode, input)
    rule(_name, "input, decimals=0" if _name == "round" else "input")(_rounding)


@rule("erf", "input")
def _erf(b, input):
    return G.erf(b, input)


# -- dtype conversions and identities ------------------------------------------------------------
@rule("float", "input, memory_format=None")
def _float(b, input, memory_format):
    return b.cast(input, "float32")


@rule("half", "input, memory_format=None")
def _half(b, input, memory_format):
    return b.cast(input, "float16")


@rule("bool", "input, memory_format=None")
def _bool(b, input, memory_format):
    return b.cast(input, "bool") if input.dtype != "bool" else input


@rule("to, type", "input, *rest, dtype=None")
def _to(b, input, rest, dtype):
    for r in list(rest) + [dtype]:
        if isinstance(r, TorchDType):
            return _to_dtype(b, input, r.name)
        if isinstance(r, Node) and r.is_tensor:
            return _to_dtype(b, input, r.dtype)
    return input


@rule("type_as", "input, other")
def _type_as(b, input, other):
    return _to_dtype(b, input, T(other).dtype)


def _to_dtype(b, x, name):
    if name in ("float64", "double"):
        raise Unsupported("float64 (double) tensors: the vector unit computes in f32 or f16")
    if name not in ("float32", "float16", "bool", "bfloat16", "int8", "int32", "int64"):
        raise Unsupported(f"conversion to {name}")
    return b.cast(x, name)


@rule("long", "input, memory_format=None")
def _long(b, input, memory_format):
    return _to_dtype(b, T(input), "int64")


@rule("int", "input, memory_format=None")
def _int(b, input, memory_format):
    return _to_dtype(b, T(input), "int32")


@rule("contiguous, clone, detach, identity, module:Identity, alias, lift_fresh_copy, cpu, cuda, npu, pin_memory",
      "input, *rest")
def _identity(b, input, rest):
    return input


@rule("dropout, alpha_dropout, feature_alpha_dropout", "input, p=0.5, training=True, inplace=False")
def _dropout(b, input, p, training, inplace):
    if training and val(p):
        raise Unsupported("dropout in training mode (random; put the model in eval mode or use p=0)")
    return input


# -- activations --------------------------------------------------------------------------------------
@rule("gelu", "input, approximate='none'")
def _gelu(b, input, approximate):
    return G.gelu(b, input, approximate)


@rule("elu", "input, alpha=1.0, scale=1.0, input_scale=1.0, inplace=False")
def _elu(b, input, alpha, scale, input_scale, inplace):
    return G.elu(b, input, alpha, scale, input_scale)


@rule("selu", "input, inplace=False")
def _selu(b, input, inplace):
    return G.elu(b, input, G.SELU_ALPHA, G.SELU_SCALE)


@rule("celu", "input, alpha=1.0, inplace=False")
def _celu(b, input, alpha, inplace):
    return G.elu(b, input, alpha, 1.0, b.div(1.0, alpha))


@rule("silu, swish", "input, inplace=False")
def _silu(b, input, inplace):
    return b.mul(input, b.ew("sigmoid", input))


@rule("mish", "input, inplace=False")
def _mish(b, input, inplace):
    return b.mul(input, b.ew("tanh", G.softplus(b, input, 1.0, None)))


@rule("softplus", "input, beta=1.0, threshold=20.0")
def _softplus(b, input, beta, threshold):
    return G.softplus(b, input, beta, threshold)


@rule("softsign", "input")
def _softsign(b, input):
    return b.div(input, b.add(b.ew("abs", input), 1.0))


@rule("hardsigmoid", "input, inplace=False")
def _hardsigmoid(b, input, inplace):
    return G.hardsigmoid(b, input)


@rule("hardswish", "input, inplace=False")
def _hardswish(b, input, inplace):
    return b.mul(input, G.hardsigmoid(b, input))


@rule("hardtanh", "input, min_val=-1.0, max_val=1.0, inplace=False")
def _hardtanh(b, input, min_val, max_val, inplace):
    return b.clamp(input, min_val, max_val)


@rule("relu6", "input, inplace=False")
def _relu6(b, input, inplace):
    return b.clamp(input, 0.0, 6.0)


@rule("leaky_relu", "input, negative_slope=0.01, inplace=False")
def _leaky_relu(b, input, negative_slope, inplace):
    slope = val(negative_slope)
    if slope is not None and 0.0 <= slope <= 1.0:
        return b.maximum(input, b.mul(input, negative_slope))
    return b.ew("where", b.ew("gt", input, 0.0), input, b.mul(input, negative_slope))


@rule("logsigmoid", "input")
def _logsigmoid(b, input):
    return b.ew("neg", G.softplus(b, b.ew("neg", input), 1.0, None))


@rule("threshold", "input, threshold, value, inplace=False")
def _threshold(b, input, threshold, value, inplace):
    return b.ew("where", b.ew("gt", input, threshold), input, value)


@rule("tanhshrink", "input")
def _tanhshrink(b, input):
    return b.sub(input, b.ew("tanh", input))


@rule("softshrink", "input, lambd=0.5")
def _softshrink(b, input, lambd):
    return b.add(b.ew("relu", b.sub(input, lambd)), b.ew("neg", b.ew("relu", b.sub(b.ew("neg", input), lambd))))


@rule("hardshrink", "input, lambd=0.5")
def _hardshrink(b, input, lambd):
    return b.ew("where", b.ew("gt", b.ew("abs", input), lambd), input, 0.0)


# -- activation backward (aten's *_backward: the gradient and the forward's input or output) --------
# grad_input = grad_output * d act / dx, elementwise; a where() keeps PyTorch's zero gradient outside
# a piecewise range (relu, hardtanh, hardsigmoid, shrinks) exactly 0, not 0 * grad.
@rule("threshold_backward", "grad_output, self, threshold")
def _threshold_backward(b, grad_output, self, threshold):
    return b.ew("where", b.ew("gt", self, threshold), grad_output, 0.0)


@rule("elu_backward", "grad_output, alpha, scale, input_scale, is_result, self_or_result")
def _elu_backward(b, grad_output, alpha, scale, input_scale, is_result, self_or_result):
    if not isinstance(val(is_result), bool):
        raise Unsupported("`elu_backward` with an is_result that is not a constant bool")
    return b.mul(grad_output, G.elu_derivative(b, self_or_result, alpha, scale, input_scale, val(is_result)))


@rule("sigmoid_backward", "grad_output, output")
def _sigmoid_backward(b, grad_output, output):
    return b.mul(b.mul(grad_output, b.sub(1.0, output)), output)


@rule("tanh_backward", "grad_output, output")
def _tanh_backward(b, grad_output, output):
    return b.mul(grad_output, b.sub(1.0, b.mul(output, output)))


@rule("gelu_backward", "grad_output, self, approximate='none'")
def _gelu_backward(b, grad_output, self, approximate):
    return b.mul(grad_output, G.gelu_derivative(b, self, approximate))


@rule("silu_backward", "grad_output, self")
def _silu_backward(b, grad_output, self):
    s = b.ew("sigmoid", self)
    return b.mul(b.mul(grad_output, s), b.add(b.mul(self, b.sub(1.0, s)), 1.0))


@rule("mish_backward", "grad_output, self")
def _mish_backward(b, grad_output, self):
    t = b.ew("tanh", G.softplus(b, self, 1.0, None))
    return b.mul(grad_output, b.add(t, b.mul(b.mul(self, b.ew("sigmoid", self)), b.sub(1.0, b.mul(t, t)))))


@rule("hardsigmoid_backward", "grad_output, self")
def _hardsigmoid_backward(b, grad_output, self):
    inside = b.ew("where", b.ew("lt", self, 3.0), b.div(grad_output, 6.0), 0.0)
    return b.ew("where", b.ew("gt", self, -3.0), inside, 0.0)


@rule("hardswish_backward", "grad_output, self")
def _hardswish_backward(b, grad_output, self):
    mid = b.ew("where", b.ew("le", self, 3.0), b.mul(grad_output, b.add(b.div(self, 3.0), 0.5)), grad_output)
    return b.ew("where", b.ew("ge", self, -3.0), mid, 0.0)


@rule("hardtanh_backward", "grad_output, self, min_val, max_val")
def _hardtanh_backward(b, grad_output, self, min_val, max_val):
    inside = b.ew("where", b.ew("lt", self, max_val), grad_output, 0.0)
    return b.ew("where", b.ew("gt", self, min_val), inside, 0.0)


@rule("leaky_relu_backward", "grad_output, self, negative_slope, self_is_result")
def _leaky_relu_backward(b, grad_output, self, negative_slope, self_is_result):
    return b.ew("where", b.ew("gt", self, 0.0), grad_output, b.mul(grad_output, negative_slope))


@rule("softplus_backward", "grad_output, self, beta=1.0, threshold=20.0")
def _softplus_backward(b, grad_output, self, beta, threshold):
    return b.mul(grad_output, G.softplus_derivative(b, self, beta, threshold))


@rule("hardshrink_backward, softshrink_backward", "grad_output, self, lambd=0.5")
def _shrink_backward(b, grad_output, self, lambd):
    return b.ew("where", b.ew("gt", b.ew("abs", self), lambd), grad_output, 0.0)


@rule("softmax, _softmax, special_softmax", "input, dim=None, dtype=None")
def _softmax(b, input, dim, dtype):
    return G.softmax(b, T(input), _dim_required(dim, input, "softmax"))


@rule("log_softmax, _log_softmax", "input, dim=None, dtype=None")
def _log_softmax(b, input, dim, dtype):
    return G.log_softmax(b, T(input), _dim_required(dim, input, "log_softmax"))


def _dim_required(dim, x, what):
    if isinstance(dim, TorchDType):
        dim = None
    if dim is None:
        if len(T(x).shape) in (0, 1, 3):
            return 0
        return 1     # torch's legacy implicit dim for 2-D and 4-D inputs
    return val(dim)


@rule("logsumexp", "input, dim, keepdim=False")
def _logsumexp(b, input, dim, keepdim):
    return G.logsumexp(b, T(input), dim, keepdim)


# -- reductions --------------------------------------------------------------------------------
def _axes(dim):
    """The reduced axes of a dim argument: None (all), an int, a list of them; a forward argument
    (a get_inputs() scalar or list) by its traced value."""
    if isinstance(dim, Node) and not dim.is_tensor:
        dim = dim.value
    if dim is None:
        return None
    if isinstance(dim, (list, tuple)):
        return [val(d) for d in dim]
    return [val(dim)]


@rule("sum", "input, dim=None, keepdim=False, dtype=None")
def _sum(b, input, dim, keepdim, dtype):
    return b.reduce("sum", T(input), _axes(dim), bool(val(keepdim)))


@rule("mean", "input, dim=None, keepdim=False, dtype=None")
def _mean(b, input, dim, keepdim, dtype):
    return b.mean(T(input), _axes(dim), bool(val(keepdim)))


@rule("prod", "input, dim=None, keepdim=False, dtype=None")
def _prod(b, input, dim, keepdim, dtype):
    return b.reduce("prod", T(input), _axes(dim), bool(val(keepdim)))


@rule("amax", "input, dim=(), keepdim=False")
def _amax(b, input, dim, keepdim):
    return b.reduce("max", T(input), _axes(dim) or None, bool(val(keepdim)))


@rule("amin", "input, dim=(), keepdim=False")
def _amin(b, input, dim, keepdim):
    return b.reduce("min", T(input), _axes(dim) or None, bool(val(keepdim)))


def _max_min(kind):
    def fn(b, input, dim, keepdim):
        if isinstance(dim, Node) and dim.is_tensor:           # torch.max(a, b): elementwise
            return b.ew(kind, input, dim)
        if dim is None:
            return b.reduce(kind, T(input), None, False)
        values = b.reduce(kind, T(input), [val(dim)], bool(val(keepdim)))
        return ReturnTuple(values, b.argreduce(kind, T(input), val(dim), bool(val(keepdim))))
    return fn


rule("max", "input, dim=None, keepdim=False")(_max_min("max"))
rule("min", "input, dim=None, keepdim=False")(_max_min("min"))


@rule("norm", "input, p='fro', dim=None, keepdim=False, dtype=None")
def _norm(b, input, p, dim, keepdim, dtype):
    return G.norm(b, T(input), val(p), _axes(dim), bool(val(keepdim)))


@rule("vector_norm, linalg_vector_norm", "input, ord=2, dim=None, keepdim=False, dtype=None")
def _vector_norm(b, input, ord, dim, keepdim, dtype):
    return G.norm(b, T(input), val(ord), _axes(dim), bool(val(keepdim)))


@rule("normalize", "input, p=2.0, dim=1, eps=1e-12, out=None")
def _normalize(b, input, p, dim, eps, out):
    """F.normalize: x / max(||x||_p, eps) along `dim`, the norm kept as a per-row value."""
    x = T(input)
    return b.div(x, b.maximum(G.norm(b, x, val(p), _axes(val(dim)), True), b.const(float(val(eps)))))


def _trailing(x: Node, normalized_shape, what: str) -> tuple:
    shape = tuple(int(val(d)) for d in val(normalized_shape))   # traced dims (x.shape[-1:]) carry their value
    rank = len(x.shape)
    if not shape or tuple(x.shape[rank - len(shape):]) != shape:
        raise Unsupported(f"{what} over {shape} of a tensor of shape {tuple(x.shape)}")
    return tuple(range(rank - len(shape), rank))


def _elementwise_affine(b, y: Node, weight, bias) -> Node:
    """y * weight + bias, the tensors (of the normalized shape) broadcast against y as NumPy does."""
    if weight is not None:
        y = b.mul(y, T(weight, "weight"))
    if bias is not None:
        y = b.add(y, T(bias, "bias"))
    return y


@rule("layer_norm", "input, normalized_shape, weight=None, bias=None, eps=1e-5")
def _layer_norm(b, input, normalized_shape, weight, bias, eps):
    """F.layer_norm; a weight and bias (forward's tensors, or nn.LayerNorm's) of the normalized shape."""
    from .norms import normalize
    x = T(input)
    axes = _trailing(x, normalized_shape, "F.layer_norm")
    eps = eps if isinstance(eps, Node) else float(val(eps))
    return _elementwise_affine(b, normalize(b, x, axes, eps), weight, bias)


@rule("group_norm", "input, num_groups, weight=None, bias=None, eps=1e-5")
def _group_norm(b, input, num_groups, weight, bias, eps):
    """F.group_norm; a per-channel weight and bias of forward's inputs, as nn.GroupNorm's."""
    from .norms import channel_leaf, grouped, int_init
    x = T(input)
    G = int(val(num_groups))
    # a number of groups equal to one int of get_init_inputs() is that init input (F.group_norm(x, self.groups))
    groups = num_groups if isinstance(num_groups, Node) and num_groups.op == "scalar" else int_init(b, G)
    return grouped(b, x, G, groups, eps if isinstance(eps, Node) else float(val(eps)),
                   channel_leaf(b, x, weight, "weight"), channel_leaf(b, x, bias, "bias"))


class _NormResult(tuple):
    """(out, mean, rstd) of aten.native_layer_norm / native_group_norm: the normalized output is drafted;
    the saved statistics (for a backward) are refused when forward reads them."""

    def __getitem__(self, i):
        if i == 0:
            return tuple.__getitem__(self, 0)
        raise Unsupported(f"output {i} of {tuple.__getitem__(self, 1)} (the saved mean / rstd; the drafter "
                          "drafts the normalized output)")


@rule("native_layer_norm", "input, normalized_shape, weight, bias, eps")
def _native_layer_norm(b, input, normalized_shape, weight, bias, eps):
    return _NormResult((_layer_norm(b, input, normalized_shape, weight, bias, eps), "native_layer_norm"))


@rule("native_group_norm", "input, weight, bias, N, C, HxW, group, eps")
def _native_group_norm(b, input, weight, bias, N, C, HxW, group, eps):
    """aten.native_group_norm (torch.export's group norm): N, C and HxW are the input's sizes."""
    x = T(input)
    if len(x.shape) < 2 or (val(N), val(C), val(HxW)) != (x.shape[0], x.shape[1], math.prod(x.shape[2:])):
        raise Unsupported("aten.native_group_norm with sizes other than the input's")
    return _NormResult((_group_norm(b, x, group, weight, bias, eps), "native_group_norm"))


@rule("rms_norm", "input, normalized_shape, weight=None, eps=None")
def _rms_norm(b, input, normalized_shape, weight, eps):
    """F.rms_norm: x * rsqrt(mean(x * x) + eps) over the trailing axes, times the weight; eps None
    is the input dtype's machine epsilon, as PyTorch takes it."""
    x = T(input)
    axes = _trailing(x, normalized_shape, "F.rms_norm")
    if val(eps) is None:       # torch.finfo(x.dtype).eps
        eps = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}.get(x.dtype, 2.0 ** -23)
    ms = b.div(b.reduce("sum", b.mul(x, x), axes, True), b.count(x, axes))
    return _elementwise_affine(b, b.mul(x, b.ew("rsqrt", b.add(ms, eps))), weight, None)


def _argreduce(kind):
    def fn(b, input, dim, keepdim):
        return b.argreduce(kind, T(input), val(dim), bool(val(keepdim)))
    return fn


# -- sorting: (values, indices) of a stable sort along one axis (sort.py) ---------------------------
@rule("sort", "input, dim=-1, descending=False, stable=False")
def _sort(b, input, dim, descending, stable):
    # PyTorch orders equal values as they come only with stable=True; the kernel's sort is stable
    # either way, which is one of the orders stable=False allows
    return ReturnTuple(*b.sort(T(input), val(dim), bool(val(descending))), both=True)


@rule("argsort", "input, dim=-1, descending=False, stable=False")
def _argsort(b, input, dim, descending, stable):
    return b.sort(T(input), val(dim), bool(val(descending)), what="argsort")[1]


@rule("msort", "input")
def _msort(b, input):
    return b.sort(T(input), 0, False, what="msort")[0]


def _count(b, k):
    """k of topk / kthvalue as the kernel should read it: a forward scalar stays that scalar, an int
    equal to exactly one int of get_init_inputs() is that init input (the Model's self.k, so a tail
    shape with another k runs the same draft), anything else a constant."""
    if isinstance(k, Node) and not k.is_tensor and k.op == "scalar":
        return k
    v = val(k)
    if isinstance(v, bool) or not isinstance(v, int):
        raise Unsupported(f"k = {v!r} (an int)")
    same = [i for i, d in enumerate(b.init_inputs) if d.get("kind") == "scalar" and d.get("type") == "int"
            and d.get("value") == v]
    if len(same) == 1:
        i = same[0]
        name = argument_name(b.init_names, "init", i)
        return Node("scalar", (), {"source": "init", "index": i, "pyname": name}, None, "int", v, name=name)
    return v


@rule("topk", "input, k, dim=-1, largest=True, sorted=True")
def _topk(b, input, k, dim, largest, sorted):
    if not bool(val(sorted)):
        raise Unsupported("torch.topk(sorted=False): PyTorch leaves the order of the k values unspecified; "
                          "the drafter writes them sorted, so pass sorted=True")
    return ReturnTuple(*b.sort(T(input), val(dim), bool(val(largest)), _count(b, k), what="topk"), both=True)


@rule("kthvalue", "input, k, dim=-1, keepdim=False")
def _kthvalue(b, input, k, dim, keepdim):
    return ReturnTuple(*b.sort(T(input), val(dim), False, _count(b, k), kth=True, keepdim=bool(val(keepdim)),
                               what="kthvalue"), both=True)


rule("argmax", "input, dim=None, keepdim=False")(_argreduce("max"))
rule("argmin", "input, dim=None, keepdim=False")(_argreduce("min"))


for _name in ("var", "std", "median", "mode"):
    def _unsupported_reduction(b, input, rest, _n=_name):
        raise Unsupported(f"`{_n}` (index-valued and order statistics have no template yet)")
    rule(_name, "input, *rest")(_unsupported_reduction)


# -- scans -----------------------------------------------------------------------------------------
@rule("cumsum", "input, dim, dtype=None")
def _cumsum(b, input, dim, dtype):
    return b.scan("cumsum", T(input), val(dim))


@rule("cumprod", "input, dim, dtype=None")
def _cumprod(b, input, dim, dtype):
    return b.scan("cumprod", T(input), val(dim))


@rule("flip", "input, *dims")
def _flip(b, input, dims):
    if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        dims = dims[0]
    x = T(input)
    axes = tuple(sorted({G.norm_axis(val(d), len(x.shape)) for d in dims}))
    return Node("flip", (x,), {"axes": axes}, x.shape, x.dtype)


@rule("fliplr", "input")
def _fliplr(b, input):
    x = T(input)
    if len(x.shape) < 2:
        raise Unsupported("torch.fliplr of a tensor with fewer than 2 axes (PyTorch refuses it too)")
    return Node("flip", (x,), {"axes": (1,)}, x.shape, x.dtype)


@rule("flipud", "input")
def _flipud(b, input):
    x = T(input)
    if not x.shape:
        raise Unsupported("torch.flipud of a 0-d tensor (PyTorch refuses it too)")
    return Node("flip", (x,), {"axes": (0,)}, x.shape, x.dtype)


@rule("pad", "input, pad, mode='constant', value=None")
def _pad(b, input, pad, mode, value):
    return pad_node(T(input), _static(pad, "pad sizes", "F.pad"), val(mode), val(value))


@rule("constant_pad_nd", "input, pad, value=0")
def _constant_pad_nd(b, input, pad, value):
    return pad_node(T(input), _static(pad, "pad sizes", "F.pad"), "constant", val(value))


def _pad_rule(mode: str):
    def fn(b, input, padding, value=None):
        p = _static(padding, "pad sizes", "F.pad")
        x = T(input)
        if isinstance(p, int):          # nn.ReflectionPad2d(3): the same pad on every side of its dims
            k = {"1d": 1, "2d": 2, "3d": 3}[fn.dims]
            p = [p] * (2 * k)
        return pad_node(x, p, mode, val(value))
    return fn


for _mode, _aten in (("reflect", "reflection_pad"), ("replicate", "replication_pad"), ("circular", "circular_pad"),
                     ("constant", "constant_pad")):
    for _d in ("1d", "2d", "3d"):
        _fn = _pad_rule(_mode)
        _fn.dims = _d
        rule(f"{_aten}{_d}", "input, padding, value=None")(_fn)


@rule("roll", "input, shifts, dims=None")
def _roll(b, input, shifts, dims):
    return roll_node(T(input), _static(shifts, "shifts", "torch.roll"), _static(dims, "dims", "torch.roll"))


# -- indexing: integer index tensors pick elements or whole slices -----------------------------------------
def _index(x, what) -> Node:
    x = T(x, what)
    if x.dtype not in ("int64", "int32"):
        raise Unsupported(f"{what} of dtype {x.dtype} (an int64 or int32 index tensor)")
    return x


@rule("gather", "input, dim, index, sparse_grad=False")
def _gather(b, input, dim, index, sparse_grad):
    x, idx = T(input), _index(index, "gather's index")
    axis = G.norm_axis(val(dim), len(x.shape))
    if axis != len(x.shape) - 1:
        raise Unsupported(f"torch.gather along dim {val(dim)} of a rank-{len(x.shape)} tensor (the drafter "
                          "gathers along the last dim)")
    if tuple(idx.shape[:-1]) != tuple(x.shape[:-1]):
        raise Unsupported(f"torch.gather with an index of shape {tuple(idx.shape)} for values of shape "
                          f"{tuple(x.shape)} (the dims before the last must agree)")
    return b.gather(x, idx, axis)


@rule("take_along_dim", "input, indices, dim=None")
def _take_along_dim(b, input, indices, dim):
    x = T(input)
    if dim is None:
        raise Unsupported("take_along_dim without `dim` (over the flattened tensor)")
    return _gather(b, x, dim, indices, False)


@rule("index_select", "input, dim, index")
def _index_select(b, input, dim, index):
    x, idx = T(input), _index(index, "index_select's index")
    if len(idx.shape) != 1:
        raise Unsupported(f"index_select with a rank-{len(idx.shape)} index (it takes a 1-D index)")
    axis = G.norm_axis(val(dim), len(x.shape))
    if axis == len(x.shape) - 1:
        return b.gather(x, idx, axis, shared=True)
    return b.take_rows(x, idx, axis)


@rule("embedding", "input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, "
      "sparse=False")
def _embedding(b, input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse):
    if max_norm is not None:
        raise Unsupported("nn.Embedding with max_norm (it renormalises the weight rows in place)")
    w = T(weight, "embedding weight")
    if len(w.shape) != 2:
        raise Unsupported(f"an embedding weight of rank {len(w.shape)}")
    return b.take_rows(w, _index(input, "the embedding's index"), 0)


@rule("index_add", "input, dim, index, source, alpha=1")
def _index_add(b, input, dim, index, source, alpha):
    x, idx, src = T(input), _index(index, "index_add's index"), T(source, "index_add's source")
    axis = G.norm_axis(val(dim), len(x.shape))
    if axis != 0 or len(x.shape) < 2:
        raise Unsupported(f"index_add along dim {val(dim)} of a rank-{len(x.shape)} tensor (the drafter adds whole "
                          "rows along dim 0 of a tensor of rank 2 or more)")
    if len(idx.shape) != 1 or tuple(src.shape) != (idx.shape[0],) + tuple(x.shape[1:]):
        raise Unsupported(f"index_add of a source of shape {tuple(src.shape)} by an index of shape {tuple(idx.shape)}")
    a = val(alpha)
    if not isinstance(a, (int, float)) or isinstance(a, bool):
        raise Unsupported("index_add with an alpha that is not a number")
    return b.index_add(x, idx, src, float(a))


@rule("scatter_add", "input, dim, index, src")
def _scatter_add(b, input, dim, index, src):
    x, idx, s = T(input), _index(index, "scatter_add's index"), T(src, "scatter_add's src")
    axis = G.norm_axis(val(dim), len(x.shape))
    if len(x.shape) != 2:
        raise Unsupported(f"scatter_add into a rank-{len(x.shape)} tensor (the drafter scatters into 2-D tensors)")
    other = 1 - axis
    if tuple(idx.shape) != tuple(s.shape) or idx.shape[other] != x.shape[other]:
        raise Unsupported(f"scatter_add by an index of shape {tuple(idx.shape)} with src {tuple(s.shape)} into "
                          f"{tuple(x.shape)} (index and src of one shape, as long as the tensor along dim {other})")
    return b.scatter_add(x, idx, s, axis)


def _rows_source(x: Node, idx: Node, src: Node, who: str) -> None:
    """A write of whole rows along dim 0: a 1-D index and a source of (len(index),) + x's other dims."""
    if len(x.shape) < 2:
        raise Unsupported(f"{who} into a rank-{len(x.shape)} tensor (the drafter writes whole rows along dim 0 of "
                          "a tensor of rank 2 or more)")
    if len(idx.shape) != 1 or tuple(src.shape) != (idx.shape[0],) + tuple(x.shape[1:]):
        raise Unsupported(f"{who} of a source of shape {tuple(src.shape)} by an index of shape {tuple(idx.shape)} "
                          f"into {tuple(x.shape)} (one source row per index)")


@rule("index_copy", "input, dim, index, source")
def _index_copy(b, input, dim, index, source):
    x, idx, src = T(input), _index(index, "index_copy's index"), T(source, "index_copy's source")
    if G.norm_axis(val(dim), len(x.shape)) != 0:
        raise Unsupported(f"index_copy along dim {val(dim)} (the drafter writes whole rows along dim 0)")
    _rows_source(x, idx, src, "index_copy")
    return b.index_copy(x, idx, src)


@rule("index_put, index_put_", "input, indices, values, accumulate=False")
def _index_put(b, input, indices, values, accumulate):
    """x[index] = values (torch.export's aten.index_put_), or index_put(..., accumulate=True): an index_add."""
    x = T(input)
    if not isinstance(indices, (list, tuple)) or len(indices) != 1 or indices[0] is None:
        raise Unsupported("an assignment x[index] = value by other than one index tensor along dim 0")
    idx, src = _index(indices[0], "the assignment's index"), T(values, "the assigned value")
    _rows_source(x, idx, src, "an assignment x[index] = value")
    return b.index_add(x, idx, src, 1.0) if val(accumulate) else b.index_copy(x, idx, src)


@rule("scatter", "input, dim, index, src=None, value=None, reduce=None")
def _scatter(b, input, dim, index, src, value, reduce):
    x, idx = T(input), _index(index, "scatter's index")
    if src is None or reduce is not None:
        raise Unsupported("scatter of a value or with reduce= (the drafter scatters a src tensor)")
    s = T(src, "scatter's src")
    axis = G.norm_axis(val(dim), len(x.shape))
    if len(x.shape) != 2 or axis != 1:
        raise Unsupported(f"scatter along dim {val(dim)} of a rank-{len(x.shape)} tensor (the drafter scatters "
                          "along the last axis of a 2-D tensor, a core owning whole rows)")
    if tuple(idx.shape) != tuple(s.shape) or idx.shape[0] != x.shape[0]:
        raise Unsupported(f"scatter by an index of shape {tuple(idx.shape)} with src {tuple(s.shape)} into "
                          f"{tuple(x.shape)} (index and src of one shape, one row per row of the tensor)")
    return b.scatter(x, idx, s, axis)


# -- resampling: F.interpolate / nn.Upsample as one `resize` node (resize.py) --------------------------------
def _static(v, what: str, who: str = "F.interpolate"):
    """A size or scale argument as Python numbers: a constant, a size of an input (x.size()) or a
    number of get_init_inputs or of forward's inputs by its traced value (the output shape is fixed
    when drafting; cases passing another value get a draft of their own, bench/worker.SplitByConstants)."""
    if isinstance(v, (list, tuple)):
        return [_static(a, what, who) for a in v]
    if isinstance(v, Node):
        if v.is_tensor:
            raise Unsupported(f"{who} with a {what} computed from a tensor")
        if v.op not in ("const", "dim", "scalar"):
            raise Unsupported(f"{who} with a {what} computed from forward's numbers (a draft fixes "
                              "its output shape)")
        return v.value
    return v


@rule("interpolate, upsample", "input, size=None, scale_factor=None, mode='nearest', align_corners=None, "
      "recompute_scale_factor=None, antialias=False")
def _interpolate(b, input, size, scale_factor, mode, align_corners, recompute_scale_factor, antialias):
    return resize_node(T(input), _static(size, "size"), _static(scale_factor, "scale factor"), val(mode),
                       val(align_corners), val(recompute_scale_factor), val(antialias))


@rule("upsample_nearest", "input, size=None, scale_factor=None")
def _upsample_nearest(b, input, size, scale_factor):
    return _interpolate(b, input, size, scale_factor, "nearest", None, None, False)


@rule("upsample_bilinear", "input, size=None, scale_factor=None")
def _upsample_bilinear(b, input, size, scale_factor):
    return _interpolate(b, input, size, scale_factor, "bilinear", True, None, False)


@rule("affine_grid", "theta, size, align_corners=None")
def _affine_grid(b, theta, size, align_corners):
    return affine_grid_node(T(theta, "affine_grid's theta"), _static(size, "size", "F.affine_grid"),
                            val(align_corners))


@rule("grid_sample", "input, grid, mode='bilinear', padding_mode='zeros', align_corners=None")
def _grid_sample(b, input, grid, mode, padding_mode, align_corners):
    return grid_sample_node(T(input), T(grid, "grid_sample's grid"), val(mode), val(padding_mode), val(align_corners))


for _name, _what in (("pixel_shuffle", "F.pixel_shuffle"), ("pixel_unshuffle", "F.pixel_unshuffle")):
    def _unsupported_resample(b, input, rest, _w=_what):
        raise Unsupported(f"{_w}: no template drafts it yet")
    rule(_name, "input, *rest")(_unsupported_resample)


_WRITES = ("scatter_reduce", "index_fill", "put", "masked_scatter")
for _name in _WRITES + ("unique", "bincount", "take"):
    def _unsupported_index(b, input, rest, _n=_name):
        if _n in _WRITES:
            what = "an assignment x[index] = value" if _n in ("setitem", "index_put_") else f"`{_n}`"
            raise Unsupported(f"{what} (a write to positions an index names: with a repeated index the result "
                              "depends on the order of the writes; the drafter writes by index where the writes "
                              "add up, index_add and scatter_add, or where one core writes in index order: "
                              "index_copy, x[index] = value, scatter)")
        why = "the output size depends on the values" if _n == "unique" else \
            "no template reads it"
        raise Unsupported(f"`{_n}` ({why})")
    rule(_name, "input, *rest")(_unsupported_index)


# -- data-dependent sizes and addressing: histc, repeat_interleave, nonzero (datadep.py) -----------------
def _number(b, v, what: str, kinds=(int, float)) -> Node:
    """A histc / repeat_interleave argument as a scalar node: a number among forward's inputs as it
    is, a constant equal to exactly one number of get_init_inputs() as that init input (so the draft
    takes it as a kernel scalar and a tail shape may change it), else a constant."""
    if isinstance(v, Node):
        if v.is_tensor:
            raise Unsupported(f"{what} given as a tensor")
        return v
    if isinstance(v, bool) or not isinstance(v, kinds):
        raise Unsupported(f"{what} {v!r} (a number)")
    same = [i for i, d in enumerate(b.init_inputs) if d.get("kind") == "scalar" and d.get("value") == v
            and d.get("type") == ("int" if isinstance(v, int) else "float")]
    if len(same) == 1:
        i = same[0]
        name = argument_name(b.init_names, "init", i)
        return Node("scalar", (), {"source": "init", "index": i, "pyname": name}, None,
                    "int" if isinstance(v, int) else "float", v, name=name)
    return b.const(v)


@rule("histc", "input, bins=100, min=0, max=0")
def _histc(b, input, bins, min, max):
    """Counts in `bins` equal bins over [min, max]; min == max: over the data's own min and max."""
    x = T(input)
    if x.dtype != "float32":
        raise Unsupported(f"torch.histc of a {x.dtype} tensor (the drafter counts float32 values: PyTorch "
                          "computes a half type's bin positions in that type)")
    nb = _number(b, bins, "histc's bins", (int,))
    if nb.value is None or nb.value < 1:
        raise Unsupported(f"histc with bins = {nb.value!r}")
    lo, hi = _number(b, min, "histc's min"), _number(b, max, "histc's max")
    return Node("histc", (x, nb, lo, hi), {}, (int(nb.value),), x.dtype)


@rule("repeat_interleave", "input, repeats=None, dim=None, output_size=None")
def _repeat_interleave(b, input, repeats, dim, output_size):
    x = T(input)
    if isinstance(repeats, Node) and repeats.is_tensor:
        raise Unsupported("repeat_interleave by a tensor of repeats (the drafter repeats every element "
                          "the same number of times)")
    r = _number(b, repeats, "repeat_interleave's repeats", (int,))
    if r.value is None or r.value < 0:
        raise Unsupported(f"repeat_interleave with repeats = {r.value!r}")
    if dim is None:                  # over the flattened tensor
        axis = None
        shape = (math.prod(x.shape) * r.value,)
    else:
        axis = G.norm_axis(val(dim), len(x.shape))
        shape = tuple(d * r.value if i == axis else d for i, d in enumerate(x.shape))
    return Node("interleave", (x, r), {"axis": axis}, shape, x.dtype)


@rule("nonzero, argwhere", "input, as_tuple=False")
def _nonzero(b, input, as_tuple):
    x = T(input)
    if val(as_tuple):
        raise Unsupported("torch.nonzero(as_tuple=True) (one index tensor per axis; the drafter writes the "
                          "(count, rank) index rows)")
    # the rows are as many as the set elements: declared here at their upper bound, the input's size
    return Node("nonzero", (x,), {}, (math.prod(x.shape), len(x.shape)), "int64")


@rule("masked_select", "input, mask")
def _masked_select(b, input, mask):
    x, m = T(input), T(mask, "mask")
    if m.dtype != "bool" or tuple(m.shape) != tuple(x.shape):
        raise Unsupported(f"masked_select by a {m.dtype} mask of shape {tuple(m.shape)} for values of shape "
                          f"{tuple(x.shape)} (a bool mask of the values' shape)")
    # as many values as set elements: declared at the upper bound, every element
    return Node("nonzero", (x, m), {"select": True}, (math.prod(x.shape),), x.dtype)


# -- shapes ----------------------------------------------------------------------------------------------
def _shape_arg(args, x: Node):
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = list(args[0])
    dims = [val(a) for a in args]
    if any(d is None for d in dims):
        raise Unsupported("a reshape to a shape that is not known when drafting")
    if -1 in dims:
        known = math.prod(d for d in dims if d != -1)
        dims[dims.index(-1)] = math.prod(x.shape) // max(known, 1)
    return dims


@rule("view, reshape, _unsafe_view", "input, *shape")
def _view(b, input, shape):
    if len(shape) == 1 and isinstance(shape[0], TorchDType):
        raise Unsupported("view as another dtype")
    return b.reshape(T(input), _shape_arg(shape, input))


@rule("flatten", "input, start_dim=0, end_dim=-1")
def _flatten(b, input, start_dim, end_dim):
    x = T(input)
    r = len(x.shape)
    if r == 0:
        return b.reshape(x, [1])
    s, e = G.norm_axis(start_dim, r), G.norm_axis(end_dim, r)
    return b.reshape(x, list(x.shape[:s]) + [math.prod(x.shape[s:e + 1])] + list(x.shape[e + 1:]))


@rule("module:Flatten", "input, start_dim=1, end_dim=-1")
def _flatten_module(b, input, start_dim, end_dim):
    return _flatten(b, input, start_dim, end_dim)


@rule("unsqueeze", "input, dim")
def _unsqueeze(b, input, dim):
    x = T(input)
    d = val(dim)
    r = len(x.shape) + 1
    d = d % r
    return b.reshape(x, list(x.shape[:d]) + [1] + list(x.shape[d:]))


@rule("squeeze", "input, dim=None")
def _squeeze(b, input, dim):
    x = T(input)
    if dim is None:
        return b.reshape(x, [d for d in x.shape if d != 1])
    dims = {G.norm_axis(val(d), len(x.shape)) for d in (dim if isinstance(dim, (list, tuple)) else [dim])}
    return b.reshape(x, [d for i, d in enumerate(x.shape) if not (i in dims and d == 1)])


@rule("expand_as, broadcast_to, expand", "input, *rest")
def _expand(b, input, rest):
    """x broadcast to a shape (sizes, -1 keeping an axis; or another tensor's shape): the node has that
    shape, so an expand to a new leading axis keeps the axis when nothing else broadcasts against it."""
    x = T(input)
    if len(rest) == 1 and isinstance(rest[0], Node) and rest[0].is_tensor:
        sizes = list(rest[0].shape)
    else:
        sizes = list(rest[0]) if len(rest) == 1 and isinstance(rest[0], (list, tuple)) else list(rest)
        sizes = [val(s) for s in sizes]
    if any(s is None for s in sizes) or len(sizes) < len(x.shape):
        raise Unsupported("an expand to a shape that is not known when drafting")
    lead = len(sizes) - len(x.shape)
    shape = tuple(x.shape[i - lead] if s == -1 else int(s) for i, s in enumerate(sizes))
    return Node("expand", (x,), {}, shape, x.dtype)


# -- matrix products (the cube templates of cube.py) -------------------------------------------------
# A product is one canonical node, matmul(a, b) with a (..., M, K) and b (..., K, N), whatever
# spelled it (torch.matmul, mm, bmm, @, an einsum that is a product, F.linear, nn.Linear, addmm).
# An operand may be a `transpose` node (its last two axes swapped: x.t(), x.transpose(-1, -2),
# x.mT, an einsum's index order): the cube loads it as it lies; anywhere else it is a permute of
# the last two axes (views.py). torch.diag(v) and triu / tril are nodes too; cube.py drafts diag(v) @ B
# as a row scaling.


def transpose(x: Node) -> Node:
    """x with its last two axes swapped (two swaps cancel)."""
    if x.op == "transpose":
        return x.args[0]
    if len(x.shape) < 2:
        return x
    return Node("transpose", (x,), {}, tuple(x.shape[:-2]) + (x.shape[-1], x.shape[-2]), x.dtype)


def permute(x: Node, order) -> Node:
    """x with its axes reordered: axis i of the result is axis order[i] of x. A swap of the last two
    axes is a `transpose` (what a matrix product reads as it lies); any other order a `permute`
    node, which the permute template copies (views.py)."""
    r = len(x.shape)
    order = [int(a) for a in order]
    if sorted(order) != list(range(r)):
        raise Unsupported(f"permute{tuple(order)} of a rank-{r} tensor (not a permutation of its axes)")
    if order == list(range(r)):
        return x
    if order == list(range(r - 2)) + [r - 1, r - 2]:
        return transpose(x)
    if x.op == "permute":                      # two permutes are one
        inner = x.attrs["order"]
        return permute(x.args[0], [inner[a] for a in order])
    if x.op == "transpose":
        inner = list(range(r - 2)) + [r - 1, r - 2]
        return permute(x.args[0], [inner[a] for a in order])
    return Node("permute", (x,), {"order": tuple(order)}, tuple(x.shape[a] for a in order), x.dtype)


def _swap_axes(x: Node, d0, d1) -> Node:
    r = len(x.shape)
    order = list(range(r))
    a, b = G.norm_axis(val(d0), r), G.norm_axis(val(d1), r)
    order[a], order[b] = order[b], order[a]
    return permute(x, order)


@rule("transpose, swapaxes, swapdims", "input, dim0, dim1")
def _transpose(b, input, dim0, dim1):
    return _swap_axes(T(input), dim0, dim1)


@rule("t", "input")
def _t(b, input):
    x = T(input)
    if len(x.shape) > 2:
        raise Unsupported(f"`t()` of a rank-{len(x.shape)} tensor (PyTorch takes at most 2-D)")
    return transpose(x)


def _axes_arg(dims) -> list:
    if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        dims = list(dims[0])
    return [val(d) for d in dims]


@rule("permute", "input, *dims")
def _permute(b, input, dims):
    x = T(input)
    return permute(x, [G.norm_axis(d, len(x.shape)) for d in _axes_arg(dims)])


@rule("movedim, moveaxis", "input, source, destination")
def _movedim(b, input, source, destination):
    x = T(input)
    r = len(x.shape)
    src = [G.norm_axis(d, r) for d in _axes_arg([val(source)])]
    dst = [G.norm_axis(d, r) for d in _axes_arg([val(destination)])]
    if len(src) != len(dst):
        raise Unsupported(f"movedim with {len(src)} source and {len(dst)} destination axes")
    # torch.movedim: the moved axes land at their destinations, the others keep their order
    order = [None] * r
    for s_, d_ in zip(src, dst):
        order[d_] = s_
    rest = iter(a for a in range(r) if a not in src)
    return permute(x, [a if a is not None else next(rest) for a in order])


def matmul(b, a: Node, m: Node, what: str = "matmul") -> Node:
    """a @ m with PyTorch's rules: 1-D operands gain and lose an axis, leading axes broadcast."""
    a, m = T(a, f"{what} operand"), T(m, f"{what} operand")
    if a.dtype not in G.FLOAT_DTYPES or m.dtype not in G.FLOAT_DTYPES:
        raise Unsupported(f"`{what}` of {a.dtype} and {m.dtype} tensors (the cube drafts take f32, f16 and bf16)")
    if a.dtype != m.dtype:
        raise Unsupported(f"`{what}` of {a.dtype} and {m.dtype} operands (cast one: the cube multiplies one dtype)")
    if len(a.shape) == 1:
        raise Unsupported(f"`{what}` with a 1-D left operand (a vector times a matrix: a sum over rows; write "
                          "it as (m.t() @ v) or with sum())")
    vec = len(m.shape) == 1
    mm = b.reshape(m, (m.shape[0], 1)) if vec else m
    if a.shape[-1] != mm.shape[-2]:
        raise Unsupported(f"`{what}` of shapes {tuple(a.shape)} and {tuple(m.shape)}: the inner sizes differ")
    if a.op == "diag" or mm.op == "diag":          # a scaling of rows or columns (cube.py), not a product
        if len(a.shape) != 2 or len(mm.shape) != 2:
            raise Unsupported(f"`{what}` of a diagonal matrix and a rank-{max(len(a.shape), len(mm.shape))} tensor")
        out = Node("matmul", (a, mm), {}, (a.shape[0], mm.shape[1]), a.dtype)
    else:
        lead = G.broadcast(tuple(a.shape[:-2]), tuple(mm.shape[:-2])) or ()
        if len(mm.shape) > 2 and tuple(mm.shape[:-2]) != tuple(lead) or \
                len(a.shape) > 2 and tuple(a.shape[:-2]) != tuple(lead):
            raise Unsupported(f"`{what}` of shapes {tuple(a.shape)} and {tuple(m.shape)}: leading axes that broadcast "
                              "(expand the operands to one batch shape first)")
        out = Node("matmul", (a, mm), {}, tuple(lead) + (a.shape[-2], mm.shape[-1]), a.dtype)
    return b.reshape(out, tuple(out.shape[:-1])) if vec else out


@rule("matmul, mm, bmm, __matmul__", "input, other")
def _matmul(b, input, other):
    return matmul(b, input, other)


@rule("__rmatmul__", "input, other")
def _rmatmul(b, input, other):
    return matmul(b, other, input)


@rule("scaled_dot_product_attention",
      "query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False")
def _sdpa(b, query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa):
    """softmax(q @ k^T * scale + mask) @ v, as PyTorch documents it: a bool mask keeps where True (else
    -inf), a float mask is added. The drafter cuts it into phases (phases.py): QK^T on the cube, the
    masked scaled softmax on the vector unit, PV on the cube."""
    q, k, v = T(query), T(key), T(value)
    if val(dropout_p):
        raise Unsupported("dropout in scaled_dot_product_attention (a random mask: the drafter drafts inference)")
    if val(is_causal):
        raise Unsupported("scaled_dot_product_attention(is_causal=True) (the drafter has no row / column index "
                          "op to build the mask from: pass it as attn_mask, e.g. a registered tril buffer)")
    if tuple(k.shape[:-2]) != tuple(q.shape[:-2]) or tuple(v.shape[:-2]) != tuple(q.shape[:-2]):
        raise Unsupported("key / value heads shared by several query heads (GQA / MQA: the cube multiplies one "
                          "batch shape; repeat the key and value heads first)")
    return attention(b, q, k, v, attn_mask, val(scale))


def attention(b, q: Node, k: Node, v: Node, mask, scale) -> Node:
    """softmax(q @ k^T * scale + mask) @ v (scale None: 1 / sqrt(head dim); a bool mask keeps where True)."""
    factor = scale if scale is not None else 1.0 / math.sqrt(q.shape[-1])
    scores = b.mul(matmul(b, q, transpose(k), "scaled_dot_product_attention"), factor)
    if isinstance(mask, Node) and mask.is_tensor:
        scores = b.ew("where", mask, scores, -math.inf) if mask.dtype == "bool" else b.add(scores, mask)
    return matmul(b, G.softmax(b, scores, -1), v, "scaled_dot_product_attention")


@rule("addmm, baddbmm", "input, mat1, mat2, beta=1, alpha=1")
def _addmm(b, input, mat1, mat2, beta, alpha):
    return b.add(b.mul(input, beta), b.mul(matmul(b, mat1, mat2, "addmm"), alpha))


@rule("linear", "input, weight, bias=None")
def _linear(b, input, weight, bias):
    y = matmul(b, input, transpose(T(weight, "linear weight")), "linear")
    return y if bias is None else b.add(y, bias)


def linear_module(b, x: Node, info: dict, target: str, tensors: dict) -> Node:
    """nn.Linear: x @ weight^T (+ bias), the weight and bias the instantiated Model's own."""
    def param(name):
        full = f"{target}.{name}"
        desc = tensors.get(full)
        if name not in info.get("tensors", ()) or desc is None:
            return None
        return Node("param", (), {"name": full}, tuple(desc["shape"]), desc["dtype"], name=full)
    weight, bias = param("weight"), param("bias")
    if weight is None:
        raise Unsupported(f"nn.Linear `{target}` without a weight tensor")
    y = matmul(b, x, transpose(weight), "nn.Linear")
    return y if bias is None else b.add(y, bias)


def operand_plain(t: Node, subs: str, k: str, free: list) -> Node:
    """The right operand of an einsum product with no batch axes: (K, N) as it lies, or transposed."""
    if not free:
        return t
    if subs == k + free[0]:
        return t
    if subs == free[0] + k:
        return transpose(t)
    raise Unsupported(f"einsum right operand '{subs}' is not a matrix over the summed index")


@rule("einsum", "equation, *operands")
def _einsum(b, equation, operands):
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = list(operands[0])
    eq = str(equation).replace(" ", "")
    if len(operands) != 2 or "->" not in eq or "." in eq:
        raise Unsupported(f"einsum '{eq}' (the drafter takes a product of two operands with an explicit '->')")
    ins, out = eq.split("->")
    sa, sb = ins.split(",")
    x, y = T(operands[0]), T(operands[1])
    shared = [c for c in sa if c in sb and c not in out]
    batch = [c for c in out if c in sa and c in sb]
    ms = [c for c in sa if c in out and c not in sb]
    ns = [c for c in sb if c in out and c not in sa]
    if len(shared) != 1 or len(ns) > 1 or len(set(sa)) != len(sa) or len(set(sb)) != len(sb) \
            or set(sa) | set(sb) != set(out) | set(shared) or out != "".join(batch + ms + ns):
        raise Unsupported(f"einsum '{eq}' is not a matrix product (batch axes first, one summed index, "
                          "output (batch..., M, N))")
    k = shared[0]
    if len(ms) > 1:          # 'bijl,lk->bijk': A's leading free axes are more rows of one matrix B
        if batch or sa != "".join(ms) + k:
            raise Unsupported(f"einsum '{eq}': several free axes of the left operand are drafted only before "
                              "its summed index, with a right operand of no batch axes")
        return matmul(b, x, operand_plain(y, sb, k, ns), f"einsum '{eq}'")

    def operand(t: Node, subs: str, free: list, first: bool) -> Node:
        if not free:          # a vector operand: a matrix-vector product
            t = b.reshape(t, tuple(t.shape) + (1,)) if first is False else t
            subs, free = subs + "_", ["_"]
        want = "".join(batch) + ((free[0] + k) if first else (k + free[0]))
        if subs == want:
            return t
        swapped = "".join(batch) + ((k + free[0]) if first else (free[0] + k))
        if subs == swapped:
            return transpose(t)
        raise Unsupported(f"einsum '{eq}': operand subscripts '{subs.rstrip('_')}' put the batch axes elsewhere "
                          "than first")
    if not ms:
        raise Unsupported(f"einsum '{eq}' with a vector as left operand (a sum over rows)")
    r = matmul(b, operand(x, sa, ms, True), operand(y, sb, ns, False), f"einsum '{eq}'")
    return b.reshape(r, tuple(r.shape[:-1])) if not ns else r


@rule("diag", "input, diagonal=0")
def _diag(b, input, diagonal):
    v = T(input)
    if len(v.shape) != 1 or val(diagonal) != 0:
        raise Unsupported("torch.diag of a matrix or off the main diagonal (diag(v) of a vector is drafted as a "
                          "row scaling when it multiplies a matrix)")
    return Node("diag", (v,), {}, (v.shape[0], v.shape[0]), v.dtype)


def _triangle_rule(kind):
    def fn(b, input, diagonal):
        x = T(input)
        if len(x.shape) < 2 or not isinstance(val(diagonal), int):
            raise Unsupported(f"torch.{kind} of a rank-{len(x.shape)} tensor or with a traced diagonal")
        return Node(kind, (x,), {"diagonal": int(val(diagonal))}, x.shape, x.dtype)
    return fn


for _kind in ("triu", "tril"):
    RULES[_kind] = Rule((_kind,), (("input", _REQUIRED), ("diagonal", 0)), _triangle_rule(_kind))


@rule("conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d, module:Conv1d, module:Conv2d, module:Conv3d",
      "input, *rest")
def _conv(b, input, rest):
    raise Unsupported("a convolution (the drafter's cube templates cover matrix products, not convolutions yet)")


@rule("size", "input, dim=None")
def _size(b, input, dim):
    x = T(input)
    if dim is None:
        return [b.dim_of(x, i) for i in range(len(x.shape))]
    return b.dim_of(x, G.norm_axis(val(dim), len(x.shape)))


@rule("dim, ndimension", "input")
def _ndim(b, input):
    return b.const(len(T(input).shape))


@rule("numel, nelement", "input")
def _numel(b, input):
    return b.count(T(input), range(len(T(input).shape)))


@rule("select", "input, dim, index")
def _select(b, input, dim, index):
    x = T(input)
    d = G.norm_axis(val(dim), len(x.shape))
    shape = tuple(s for i, s in enumerate(x.shape) if i != d)
    return Node("select", (x,), {"axis": d, "index": val(index)}, shape, x.dtype)


@rule("narrow", "input, dim, start, length")
def _narrow(b, input, dim, start, length):
    x = T(input)
    d = G.norm_axis(val(dim), len(x.shape))
    return _slice_node(x, d, val(start), val(start) + val(length))


@rule("slice", "input, dim=0, start=None, end=None, step=1")
def _slice(b, input, dim, start, end, step):
    """aten.slice (torch.export's spelling of x[a:b] along one axis)."""
    x = T(input)
    if val(step) not in (None, 1) or any(isinstance(v, Node) for v in (start, end)):
        raise Unsupported("a slice with a traced bound or a step")
    return _slice_node(x, G.norm_axis(val(dim), len(x.shape)), start, end)


def _slice_node(x: Node, axis: int, start: int, stop: int) -> Node:
    n = x.shape[axis]
    start, stop, _ = slice(start, stop).indices(n)
    if start == 0 and stop == n:
        return x
    shape = tuple(max(stop - start, 0) if i == axis else s for i, s in enumerate(x.shape))
    return Node("slice", (x,), {"axis": axis, "start": start, "stop": stop}, shape, x.dtype)


# -- splits: forward returns the parts (several outputs), each a run along one axis -----------------
# A part is a `split` node: its start and length along the axis, and how they follow from the axis's
# length A (the draft writes them as dim expressions, so a tail shape splits the same way):
#   ("size", s)      torch.split(x, s): part i starts at i * s, min(s, A - i * s) long
#   ("chunks", n)    chunk(x, n): parts of cdiv(A, n), the last shorter (and maybe fewer than n parts)
#   ("sections", n)  tensor_split(x, n): the first A % n parts one longer than A // n
#   ("sizes", ls)    split(x, [l0, l1, ...]), tensor_split(x, [i0, i1, ...]): the given lengths
#   ("unbind",)      unbind(x): every index of the axis, the axis dropped
def _split_parts(x: Node, axis: int, how: tuple, bounds: list) -> tuple:
    parts = []
    for i, (start, stop) in enumerate(bounds):
        squeeze = how[0] == "unbind"
        shape = tuple(s for a, s in enumerate(x.shape) if a != axis) if squeeze else \
            tuple(stop - start if a == axis else s for a, s in enumerate(x.shape))
        parts.append(Node("split", (x,), {"axis": axis, "start": start, "stop": stop, "part": i, "how": how,
                                          "squeeze": squeeze}, shape, x.dtype))
    return tuple(parts)


@rule("glu", "input, dim=-1")
def _glu(b, input, dim):
    """F.glu / nn.GLU: the first half times the sigmoid of the second (two parts of a chunk: views)."""
    a, gate = _chunk(b, input, 2, dim)
    return b.mul(a, b.ew("sigmoid", gate))


@rule("split, split_with_sizes", "tensor, split_size_or_sections, dim=0")
def _split(b, tensor, split_size_or_sections, dim):
    x = T(tensor)
    d = G.norm_axis(val(dim), len(x.shape))
    n = x.shape[d]
    sizes = val(split_size_or_sections)
    if isinstance(sizes, (list, tuple)):
        sizes = [int(val(v)) for v in sizes]
        edges = [sum(sizes[:i]) for i in range(len(sizes) + 1)]
        return _split_parts(x, d, ("sizes", tuple(sizes)), list(zip(edges, edges[1:])))
    s = int(sizes)
    return _split_parts(x, d, ("size", s), [(i, min(i + s, n)) for i in range(0, n, s)] or [(0, 0)])


@rule("chunk", "input, chunks, dim=0")
def _chunk(b, input, chunks, dim):
    x = T(input)
    d = G.norm_axis(val(dim), len(x.shape))
    n, k = x.shape[d], int(val(chunks))
    c = -(-n // k) if n else 1
    return _split_parts(x, d, ("chunks", k), [(i, min(i + c, n)) for i in range(0, n, c)] or [(0, 0)])


@rule("tensor_split", "input, indices_or_sections, dim=0")
def _tensor_split(b, input, indices_or_sections, dim):
    x = T(input)
    d = G.norm_axis(val(dim), len(x.shape))
    n = x.shape[d]
    v = val(indices_or_sections)
    if isinstance(v, (list, tuple)):
        cuts = [min(max(int(val(i)), 0), n) for i in v]
        edges = [0] + cuts + [n]
        spans = list(zip(edges, edges[1:]))
        return _split_parts(x, d, ("sizes", tuple(b_ - a for a, b_ in spans)), spans)
    k = int(v)
    lens = [n // k + (1 if i < n % k else 0) for i in range(k)]
    edges = [sum(lens[:i]) for i in range(k + 1)]
    return _split_parts(x, d, ("sections", k), list(zip(edges, edges[1:])))


@rule("unbind", "input, dim=0")
def _unbind(b, input, dim):
    x = T(input)
    d = G.norm_axis(val(dim), len(x.shape))
    return _split_parts(x, d, ("unbind",), [(i, i + 1) for i in range(x.shape[d])])


@rule("cat, concat, concatenate", "tensors, dim=0")
def _cat(b, tensors, dim):
    parts = [T(t) for t in tensors]
    axis = G.norm_axis(val(dim), len(parts[0].shape))
    shape = list(parts[0].shape)
    shape[axis] = sum(p.shape[axis] for p in parts)
    return Node("cat", tuple(parts), {"axis": axis}, tuple(shape), G.result_dtype(*parts))


@rule("stack", "tensors, dim=0")
def _stack(b, tensors, dim):
    """torch.stack: a cat of the parts, each viewed with a new axis of 1 (stores at offsets along it)."""
    parts = [T(t) for t in tensors]
    axis = G.norm_axis(val(dim), len(parts[0].shape) + 1)
    after = len(parts[0].shape) - axis
    viewed = [_new_axis(b, p, after) for p in parts]
    return _cat(b, viewed, axis)


@rule("repeat", "input, *sizes")
def _repeat(b, input, sizes):
    x = T(input)
    if len(sizes) == 1 and isinstance(sizes[0], (list, tuple)):
        sizes = list(sizes[0])
    return _repeat_along(b, x, [val(s) for s in sizes], "Tensor.repeat")


@rule("tile", "input, dims")
def _tile(b, input, dims):
    x = T(input)
    reps = [val(d) for d in dims]
    return _repeat_along(b, x, [1] * (len(x.shape) - len(reps)) + reps, "torch.tile")


def _repeat_along(b, x: Node, reps: list, what: str) -> Node:
    """x repeated r times along one axis: a cat of r copies (the same tile stored at r offsets)."""
    if len(reps) < len(x.shape):
        raise Unsupported(f"{what}{tuple(reps)} of a rank-{len(x.shape)} tensor (fewer repeats than axes)")
    if len(reps) > len(x.shape):     # new leading axes: the tensor seen with 1s in front, repeated along them
        x = b.reshape(x, (1,) * (len(reps) - len(x.shape)) + tuple(x.shape))
        return tile_node(x, {a: int(r) for a, r in enumerate(reps) if r != 1})
    along = [a for a, r in enumerate(reps) if r != 1]
    if not along:
        return x
    if len(along) > 1 or len(x.shape) == 1:
        # copies along several axes (or of a whole 1-D tensor): an index map per axis, y[v] = x[v mod n] (remap.py)
        return tile_node(x, {a: int(reps[a]) for a in along})
    return _cat(b, [x] * reps[along[0]], along[0])


_POINTWISE = {"add", "sub", "mul", "div", "max", "min", "pow", "neg", "abs", "relu", "exp", "log", "sqrt", "rsqrt",
              "reciprocal", "sigmoid", "tanh", "where", "lt", "le", "gt", "ge", "eq", "ne", "cast", "floordiv", "rint",
              "floor", "ceil", "trunc"}


def _new_axis(b: Builder, n: Node, after: int) -> Node:
    """n with a size-1 axis inserted before its last `after` axes, pushed down to the leaves through
    elementwise work (a view of an input that adds a 1 is that input read in its own shape); an
    operand too short to reach the new axis broadcasts past it unchanged."""
    if not isinstance(n, Node) or not n.is_tensor or len(n.shape) < after:
        return n
    at = len(n.shape) - after
    shape = tuple(n.shape[:at]) + (1,) + tuple(n.shape[at:])
    if n.op in _POINTWISE:
        return Node(n.op, tuple(_new_axis(b, a, after) for a in n.args), dict(n.attrs), shape, n.dtype, n.value, n.name)
    return b.reshape(n, list(shape))


@rule("zeros_like", "input, dtype=None")
def _zeros_like(b, input, dtype):
    return b.full(0.0, T(input).shape, dtype.name if isinstance(dtype, TorchDType) else input.dtype)


@rule("ones_like", "input, dtype=None")
def _ones_like(b, input, dtype):
    return b.full(1.0, T(input).shape, dtype.name if isinstance(dtype, TorchDType) else input.dtype)


@rule("full_like", "input, fill_value, dtype=None")
def _full_like(b, input, fill_value, dtype):
    return b.full(val(fill_value), T(input).shape, dtype.name if isinstance(dtype, TorchDType) else input.dtype)


@rule("zeros", "*size, dtype=None")
def _zeros(b, size, dtype):
    return b.full(0.0, _sizes(size), _dtype_or(dtype, "float32"))


@rule("ones", "*size, dtype=None")
def _ones_sized(b, size, dtype):
    return b.full(1.0, _sizes(size), _dtype_or(dtype, "float32"))


# -- a tensor made empty, then written: torch.empty(...) / empty_like filled by copy_, fill_, out[...] = v --
# Its values are undefined until written: an `empty` fill whose every read must have been overwritten
# (a write into a slice of it rebuilds it as a cat of the parts written and kept: `_assign`).
def _dtype_or(dtype, default: str) -> str:
    return dtype.name if isinstance(dtype, TorchDType) else default


def _empty(shape, dtype: str) -> Node:
    _no_npu_dtype(dtype, "torch.empty")
    return Node("full", (Node("const", value=0.0, dtype="float"),), {"empty": True}, tuple(shape), dtype)


@rule("empty_like", "input, dtype=None")
def _empty_like(b, input, dtype):
    return _empty(T(input).shape, _dtype_or(dtype, input.dtype))


@rule("empty", "*size, dtype=None")
def _empty_sized(b, size, dtype):
    return _empty(_sizes(size), _dtype_or(dtype, "float32"))


@rule("new_empty", "input, *size, dtype=None")
def _new_empty(b, input, size, dtype):
    return _empty(_sizes(size), _dtype_or(dtype, T(input).dtype))


def _sizes(size) -> list:
    dims = list(size[0]) if len(size) == 1 and isinstance(size[0], (list, tuple)) else list(size)
    dims = [val(d) for d in dims]
    if any(not isinstance(d, int) for d in dims):
        raise Unsupported("torch.empty of a size that is not known when drafting")
    return dims


def _as_shape(b, value, like: Node) -> Node:
    """`value` (a tensor broadcast as copy_ broadcasts, or a number) as a tensor of `like`'s shape and dtype."""
    if not isinstance(value, Node) or not value.is_tensor:
        return b.full(val(value), like.shape, like.dtype)
    if tuple(value.shape) != tuple(like.shape):
        value = Node("expand", (value,), {}, tuple(like.shape), value.dtype)
    return b.cast(value, like.dtype)


@rule("copy", "input, src, non_blocking=False")
def _copy(b, input, src, non_blocking):
    return _as_shape(b, src, T(input))


@rule("fill", "input, value")
def _fill(b, input, value):
    return _as_shape(b, value, T(input))


@rule("zero", "input")
def _zero(b, input):
    return _as_shape(b, 0.0, T(input))


def _assign(b, base: Node, view: Node, value: Node) -> Node:
    """`base` after `value` was written into `view`, base itself or a slice of it along one axis (out[:, a:b]
    = v, torch.export's slice + copy_): the parts of base kept and the value, a cat along that axis."""
    if view is base:
        return value
    if view.op != "slice" or view.args[0] is not base:
        raise Unsupported("a write into a view of a tensor other than a slice along one axis (out[..., a:b] = v)")
    axis, start, stop = view.attrs["axis"], view.attrs["start"], view.attrs["stop"]
    if base.op == "cat" and base.attrs.get("assigned") and base.attrs["axis"] == axis:
        bounds = base.attrs["assigned"]
        segments = [(s, e, p) for (s, e), p in zip(bounds, base.args)]
    else:
        segments = [(0, base.shape[axis], base)]
    kept = []
    for s, e, p in segments:
        if e <= start or s >= stop:
            kept.append((s, e, p))
            continue
        if s < start:
            kept.append((s, start, _slice_node(p, axis, 0, start - s)))
        if e > stop:
            kept.append((stop, e, _slice_node(p, axis, stop - s, e - s)))
    kept = sorted(kept + [(start, stop, value)], key=lambda t: t[0])
    kept = [t for t in kept if t[1] > t[0]]
    if len(kept) == 1:
        return kept[0][2]
    return Node("cat", tuple(p for _, _, p in kept), {"axis": axis, "assigned": tuple((s, e) for s, e, _ in kept)},
                base.shape, base.dtype)


@rule("setitem", "input, index, value")
def _setitem(b, input, index, value):
    """out[index] = value: the value of `out` afterwards (build_graph rebinds `out`, as an in-place write)."""
    x = T(input)
    if isinstance(index, Node) and index.is_tensor:
        raise Unsupported("an assignment x[index] = value with an index tensor (index_copy_ or index_put_ write "
                          "by index)")
    view = _index_tensor(x, index)
    return _assign(b, x, view, _as_shape(b, value, view))


# -- losses: the pointwise loss, then the reduction ---------------------------------------------------
def _legacy(name, size_average, reduce):
    if size_average is not None or reduce is not None:
        raise Unsupported(f"`{name}` with the deprecated size_average/reduce arguments (use reduction=...)")


def _no_weight(name, weight, what="weight"):
    if weight is not None:
        raise Unsupported(f"`{name}` with a `{what}` tensor")


def _reduce_loss(b, name, pointwise: Node, reduction, batch: Node | None = None) -> Node:
    """reduction='none' | 'sum' | 'mean' (over every element) | 'batchmean' (sum / batch size)."""
    if reduction == "none":
        return pointwise
    if reduction == "sum":
        return b.reduce("sum", pointwise, None, False)
    if reduction == "mean":
        return b.mean(pointwise, None, False)
    if reduction == "batchmean" and batch is not None:
        return b.div(b.reduce("sum", pointwise, None, False), b.dim_of(batch, 0))
    raise Unsupported(f"`{name}` with reduction={reduction!r}")


def _same_shape(name, a, c):
    if tuple(T(a).shape) != tuple(T(c).shape):
        raise Unsupported(f"`{name}` of shapes {tuple(a.shape)} and {tuple(c.shape)} (the drafter takes one shape)")


@rule("mse_loss", "input, target, size_average=None, reduce=None, reduction='mean', weight=None")
def _mse_loss(b, input, target, size_average, reduce, reduction, weight):
    _legacy("mse_loss", size_average, reduce)
    _no_weight("mse_loss", weight)
    _same_shape("mse_loss", input, target)
    d = b.sub(input, target)
    return _reduce_loss(b, "mse_loss", b.mul(d, d), reduction)


@rule("l1_loss", "input, target, size_average=None, reduce=None, reduction='mean', weight=None")
def _l1_loss(b, input, target, size_average, reduce, reduction, weight):
    _legacy("l1_loss", size_average, reduce)
    _no_weight("l1_loss", weight)
    _same_shape("l1_loss", input, target)
    return _reduce_loss(b, "l1_loss", b.ew("abs", b.sub(input, target)), reduction)


@rule("smooth_l1_loss", "input, target, size_average=None, reduce=None, reduction='mean', beta=1.0")
def _smooth_l1_loss(b, input, target, size_average, reduce, reduction, beta):
    _legacy("smooth_l1_loss", size_average, reduce)
    _same_shape("smooth_l1_loss", input, target)
    d = b.sub(input, target)
    ad = b.ew("abs", d)
    if val(beta) == 0:
        return _reduce_loss(b, "smooth_l1_loss", ad, reduction)
    # 0.5 d^2 / beta inside the band, |d| - beta / 2 outside (both computed, then selected)
    quad = b.div(b.mul(b.mul(d, d), 0.5), beta)
    lin = b.sub(ad, b.mul(beta, 0.5))
    return _reduce_loss(b, "smooth_l1_loss", b.ew("where", b.ew("lt", ad, beta), quad, lin), reduction)


@rule("huber_loss", "input, target, reduction='mean', delta=1.0, weight=None")
def _huber_loss(b, input, target, reduction, delta, weight):
    _no_weight("huber_loss", weight)
    _same_shape("huber_loss", input, target)
    d = b.sub(input, target)
    ad = b.ew("abs", d)
    quad = b.mul(b.mul(d, d), 0.5)
    lin = b.mul(b.sub(ad, b.mul(delta, 0.5)), delta)
    return _reduce_loss(b, "huber_loss", b.ew("where", b.ew("lt", ad, delta), quad, lin), reduction)


@rule("kl_div", "input, target, size_average=None, reduce=None, reduction='mean', log_target=False")
def _kl_div(b, input, target, size_average, reduce, reduction, log_target):
    _legacy("kl_div", size_average, reduce)
    _same_shape("kl_div", input, target)
    if val(log_target):
        pointwise = b.mul(b.ew("exp", target), b.sub(target, input))
    else:
        # target * (log(target) - input), with 0 where target is 0 (PyTorch's xlogy): no NaN from 0 * log(0)
        tlogt = b.ew("where", b.ew("gt", target, 0.0), b.mul(target, b.ew("log", target)), 0.0)
        pointwise = b.sub(tlogt, b.mul(target, input))
    return _reduce_loss(b, "kl_div", pointwise, reduction, batch=T(input))


@rule("soft_margin_loss", "input, target, size_average=None, reduce=None, reduction='mean'")
def _soft_margin_loss(b, input, target, size_average, reduce, reduction):
    _legacy("soft_margin_loss", size_average, reduce)
    _same_shape("soft_margin_loss", input, target)
    return _reduce_loss(b, "soft_margin_loss", G.softplus(b, b.ew("neg", b.mul(input, target)), 1.0, None), reduction)


@rule("binary_cross_entropy", "input, target, weight=None, size_average=None, reduce=None, reduction='mean'")
def _binary_cross_entropy(b, input, target, weight, size_average, reduce, reduction):
    _legacy("binary_cross_entropy", size_average, reduce)
    _no_weight("binary_cross_entropy", weight)
    _same_shape("binary_cross_entropy", input, target)
    # PyTorch clamps each log at -100, so p = 0 or 1 gives a finite loss
    lp = b.maximum(b.ew("log", input), -100.0)
    lq = b.maximum(b.ew("log", b.sub(1.0, input)), -100.0)
    pointwise = b.ew("neg", b.add(b.mul(target, lp), b.mul(b.sub(1.0, target), lq)))
    return _reduce_loss(b, "binary_cross_entropy", pointwise, reduction)


@rule("binary_cross_entropy_with_logits",
      "input, target, weight=None, size_average=None, reduce=None, reduction='mean', pos_weight=None")
def _bce_with_logits(b, input, target, weight, size_average, reduce, reduction, pos_weight):
    _legacy("binary_cross_entropy_with_logits", size_average, reduce)
    _no_weight("binary_cross_entropy_with_logits", weight)
    _no_weight("binary_cross_entropy_with_logits", pos_weight, "pos_weight")
    _same_shape("binary_cross_entropy_with_logits", input, target)
    # softplus(x) - x t, in the overflow-free form relu(x) - x t + log(1 + exp(-|x|))
    pointwise = b.sub(G.softplus(b, input, 1.0, None), b.mul(input, target))
    return _reduce_loss(b, "binary_cross_entropy_with_logits", pointwise, reduction)


def _class_targets(name, x: Node, target: Node, ignore_index) -> None:
    if len(T(x).shape) != 2:
        raise Unsupported(f"`{name}` of a rank-{len(x.shape)} input (the drafter takes (batch, classes) scores)")
    if T(target).dtype not in ("int64", "int32"):
        raise Unsupported(f"`{name}` with class-probability targets (the drafter takes int class indices)")
    if val(ignore_index) != -100:
        raise Unsupported(f"`{name}` with ignore_index={val(ignore_index)!r}")


def _per_batch(name, reduction):
    if reduction == "none":
        raise Unsupported(f"`{name}` with reduction='none' (per-row losses: the drafter drafts the mean or the sum)")


def _class_note(b, name):
    b.notes.append(f"{name}: targets are assumed to be class indices in [0, classes) (an index out of range, "
                   "including ignore_index -100, is clamped into the row instead of being ignored)")


@rule("cross_entropy", "input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, "
                       "reduction='mean', label_smoothing=0.0")
def _cross_entropy(b, input, target, weight, size_average, ignore_index, reduce, reduction, label_smoothing):
    _legacy("cross_entropy", size_average, reduce)
    _no_weight("cross_entropy", weight)
    if val(label_smoothing):
        raise Unsupported(f"`cross_entropy` with label_smoothing={val(label_smoothing)!r}")
    x = T(input)
    _class_targets("cross_entropy", x, target, ignore_index)
    _per_batch("cross_entropy", reduction)
    # log-sum-exp with the row max (exp never overflows), minus the target's score
    m = b.reduce("max", x, [1], True)
    s = b.reduce("sum", b.ew("exp", b.sub(x, m)), [1], True)
    lse = b.reshape(b.add(b.ew("log", s), m), [x.shape[0]])
    _class_note(b, "cross_entropy")
    return _reduce_loss(b, "cross_entropy", b.sub(lse, b.pick(x, target, 1)), reduction)


@rule("nll_loss", "input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction='mean'")
def _nll_loss(b, input, target, weight, size_average, ignore_index, reduce, reduction):
    _legacy("nll_loss", size_average, reduce)
    _no_weight("nll_loss", weight)
    _class_targets("nll_loss", T(input), target, ignore_index)
    _per_batch("nll_loss", reduction)
    _class_note(b, "nll_loss")
    return _reduce_loss(b, "nll_loss", b.ew("neg", b.pick(input, target, 1)), reduction)


@rule("cosine_similarity", "x1, x2, dim=1, eps=1e-8")
def _cosine_similarity(b, x1, x2, dim, eps):
    _same_shape("cosine_similarity", x1, x2)
    d = [val(dim)]
    # x1 . x2 / (max(|x1|, eps) * max(|x2|, eps)), as PyTorch clamps each norm
    dot = b.reduce("sum", b.mul(x1, x2), d, False)
    n1 = b.maximum(b.ew("sqrt", b.reduce("sum", b.mul(x1, x1), d, False)), eps)
    n2 = b.maximum(b.ew("sqrt", b.reduce("sum", b.mul(x2, x2), d, False)), eps)
    return b.div(dot, b.mul(n1, n2))


def _pairwise_distance(b, x1, x2, p, eps, keepdim):
    _same_shape("pairwise_distance", x1, x2)
    return G.norm(b, b.add(b.sub(x1, x2), eps), val(p), [-1], bool(val(keepdim)))


@rule("pairwise_distance", "x1, x2, p=2.0, eps=1e-6, keepdim=False")
def _pairwise(b, x1, x2, p, eps, keepdim):
    return _pairwise_distance(b, x1, x2, p, eps, keepdim)


@rule("triplet_margin_loss", "anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, "
                             "size_average=None, reduce=None, reduction='mean'")
def _triplet_margin_loss(b, anchor, positive, negative, margin, p, eps, swap, size_average, reduce, reduction):
    _legacy("triplet_margin_loss", size_average, reduce)
    _same_shape("triplet_margin_loss", anchor, positive)
    _same_shape("triplet_margin_loss", anchor, negative)
    d_ap = _pairwise_distance(b, anchor, positive, p, eps, False)
    d_an = _pairwise_distance(b, anchor, negative, p, eps, False)
    if val(swap):
        d_an = b.minimum(d_an, _pairwise_distance(b, positive, negative, p, eps, False))
    loss = b.clamp(b.add(b.sub(d_ap, d_an), margin), 0.0, None)
    return _reduce_loss(b, "triplet_margin_loss", loss, reduction)


# -- pooling ------------------------------------------------------------------------------------------
def _per_axis(value, dims: int, what: str) -> tuple[int, ...]:
    """An int or a tuple of `dims` ints (PyTorch's _single/_pair/_triple) as a tuple."""
    v = val(value) if isinstance(value, Node) else value
    items = list(v) if isinstance(v, (list, tuple)) else [v] * dims
    items = [val(i) if isinstance(i, Node) else i for i in items]
    if len(items) == 1:
        items = items * dims
    if len(items) != dims or not all(isinstance(i, int) and not isinstance(i, bool) for i in items):
        raise Unsupported(f"a pooling {what} of {value!r} (integers known when drafting)")
    return tuple(items)


def _max_pool(dims: int, with_indices: bool = False):
    def fn(b, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
        if val(return_indices) and not with_indices:
            raise Unsupported(f"max_pool{dims}d with return_indices=True (the indices output)")
        k = _per_axis(kernel_size, dims, "kernel size")
        s = _per_axis(stride if stride not in (None, [], ()) else kernel_size, dims, "stride")
        out = b.pool("max", T(input), dims, k, s, _per_axis(padding, dims, "padding"),
                     _per_axis(dilation, dims, "dilation"), bool(val(ceil_mode)))
        if with_indices:
            return ReturnTuple(out, Unsupported(f"the indices of max_pool{dims}d (return_indices=True)"))
        return out
    return fn


def _avg_pool(dims: int):
    def fn(b, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override=None):
        if not val(count_include_pad):
            raise Unsupported(f"avg_pool{dims}d with count_include_pad=False (the pool template divides by the "
                              "window size, padding included)")
        if divisor_override is not None:
            raise Unsupported(f"avg_pool{dims}d with divisor_override={val(divisor_override)!r}")
        k = _per_axis(kernel_size, dims, "kernel size")
        s = _per_axis(stride if stride not in (None, [], ()) else kernel_size, dims, "stride")
        return b.pool("avg", T(input), dims, k, s, _per_axis(padding, dims, "padding"), (1,) * dims,
                      bool(val(ceil_mode)))
    return fn


for _d in (1, 2, 3):
    _max_sig = "input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False"
    rule(f"max_pool{_d}d", _max_sig)(_max_pool(_d))
    rule(f"max_pool{_d}d_with_indices", _max_sig)(_max_pool(_d, with_indices=True))
    rule(f"avg_pool{_d}d", "input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True"
         + (", divisor_override=None" if _d > 1 else ""))(_avg_pool(_d))

@rule("adaptive_avg_pool2d", "input, output_size")
def _adaptive_avg_pool2d(b, input, output_size):
    """Adaptive average pooling is F.interpolate's mode='area': output o of an axis of n averages
    [floor(o * n / out), ceil((o + 1) * n / out)) (the resize template)."""
    x = T(input)
    if len(x.shape) not in (3, 4):
        raise Unsupported(f"adaptive_avg_pool2d of a rank-{len(x.shape)} tensor (PyTorch takes 3 or 4)")
    size = _static(output_size, "output size", "adaptive_avg_pool2d")
    size = list(size) if isinstance(size, (list, tuple)) else [size, size]
    size = [x.shape[-2 + i] if s is None else int(s) for i, s in enumerate(size)]
    if size == [1, 1]:                        # global average pooling: a mean over H and W
        return b.mean(x, [-2, -1], True)
    if len(x.shape) == 3:
        raise Unsupported("adaptive_avg_pool2d of an unbatched (C, H, W) tensor (the resize template averages "
                          "windows of (N, C, H, W))")
    return resize_node(x, size, None, "area", None, None, False)


_OTHER_POOLS = ("adaptive_max_pool", "adaptive_avg_pool", "lp_pool", "fractional_max_pool", "max_unpool")
for _name in (f"{p}{d}d" for p in _OTHER_POOLS for d in (1, 2, 3) if f"{p}{d}d" != "adaptive_avg_pool2d"):
    def _unsupported_pool(b, input, rest, _n=_name):
        raise Unsupported(f"`{_n}` (the pool template drafts max and avg pooling with fixed windows)")
    rule(_name, "input, *rest")(_unsupported_pool)


# -- convolution (conv.py: the node; the conv template drafts it) -------------------------------------
def _conv(dims: int):
    def fn(b, input, weight, bias, stride, padding, dilation, groups):
        return conv_node(T(input), T(weight, "conv weight"), bias, dims, stride, padding, dilation, groups)
    return fn


def _conv_transpose(dims: int):
    def fn(b, input, weight, bias, stride, padding, output_padding, groups, dilation):
        return conv_node(T(input), T(weight, "conv weight"), bias, dims, stride, padding, dilation, groups,
                         True, output_padding)
    return fn


for _d in (1, 2, 3):
    rule(f"conv{_d}d", "input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1")(_conv(_d))
    rule(f"conv_transpose{_d}d", "input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, "
         "dilation=1")(_conv_transpose(_d))


@rule("convolution", "input, weight, bias, stride, padding, dilation, transposed, output_padding, groups")
def _convolution(b, input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    dims = len(T(input).shape) - 2
    if dims not in (1, 2, 3):
        raise Unsupported(f"a convolution of a rank-{dims + 2} input")
    return conv_node(input, T(weight, "conv weight"), bias, dims, stride, padding, dilation, groups,
                     bool(val(transposed)), output_padding)


def conv_module(b, x: Node, info: dict, target: str, tensors: dict) -> Node:
    """nn.Conv1d/2d/3d and nn.ConvTranspose1d/2d/3d: the weight and bias the instantiated Model's own."""
    a = info["attrs"]
    if a.get("padding_mode", "zeros") != "zeros":
        raise Unsupported(f"nn.{info['class']} with padding_mode={a['padding_mode']!r} (the conv template pads "
                          "with zeros)")
    weight = _module_leaf(target, "weight", tensors)
    bias = _module_leaf(target, "bias", tensors) if "bias" in info.get("tensors", ()) else None
    dims = int(info["class"][-2])
    return conv_node(x, weight, bias, dims, a["stride"], a["padding"], a["dilation"], a["groups"],
                     bool(a.get("transposed")), a.get("output_padding", 0))


CONV_MODULES = {f"{c}{d}d" for c in ("Conv", "ConvTranspose") for d in (1, 2, 3)}


# -- module calls: the functional rule with the module's attributes ----------------------------------
MODULES = {
    "GELU": ("gelu", {"approximate": "approximate"}),
    "ReLU": ("relu", {}), "ReLU6": ("relu6", {}), "Sigmoid": ("sigmoid", {}), "Tanh": ("tanh", {}),
    "SiLU": ("silu", {}), "Mish": ("mish", {}), "Softsign": ("softsign", {}), "SELU": ("selu", {}),
    "ELU": ("elu", {"alpha": "alpha"}), "CELU": ("celu", {"alpha": "alpha"}),
    "Softplus": ("softplus", {"beta": "beta", "threshold": "threshold"}),
    "Hardsigmoid": ("hardsigmoid", {}), "Hardswish": ("hardswish", {}),
    "Hardtanh": ("hardtanh", {"min_val": "min_val", "max_val": "max_val"}),
    "LeakyReLU": ("leaky_relu", {"negative_slope": "negative_slope"}),
    "LogSigmoid": ("logsigmoid", {}), "Tanhshrink": ("tanhshrink", {}),
    "Softshrink": ("softshrink", {"lambd": "lambd"}), "Hardshrink": ("hardshrink", {"lambd": "lambd"}),
    "Threshold": ("threshold", {"threshold": "threshold", "value": "value"}),
    "GLU": ("glu", {"dim": "dim"}),
    "Softmax": ("softmax", {"dim": "dim"}), "LogSoftmax": ("log_softmax", {"dim": "dim"}),
    "Dropout": ("dropout", {"p": "p", "training": "training"}),
    "MSELoss": ("mse_loss", {"reduction": "reduction"}), "L1Loss": ("l1_loss", {"reduction": "reduction"}),
    "SmoothL1Loss": ("smooth_l1_loss", {"reduction": "reduction", "beta": "beta"}),
    "HuberLoss": ("huber_loss", {"reduction": "reduction", "delta": "delta"}),
    "KLDivLoss": ("kl_div", {"reduction": "reduction", "log_target": "log_target"}),
    "SoftMarginLoss": ("soft_margin_loss", {"reduction": "reduction"}),
    "BCELoss": ("binary_cross_entropy", {"reduction": "reduction"}),
    "BCEWithLogitsLoss": ("binary_cross_entropy_with_logits", {"reduction": "reduction"}),
    "CrossEntropyLoss": ("cross_entropy", {"reduction": "reduction", "ignore_index": "ignore_index",
                                           "label_smoothing": "label_smoothing"}),
    "NLLLoss": ("nll_loss", {"reduction": "reduction", "ignore_index": "ignore_index"}),
    "CosineSimilarity": ("cosine_similarity", {"dim": "dim", "eps": "eps"}),
    "PairwiseDistance": ("pairwise_distance", {"p": "norm", "eps": "eps", "keepdim": "keepdim"}),
    "TripletMarginLoss": ("triplet_margin_loss", {"margin": "margin", "p": "p", "eps": "eps", "swap": "swap",
                                                  "reduction": "reduction"}),
}
for _d in (1, 2, 3):      # nn.ReflectionPad2d and friends: F.pad of their `padding` (and `value`)
    for _cls, _fn in (("ReflectionPad", "reflection_pad"), ("ReplicationPad", "replication_pad"),
                      ("CircularPad", "circular_pad"), ("ConstantPad", "constant_pad"), ("ZeroPad", "constant_pad")):
        MODULES[f"{_cls}{_d}d"] = (f"{_fn}{_d}d", {"padding": "padding", "value": "value"})
for _cls in ("Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"):
    MODULES[_cls] = ("interpolate", {a: a for a in ("size", "scale_factor", "mode", "align_corners",
                                                    "recompute_scale_factor")})
_POOL_ATTRS = {"max": ("kernel_size", "stride", "padding", "dilation", "ceil_mode", "return_indices"),
               "avg": ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override")}
for _d in (1, 2, 3):
    MODULES[f"MaxPool{_d}d"] = (f"max_pool{_d}d", {a: a for a in _POOL_ATTRS["max"]})
    MODULES[f"AvgPool{_d}d"] = (f"avg_pool{_d}d",
                                {a: a for a in _POOL_ATTRS["avg"] if _d > 1 or a != "divisor_override"})
for _d in (1, 2, 3):     # pooling modules the pool template does not draft: their rules say why
    for _cls, _fn in zip(("AdaptiveMaxPool", "AdaptiveAvgPool", "LPPool", "FractionalMaxPool", "MaxUnpool"),
                         _OTHER_POOLS):
        MODULES[f"{_cls}{_d}d"] = (f"{_fn}{_d}d", {"output_size": "output_size"} if _fn == "adaptive_avg_pool" else {})


@dataclass
class ReturnTuple:
    """(values, indices) of torch.max(x, dim) and friends: either one is drafted, not both."""
    values: Node
    indices: Node | Unsupported          # Unsupported: why the indices cannot be drafted (pooling's)
    both: bool = False                   # both may be drafted (a sort's values and indices)

    def __getitem__(self, i):
        if i in (0, -2):
            return self.values
        if i in (1, -1):
            return self.index_node()
        raise Unsupported(f"item {i} of (values, indices)")

    def index_node(self) -> Node:
        if isinstance(self.indices, Unsupported):
            raise self.indices
        return self.indices


# -- the traced graph -> canonical nodes ------------------------------------------------------------
def short_name(node: dict) -> str:
    op, t = node["op"], node["target"]
    if op == "call_method":
        return t
    if op == "call_module":
        return "module:" + node["module"]["class"]
    if t.startswith("aten:"):
        parts = t[5:].split(".")
        return parts[1] if len(parts) > 1 else parts[0]
    return t.rsplit(".", 1)[-1]


def build_graph(traced: dict) -> Graph:
    """Canonical graph of a traced forward (the JSON from the child); raises Unsupported."""
    b = Builder()
    b.init_inputs, b.init_names = traced.get("init_inputs", []), traced.get("init_names") or []
    b.tensors = {**traced.get("buffers", {}), **traced.get("parameters", {})}
    env: dict[str, object] = {}
    init_values = _init_scalars(traced)
    inputs = traced["inputs"]
    input_names: list[str] = []
    outputs: list[Node] = []
    lines: dict[str, int] = {}
    writes = _Writes(traced["nodes"], b)
    for nd in traced["nodes"]:
        op = nd["op"]
        if nd.get("line") and op in ("call_function", "call_method", "call_module"):
            lines.setdefault(short_name(nd), nd["line"])
        meta = nd.get("meta") or {}
        if op == "placeholder":
            i = nd["index"]
            input_names.append(nd["target"])
            desc = inputs[i] if i < len(inputs) else meta
            if desc.get("kind") == "tensor":
                _no_npu_dtype(desc["dtype"], f"input `{nd['target']}`")
                env[nd["name"]] = Node("input", (), {"index": i}, tuple(desc["shape"]), desc["dtype"],
                                       name=nd["target"])
            elif desc.get("kind") == "scalar":
                env[nd["name"]] = Node("scalar", (), {"source": "input", "index": i, "pyname": nd["target"]},
                                       None, desc["type"], desc["value"], name=nd["target"])
            elif desc.get("kind") in ("const", "sequence") and _plain(desc):
                # an attribute (approximate="tanh", normalized_shape=[64], an omitted tensor): its value
                # in the traced input set, as a constant of the draft
                env[nd["name"]] = _plain_value(desc)
            else:
                raise Unsupported(f"forward argument `{nd['target']}` is a {desc.get('kind', 'value')} "
                                  "(tensors and numbers are supported)")
        elif op == "get_attr":
            env[nd["name"]] = _model_tensor(b, nd, traced)
        elif op in ("call_function", "call_method", "call_module"):
            if short_name(nd) == "getitem" and nd["name"] not in writes.last_use:
                continue         # an item forward unpacks and never reads (the mean, rstd of native_group_norm)
            try:
                env[nd["name"]] = _apply(b, nd, env, init_values)
                writes.made(nd, env)
            except Unsupported as e:
                if nd.get("line") and not str(e).startswith("internal:"):
                    raise Unsupported(f"{e} (reference line {nd['line']})") from None
                raise
        elif op == "output":
            result = _decode(nd["args"][0], env, init_values)
            items = _flat_items(result) if isinstance(result, (list, tuple)) else [result]
            if len(items) == 1 and isinstance(items[0], ReturnTuple) and items[0].both:
                items = [items[0].values, items[0].indices]
            for it in items:
                if isinstance(it, ReturnTuple):
                    raise Unsupported("forward returns both (values, indices) of a max/min (the drafter drafts one "
                                      "output: `.values` or `.indices`)")
                if not isinstance(it, Node) or not it.is_tensor:
                    raise Unsupported("forward returns something that is not a tensor")
                outputs.append(it)
    g = Graph(outputs, inputs, traced["init_inputs"], traced.get("init_names", []), input_names,
              traced.get("parameters", {}), traced.get("buffers", {}), traced.get("method", "fx"),
              bool(traced.get("training")))
    g.lines = lines
    b.parts_are_outputs = bool(g.outputs) and all(o.op == "split" for o in g.outputs)
    g.outputs = rewrite(b, g.outputs)
    _no_empty_read(g.outputs)
    g.notes.extend(b.notes)
    _check_meta(traced, g)
    return g


def _flat_items(result) -> list:
    """forward's results with every list of tensors among them spread in place (a foreach op's list)."""
    out = []
    for r in result:
        out += _flat_items(r) if isinstance(r, list) else [r]
    return out


def _no_empty_read(outputs: list[Node]) -> None:
    """Every value of a torch.empty(...) tensor that forward returns or computes with was written first."""
    seen, todo = set(), list(outputs)
    while todo:
        n = todo.pop()
        if not isinstance(n, Node) or id(n) in seen:
            continue
        seen.add(id(n))
        if n.op == "full" and n.attrs.get("empty"):
            raise Unsupported(f"values of a torch.empty tensor of shape {tuple(n.shape)} that forward reads before "
                              "writing them (they are undefined: fill it first, or write every element)")
        todo.extend(n.args)
        if isinstance(n.attrs.get("of"), Node):
            todo.append(n.attrs["of"])


def _no_npu_dtype(dtype: str, what: str) -> None:
    """float64 and complex tensors: refused in one line saying why and what to do."""
    if dtype in ("float64", "double"):
        raise Unsupported(f"{what} is float64: the NPU's vector unit has no f64 arithmetic (it computes in f32 or "
                          "f16); make the reference float32 (torch.randn(..., dtype=torch.float32), .float()) and "
                          "compare with f32's tolerance (1e-4)")
    if dtype.startswith("complex"):
        raise Unsupported(f"{what} is {dtype}: the vector unit has no complex arithmetic; pass the real and "
                          "imaginary parts as float32 tensors (torch.view_as_real) and write forward on them")


def _in_place_name(name: str) -> bool:
    return name.endswith("_") and not name.startswith("_") and name[:-1] in RULES and name not in RULES


# fx nodes whose result shares its first operand's storage (a later in-place write shows through them)
_VIEW_NAMES = frozenset(
    "view view_as reshape flatten unflatten squeeze unsqueeze transpose permute t expand expand_as narrow select "
    "getitem chunk split tensor_split unbind movedim moveaxis swapaxes swapdims diagonal as_strided detach "
    "contiguous alias unfold getattr slice".split())


class _Writes:
    """In-place forms (`x.add_(y)`, `torch.relu_(x)`, `F.relu(x, inplace=True)`, `nn.ReLU(inplace=True)`):
    the op is its out-of-place form, and the tensor it wrote is that result from then on: every fx
    name of that tensor (the operand, earlier in-place results of it) is rebound to the new value, as
    PyTorch's forward would read it. A write into storage that a view of it (or the tensor a view
    reads) still reads afterwards is refused in one line: the drafter's values are not storage."""

    def __init__(self, nodes: list[dict], b: Builder):
        self.b = b
        self.last_use: dict[str, int] = {}
        self.position: dict[str, int] = {}
        for i, nd in enumerate(nodes):
            self.position[nd["name"]] = i
            for a in list(nd.get("args", [])) + list(nd.get("kwargs", {}).values()):
                for used in _node_refs(a):
                    self.last_use[used] = i
        self.storage: dict[str, str] = {}     # fx name -> the fx name whose storage it reads
        self.same: dict[str, str] = {}        # fx name -> the fx name of the tensor it is (in-place results)

    def made(self, nd: dict, env: dict) -> None:
        name, args = nd["name"], nd.get("args", [])
        first = args[0].get("node") if args and isinstance(args[0], dict) else None
        short = short_name(nd)
        if short.startswith("_foreach_") and short.endswith("_") and args and "list" in args[0]:
            # an in-place foreach writes every tensor of its first list: one write per item
            for i, a in enumerate(args[0]["list"]):
                if "node" in a:
                    item = dict(nd, name=f"{name}.{i}")
                    self.position[item["name"]] = self.position[name]
                    env[item["name"]] = env[name][i]
                    self._write(item, a["node"], env)
            return
        if first is None:
            return
        if self._in_place(nd, short):
            self._write(nd, first, env)
        elif short == "getitem" and isinstance(env.get(first), list) and first not in self.storage:
            return          # an item of a list of results (a foreach op's): a tensor of its own, not a view
        elif short in _VIEW_NAMES:
            self.storage[name] = self.storage.get(first, first)

    @staticmethod
    def _in_place(nd: dict, short: str) -> bool:
        if _in_place_name(short) or short == "setitem":
            return True
        if nd["op"] == "call_module":
            return nd["module"]["attrs"].get("inplace") is True
        return nd.get("kwargs", {}).get("inplace", {}).get("const") is True

    def _write(self, nd: dict, target: str, env: dict) -> None:
        name, at = nd["name"], self.position[nd["name"]]
        root = self.storage.get(target, target)
        ident = self.same.get(target, target)
        self.storage[name], self.same[name] = root, ident
        names = [n for n in set(self.storage) | {root} if self.storage.get(n, n) == root]
        same = {n for n in names if self.same.get(n, n) == ident}
        base = {n for n in names if self.same.get(n, n) == self.same.get(root, root)}
        if ident != self.same.get(root, root) and isinstance(env.get(target), Node) and \
                isinstance(env.get(root), Node):
            # a write into a slice of a tensor (torch.export's out[:, a:b] = v: slice, then copy_): the tensor
            # is rebuilt from the parts kept and the value written
            whole = _assign(self.b, env[root], env[target], env[name])
        else:
            base, whole = set(), None
        shared = [n for n in names if n not in same | base and self.last_use.get(n, -1) > at]
        if shared:
            raise Unsupported(f"in-place `{short_name(nd)}` writes into a tensor that a view of it shares, read "
                              f"afterwards (`{shared[0]}`): write it out of place")
        for n in same:
            env[n] = env[name]
        for n in base:
            env[n] = whole


def _node_refs(a):
    if isinstance(a, dict):
        if "node" in a:
            yield a["node"]
        for k in ("list", "tuple", "slice"):
            for x in a.get(k, ()):
                yield from _node_refs(x)


def _model_tensor(b: Builder, nd: dict, traced: dict) -> Node:
    """A tensor forward reads from the Model: a parameter, a buffer or a plain tensor attribute is a
    `param` (bound by name like a parameter); a constant the tracer lifted from forward
    (`torch.tensor(2.0)`, `torch.ones(n)`: `_tensor_constant0`, `lifted_tensor_0`) that holds one
    value is that value (a number when 0-d, else a fill of its shape)."""
    name = nd["target"]
    desc = traced["parameters"].get(name) or traced["buffers"].get(name)
    if desc is not None and desc.get("kind") == "tensor":
        _no_npu_dtype(desc["dtype"], f"Model tensor `{name}`")
        return Node("param", (), {"name": name}, tuple(desc["shape"]), desc["dtype"], name=name)
    meta = nd.get("meta") or {}
    if meta.get("kind") != "tensor":
        raise Unsupported(f"attribute `{name}` of the Model is not a tensor")
    fill = nd.get("fill")
    if fill is None:
        raise Unsupported(f"a tensor constant created in forward with differing values (`{name}`, shape "
                          f"{tuple(meta['shape'])}): make it an input or a buffer (self.register_buffer)")
    value = float(fill) if isinstance(fill, str) else fill
    dtype = meta["dtype"]
    if dtype in ("float64", "complex64", "complex128") or dtype not in G.FLOAT_DTYPES + ("bool", "int64", "int32"):
        raise Unsupported(f"a {dtype} tensor constant created in forward (`{name}`)")
    value = bool(value) if dtype == "bool" else float(value) if dtype in G.FLOAT_DTYPES else value
    if not meta["shape"]:
        return b.const(value)
    return b.full(value, meta["shape"], dtype)


def _plain(desc: dict) -> bool:
    if desc.get("kind") == "const":
        return True
    if desc.get("kind") == "scalar":
        return True
    return desc.get("kind") == "sequence" and all(_plain(x) for x in desc["items"])


def _plain_value(desc: dict):
    if desc.get("kind") == "sequence":
        return [_plain_value(x) for x in desc["items"]]
    return desc.get("value")


def _init_scalars(traced: dict) -> dict[float, Node]:
    """Float numbers of get_init_inputs(), by value, when the value is unique: a traced constant
    equal to one is that init input (so the draft names it instead of repeating the number)."""
    seen: dict[float, list[int]] = {}
    for i, d in enumerate(traced.get("init_inputs", [])):
        if d.get("kind") == "scalar" and d.get("type") == "float":
            seen.setdefault(d["value"], []).append(i)
    names = traced.get("init_names") or []
    out = {}
    for v, idx in seen.items():
        if len(idx) == 1:
            i = idx[0]
            name = names[i] if i < len(names) and names[i] else f"init{i}"
            out[v] = Node("scalar", (), {"source": "init", "index": i, "pyname": name}, None, "float", v, name=name)
    return out


def _decode(a, env, init_values):
    if "node" in a:
        return env[a["node"]]
    if "const" in a:
        v = a["const"]
        if isinstance(v, float) and not isinstance(v, bool) and v in init_values:
            return init_values[v]
        return v
    if "float" in a:
        return float(a["float"])
    if "list" in a:
        return [_decode(x, env, init_values) for x in a["list"]]
    if "tuple" in a:
        return tuple(_decode(x, env, init_values) for x in a["tuple"])
    if "slice" in a:
        return slice(*[_decode(x, env, init_values) for x in a["slice"]])
    if "ellipsis" in a:
        return Ellipsis
    if "dtype" in a:
        return TorchDType(a["dtype"])
    if "device" in a:
        return None
    if "tensor_const" in a:
        raise Unsupported("a tensor constant created inside forward")
    raise Unsupported(f"an argument the drafter cannot read ({a.get('repr', a)})")


def _apply(b: Builder, nd: dict, env, init_values):
    name = short_name(nd)
    args = [_decode(a, env, init_values) for a in nd.get("args", [])]
    kwargs = {k: _decode(v, env, init_values) for k, v in nd.get("kwargs", {}).items()}
    if nd["op"] == "call_module":
        info = nd["module"]
        cls = info["class"]
        if cls in MODULES:
            fname, attr_map = MODULES[cls]
            attrs = info["attrs"]
            for kw, attr in attr_map.items():
                if attr in attrs:
                    v = attrs[attr]
                    kwargs.setdefault(kw, init_values.get(v, v) if isinstance(v, float) else v)
            if cls == "Dropout":
                kwargs["training"] = info["training"]
            name = fname
        elif cls == "Linear":
            if len(args) != 1 or kwargs or not isinstance(args[0], Node) or not args[0].is_tensor:
                raise Unsupported("nn.Linear called with other than one tensor")
            return linear_module(b, args[0], info, nd["target"], b.tensors)
        elif cls in CONV_MODULES:
            if len(args) != 1 or kwargs or not isinstance(args[0], Node) or not args[0].is_tensor:
                raise Unsupported(f"nn.{cls} called with other than one tensor")
            return conv_module(b, args[0], info, nd["target"], b.tensors)
        elif cls in MODULE_RULES:
            if len(args) != 1 or kwargs or not isinstance(args[0], Node) or not args[0].is_tensor:
                raise Unsupported(f"nn.{cls} called with other than one tensor")
            return MODULE_RULES[cls](b, args[0], info, nd["target"], b.tensors)
        elif cls == "GuardsFn":          # torch.export's shape guards: no computation
            return None
        elif cls == "Embedding":
            attrs = info["attrs"]
            w = _module_leaf(nd["target"], "weight", b.tensors)
            return _embedding(b, args[0] if args else kwargs.get("input"), w, attrs.get("padding_idx"),
                              attrs.get("max_norm"), 2.0, False, False)
        elif info.get("tensors"):
            raise Unsupported(f"module nn.{cls} (a module with its own weights)")
        elif name not in RULES:
            raise Unsupported(f"module nn.{cls}")
    if name.startswith("_foreach_"):
        return _foreach(b, name, args, kwargs)
    if name == "getitem":
        return _getitem(b, args[0], args[1])
    if name == "getattr":
        return _getattr(b, args[0], args[1])
    if _in_place_name(name):
        name = name[:-1]             # the same op out of place; build_graph rebinds what it wrote (_Writes)
    r = RULES.get(name)
    if r is None:
        where = {"call_method": "Tensor.", "call_module": "nn."}.get(nd["op"], "")
        target = nd["target"] if nd["op"] != "call_function" else nd["target"].replace("aten:", "")
        raise Unsupported(f"`{where}{target}`")
    result = r.fn(b, **bind(r, name, args, kwargs))
    return result


def _foreach(b: Builder, name: str, args: list, kwargs: dict) -> list:
    """torch._foreach_<op>(xs, ...) (the lists optimizers and AMP use): <op> applied to the i-th item of every
    list argument (tensors, or numbers of a ScalarList) and the other arguments as they are; a list of results.
    The in-place form (`_foreach_mul_`) writes every tensor of its first list (build_graph rebinds them)."""
    base = name[len("_foreach_"):].rstrip("_")
    r = RULES.get(base)
    lists = [a for a in list(args) + list(kwargs.values()) if isinstance(a, list)]
    if r is None or not lists:
        raise Unsupported(f"`torch.{name}`" + ("" if lists else " without a list argument"))
    n = len(lists[0])
    if any(len(x) != n for x in lists):
        raise Unsupported(f"`torch.{name}` of lists of different lengths")
    shapes = sorted({tuple(t.shape) for x in lists for t in x if isinstance(t, Node) and t.is_tensor})
    if len(shapes) > 1:
        raise Unsupported(f"`torch.{name}` over tensors of different shapes ({', '.join(map(str, shapes[:3]))}): the "
                          "drafter drafts one kernel over tensors of one shape; group the list by shape")

    def item(a, i):
        return a[i] if isinstance(a, list) else a
    return [r.fn(b, **bind(r, base, [item(a, i) for a in args], {k: item(v, i) for k, v in kwargs.items()}))
            for i in range(n)]


def _module_leaf(module: str, name: str, tensors: dict) -> Node:
    full = f"{module}.{name}" if module else name
    desc = tensors.get(full)
    if desc is None or desc.get("kind") != "tensor":
        raise Unsupported(f"module `{module}` has no tensor `{name}`")
    return Node("param", (), {"name": full}, tuple(desc["shape"]), desc["dtype"], name=full)


def _getitem(b: Builder, obj, idx):
    if isinstance(obj, ReturnTuple):
        return obj[idx]
    if isinstance(obj, (list, tuple)):
        if isinstance(idx, Node):
            raise Unsupported("indexing a sequence with a traced value")
        return obj[idx]
    if isinstance(obj, Node) and obj.is_tensor:
        if isinstance(idx, Node) and idx.is_tensor and idx.dtype in ("int64", "int32"):
            return b.take_rows(obj, idx, 0)             # x[index]: whole slices along the first axis
        return _index_tensor(obj, idx)
    raise Unsupported(f"indexing {obj!r}")


def _index_tensor(x: Node, idx) -> Node:
    items = list(idx) if isinstance(idx, tuple) else [idx]
    if Ellipsis in items:
        k = items.index(Ellipsis)
        fill = len(x.shape) - (len(items) - 1)
        items = items[:k] + [slice(None)] * fill + items[k + 1:]
    items += [slice(None)] * (len(x.shape) - len(items))
    if len(items) != len(x.shape) or any(not isinstance(i, slice) for i in items):
        raise Unsupported("tensor indexing other than slices (x[..., a:b])")
    cut = [(ax, s) for ax, s in enumerate(items) if s != slice(None)]
    half = {}
    for ax, s in cut:
        half[ax] = _half_of(x, ax, s)
        traced = any(isinstance(v, Node) for v in (s.start, s.stop, s.step))
        if half[ax] is None and (traced or s.step not in (None, 1)):
            raise Unsupported("a slice with a traced bound or a step")
    if not cut:
        return x
    if len(cut) > 1:
        raise Unsupported("slicing along more than one axis")
    ax, s = cut[0]
    a = x.shape[ax]
    if half[ax] is not None and a % 2 == 0:
        # x[..., :d] / x[..., d:] with d = x.shape[-1] // 2: a half, as chunk(x, 2) cuts an even axis (the
        # draft then writes d as a dim expression)
        return _split_parts(x, ax, ("chunks", 2), [(0, a // 2), (a // 2, a)])[half[ax]]
    if half[ax] is not None:
        return _slice_node(x, ax, *((0, a // 2) if half[ax] == 0 else (a // 2, a)))
    return _slice_node(x, ax, s.start, s.stop)


def _half_of(x: Node, axis: int, s: slice):
    """0 or 1 when `s` is [:d] or [d:] with d = x.shape[axis] // 2 (a traced value), else None."""
    def is_half(v):
        return isinstance(v, Node) and v.op == "floordiv" and v.args[1].is_const and v.args[1].value == 2 and \
            v.args[0].op == "dim" and v.args[0].attrs.get("of") is x and v.args[0].attrs.get("axis") in (
                axis, axis - len(x.shape))
    if s.step not in (None, 1):
        return None
    if s.start is None and is_half(s.stop):
        return 0
    if is_half(s.start) and s.stop is None:
        return 1
    return None


def _getattr(b: Builder, obj, attr):
    if isinstance(obj, ReturnTuple):
        if attr == "values":
            return obj.values
        if attr == "indices":
            return obj.index_node()
        raise Unsupported(f"attribute `{attr}` of (values, indices)")
    if isinstance(obj, Node) and obj.is_tensor:
        if attr == "shape":
            return [b.dim_of(obj, i) for i in range(len(obj.shape))]
        if attr == "ndim":
            return b.const(len(obj.shape))
        if attr == "dtype":
            return TorchDType(obj.dtype)
        if attr in ("data",):
            return obj
        if attr == "device":         # x.to(x.device), torch.empty(..., device=x.device): one device here
            return None
        if attr == "mT" or attr == "T" and len(obj.shape) <= 2:
            return transpose(obj)
        if attr == "T":
            raise Unsupported(f"`.T` of a rank-{len(obj.shape)} tensor (it reverses every axis; use .mT)")
    raise Unsupported(f"attribute `{attr}`")


# -- patterns spanning nodes ----------------------------------------------------------------------------
def rewrite(b: Builder, outputs: list[Node]) -> list[Node]:
    """Fold multi-node patterns into canonical nodes, bottom-up, with memoisation."""
    memo: dict[int, Node] = {}

    def go(n):
        if not isinstance(n, Node):
            return n
        if id(n) in memo:
            return memo[id(n)]
        args = tuple(go(a) for a in n.args)
        attrs = dict(n.attrs)
        if "of" in attrs:
            attrs["of"] = go(attrs["of"])
        m = _rewrite_one(b, n, args, attrs)
        memo[id(n)] = m
        return m

    return [go(o) for o in outputs]


def _rewrite_one(b: Builder, n: Node, args: tuple, attrs: dict) -> Node:
    op = n.op
    if op == "flip":
        x = args[0]
        if x.op == "flip" and x.attrs["axes"] == attrs["axes"]:
            return x.args[0]
        if x.op == "scan" and (x.attrs["axis"],) == attrs["axes"] and x.args[0].op == "flip" \
                and x.args[0].attrs["axes"] == attrs["axes"]:
            # flip(scan(flip(v))) along one axis: the scan runs from the end
            return b.scan(x.attrs["kind"], x.args[0].args[0], x.attrs["axis"], reverse=not x.attrs["reverse"])
        return Node("flip", (x,), attrs, n.shape, n.dtype)
    if op == "slice":
        x = args[0]
        shifted = _shift_of_cat(x, attrs)
        if shifted is not None:
            return shifted
        return Node("slice", (x,), attrs, n.shape, n.dtype)
    if op == "cat":
        shifted = _shift_of_cat_parts(args, attrs["axis"], n.shape)
        if shifted is not None:
            return shifted
        return Node("cat", args, attrs, n.shape, n.dtype)
    if op == "scan" and args[0].op == "shift" and args[0].attrs["axis"] == attrs["axis"] \
            and attrs["kind"] == "cumsum" and not attrs["reverse"]:
        # an exclusive prefix sum: the inclusive one minus the element itself
        v = args[0].args[0]
        return b.sub(b.scan("cumsum", v, attrs["axis"]), v)
    if op in ("input", "param", "scalar", "const", "dim"):
        if op == "dim":
            return Node("dim", (), attrs, None, "int", n.value)
        return n
    if op == "reduce":
        return Node("reduce", args, attrs, n.shape, n.dtype)
    if op in ("scan", "pool"):
        return Node(op, args, attrs, n.shape, n.dtype)
    if op == "reshape":
        if "sym" in attrs:     # a reshape that splits an axis keeps the symbolic sizes of its axes
            return Node("reshape", args, attrs, n.shape, n.dtype)
        return b.reshape(args[0], n.shape)
    if op == "cast":
        return b.cast(args[0], attrs["dtype"])
    if op == "full":
        return Node("full", args, attrs, n.shape, n.dtype)
    if op == "split" and not attrs["squeeze"] and not getattr(b, "parts_are_outputs", True):
        # a part consumed by computation (SwiGLU's a, b = x.chunk(2, -1)) is a view, like a slice; it
        # keeps how it follows from the axis's length, so a draft writes its start as a dim expression
        return Node("slice", args, {"axis": attrs["axis"], "start": attrs["start"], "stop": attrs["stop"],
                                    "how": attrs["how"], "part": attrs["part"]}, n.shape, n.dtype)
    if op in ("expand", "select", "pick", "matmul", "transpose", "permute", "split", "diag", "triu", "tril",
              "argreduce", "gather", "take_rows", "index_add", "scatter_add", "index_copy", "scatter", "resize",
              "affine_grid", "grid_sample", "sort", "histc", "interleave", "nonzero", "pad", "roll", "tile", "conv"):
        return Node(op, args, attrs, n.shape, n.dtype)
    inner = _grouped_view(args)
    if inner is not None:
        # elementwise work after a group norm's reshape back (F.gelu(F.group_norm(x, g))): done in the grouped
        # shape, then reshaped, so the statistics and the work are one grouped reduction
        return b.reshape(b.ew(op, *(a.args[0] if isinstance(a, Node) and a.is_tensor else a for a in args)), n.shape)
    return b.ew(op, *args)


def _grouped_view(args: tuple) -> tuple | None:
    """The shape every tensor operand is a reshape from, when each is a reshape back from a grouped split
    (a `reshape` with `sym` below it, group norm's (N, G, C/G, ...)); else None."""
    tensors = [a for a in args if isinstance(a, Node) and a.is_tensor]
    if not tensors or any(t.op != "reshape" or "sym" in t.attrs for t in tensors):
        return None
    shapes = {tuple(t.args[0].shape) for t in tensors}
    if len(shapes) != 1 or len({tuple(t.shape) for t in tensors}) != 1:
        return None
    below, seen = [t.args[0] for t in tensors], set()
    while below:
        m = below.pop()
        if id(m) in seen or not isinstance(m, Node):
            continue
        seen.add(id(m))
        if m.op == "reshape" and "sym" in m.attrs:
            return shapes.pop()
        below.extend(m.args)
    return None


def _is_zero_full(x: Node) -> bool:
    return x.op == "full" and x.args[0].is_const and x.args[0].value == 0


def _shift_of_cat_parts(parts, axis, shape):
    """cat([zeros (1 along axis), x[..., :-1]], axis): x shifted by one along `axis`, zero-filled."""
    if len(parts) == 2 and _is_zero_full(parts[0]) and parts[0].shape[axis] == 1 and parts[1].op == "slice" \
            and parts[1].attrs["axis"] == axis and parts[1].attrs["start"] == 0 \
            and parts[1].attrs["stop"] == parts[1].args[0].shape[axis] - 1:
        v = parts[1].args[0]
        return Node("shift", (v,), {"axis": axis}, v.shape, v.dtype)
    return None


def _shift_of_cat(x: Node, attrs: dict):
    """cat([zeros (1 along axis), x], axis)[..., :n]: the same shift, sliced after the cat."""
    axis = attrs["axis"]
    if x.op == "cat" and x.attrs["axis"] == axis and len(x.args) == 2 and _is_zero_full(x.args[0]) \
            and x.args[0].shape[axis] == 1 and attrs["start"] == 0 and attrs["stop"] == x.args[1].shape[axis]:
        v = x.args[1]
        return Node("shift", (v,), {"axis": axis}, v.shape, v.dtype)
    return None


def _check_meta(traced: dict, g: Graph) -> None:
    """The rebuilt outputs must have the shapes the traced run recorded (a rule bug otherwise)."""
    out = next((n for n in traced["nodes"] if n["op"] == "output"), None)
    meta = (out or {}).get("meta") or {}
    items = meta.get("items") if meta.get("kind") == "sequence" else [meta]
    for o, m in zip(g.outputs, items or []):
        if o.op == "nonzero":     # rows up to the input's size: the traced count is one run's
            continue
        if m and m.get("kind") == "tensor" and tuple(m["shape"]) != tuple(o.shape):
            raise Unsupported(f"internal: output shape {tuple(o.shape)} differs from the traced {tuple(m['shape'])}")


@rule("addcmul", "input, tensor1, tensor2, value=1")
def _addcmul(b, input, tensor1, tensor2, value):
    return b.add(input, b.mul(b.mul(tensor1, tensor2), value))


@rule("addcdiv", "input, tensor1, tensor2, value=1")
def _addcdiv(b, input, tensor1, tensor2, value):
    return b.add(input, b.mul(b.div(tensor1, tensor2), value))


@rule("lerp", "input, end, weight")
def _lerp(b, input, end, weight):
    return b.add(input, b.mul(b.sub(end, input), weight))
