"""Programs of kernels the drafter writes for model references (issue 32): the forms of the
hand-written examples in examples/arch, generated for the traced module's sizes and state_dict names.

    nn.LSTM / nn.GRU / nn.RNN over a sequence (seq-first, 1..k layers, zero initial state):
        per layer one cube launch for every step's input projection, then per time step a cube
        launch (h_{t-1} @ W_hh^T) and a vector cell launch in a host loop (examples/arch/lstm.dsl.py);
        h_n / c_n are copied out of the last step's state after each layer's loop.
    a chain of nn.Linear layers with elementwise activations between them (nn.Sequential MLPs):
        per layer a cube launch (x @ W^T) and, when it has a bias or an activation follows, a vector
        epilogue launch (examples/arch/mlp.dsl.py).

`draft_program(traced, name, source)` reads the traced graph (drafter/trace.py's JSON). It returns
None when the graph is not of these shapes (the one-kernel drafter takes it), a `ProgramDraft`
(text parsed back with dsl.program.parse_any and checked by verify_multi) when it is, and raises
`Unsupported` with one line naming the operation and its reference line when the graph holds a
recurrent module the program forms cannot take (a graph with Linear layers that is not a plain chain
goes on to the one-kernel drafter, which names what it cannot take).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..dsl.errors import DslError
from ..dsl.program import parse_any
from ..dsl.program_check import verify_multi
from .graph import Unsupported

_RNN = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}

# activation -> the vector expression of `xu` (the DSL's compute ops)
_ACTS = {
    "relu": "max(xu, 0.0)",
    "sigmoid": "sigmoid(xu)",
    "tanh": "tanh(xu)",
    "gelu": "0.5 * xu * (1.0 + tanh((xu + 0.044715 * xu * xu * xu) * 0.7978845608))",   # the tanh form
    "silu": "xu * sigmoid(xu)",
}
_ACT_MODULES = {"ReLU": "relu", "Sigmoid": "sigmoid", "Tanh": "tanh", "GELU": "gelu", "SiLU": "silu"}
_ACT_FUNCS = {"relu": "relu", "sigmoid": "sigmoid", "tanh": "tanh", "gelu": "gelu", "silu": "silu"}


@dataclass
class ProgramDraft:
    text: str
    template: str                # "recurrent" | "mlp"
    op: str
    notes: list[str] = field(default_factory=list)


def draft_program(traced: dict, name: str = "program", source: str = "the reference") -> ProgramDraft | None:
    nodes = [n for n in traced.get("nodes") or []]
    mods = [n for n in nodes if n.get("op") == "call_module"]
    rnn = [n for n in mods if (n.get("module") or {}).get("class") in ("LSTM", "GRU", "RNN")]
    lin = [n for n in mods if (n.get("module") or {}).get("class") == "Linear"]
    if rnn:
        d = _recurrent(nodes, rnn, traced, name)
    elif len(lin) >= 2:
        d = _mlp(nodes, traced, name)
        if d is None:
            return None
    else:
        return None
    try:
        verify_multi(parse_any(d.text, f"{name}.dsl.py"))
    except DslError as e:
        raise Unsupported(f"internal: the {d.template} program draft does not verify: {e.message}") from None
    return d


def _where(n: dict) -> str:
    return f" (reference line {n['line']})" if n.get("line") else ""


def _refs(a) -> list[str]:
    """The node names an encoded argument refers to, in order."""
    if isinstance(a, dict):
        if "node" in a:
            return [a["node"]]
        return [r for v in a.values() for r in _refs(v)]
    if isinstance(a, list):
        return [r for v in a for r in _refs(v)]
    return []


def _op_name(n: dict) -> str:
    if n.get("op") == "call_module":
        return f"nn.{(n.get('module') or {}).get('class', '?')}"
    return str(n.get("target", n.get("name")))


# --------------------------------------------------------------------------------------------- recurrent

_MM = '''

@host
def mm_tiling(x: Tensor[f32, (M, K)], w: Tensor[f32, (N, K)]):
    base_m = min(128, align_up(M, 16))
    base_n = min(128, align_up(N, 16))
    base_k = min(64, align_up(K, 8))          # B^T is not transposed in the split: K steps in f32 fractals of 8
    cores = min(CUBE_CORES, cdiv(M, base_m) * cdiv(N, base_n))
    return Launch(cores, base_m=base_m, base_n=base_n, base_k=base_k)


@kernel
def matmul_bt(x: GM[f32, (M, K)], w: GM[f32, (N, K)], y: Out[f32, (M, N)], t: Tiling):
    for mi, ni in core_tiles((M, N), (t.base_m, t.base_n)):
        acc = zeros(mi.len, ni.len, L0C)
        for ki in tiles(K, t.base_k):
            with copyin:
                a1 = load(x[mi, ki], L1)
                b1 = load(w[ni, ki], L1)
            with split:
                a0 = load(a1, L0A)
                b0 = load(b1, L0B, transpose=True)
            with compute:
                acc = mmad(a0, b0, acc)
        with copyout:
            store(y[mi, ni], acc)
'''

_ROWS_HOST = '''

@host
def {host}({arg}: Tensor[f32, {shape}]):
    cores = min(VECTOR_CORES, B)
    rows = cdiv(B, cores)
    cores = cdiv(B, rows)
    return Launch(cores, rows=rows, tile=min({tile}, {last}))
'''

_COPY = _ROWS_HOST.format(host="copy_tiling", arg="src", shape="(B, H)", tile="ub_elems(f32, live=2)", last="H") + '''

@kernel
def copy_rows(src: GM[f32, (B, H)], dst: Out[f32, (B, H)], t: Tiling):
    for r in core_rows(t.rows, B):
        for c in tiles(H, t.tile):
            with copyin:
                u = load(src[r, c])
            with compute:
                v = u * 1.0
            with copyout:
                store(dst[r, c], v)
'''


def _cell(mode: str) -> str:
    g = _RNN[mode]
    host = _ROWS_HOST.format(host="cell_tiling", arg="gx", shape=f"(B, {g}, H)", tile="fit_tile(f32)", last="H")
    names = {"LSTM": "ifgo", "GRU": "rzn"}.get(mode, "a")
    loads = []
    for k, ch in enumerate(names):
        loads.append(f"x{ch} = load(gx[r, {k}, c])")
        loads.append(f"h{ch} = load(gh[r, {k}, c])")
        loads.append(f"bi{ch}{'_' if ch == 'n' else ''} = load(bi[{k}, c])")
        loads.append(f"bh{ch} = load(bh[{k}, c])")
    if mode == "LSTM":
        params = ["c0: GM[f32, (B, H)]", "c1: Out[f32, (B, H)]", "h1: Out[f32, (B, H)]", "y: Out[f32, (B, H)]"]
        loads.append("cu = load(c0[r, c])")
        compute = ["ig = sigmoid(xi + hi + bii + bhi)", "fg = sigmoid(xf + hf + bif + bhf)",
                   "gg = tanh(xg + hg + big + bhg)", "og = sigmoid(xo + ho + bio + bho)",
                   "cn = fg * cu + ig * gg", "hnew = og * tanh(cn)"]
        stores = ["store(c1[r, c], cn)", "store(h1[r, c], hnew)", "store(y[r, c], hnew)"]
    elif mode == "GRU":
        params = ["h0: GM[f32, (B, H)]", "h1: Out[f32, (B, H)]", "y: Out[f32, (B, H)]"]
        loads.append("hu = load(h0[r, c])")
        compute = ["rg = sigmoid(xr + bir + hr + bhr)", "zg = sigmoid(xz + biz + hz + bhz)",
                   "ng = tanh(xn + bin_ + rg * (hn + bhn))", "hnew = ng + zg * (hu - ng)"]
        stores = ["store(h1[r, c], hnew)", "store(y[r, c], hnew)"]
    else:
        params = ["h1: Out[f32, (B, H)]", "y: Out[f32, (B, H)]"]
        act = "tanh(pre)" if mode == "RNN_TANH" else "max(pre, 0.0)"
        compute = ["pre = xa + ha + bia + bha", f"hnew = {act}"]
        stores = ["store(h1[r, c], hnew)", "store(y[r, c], hnew)"]
    sig = ",\n    ".join([f"gx: GM[f32, (B, {g}, H)]", f"gh: GM[f32, (B, {g}, H)]", f"bi: GM[f32, ({g}, H)]",
                          f"bh: GM[f32, ({g}, H)]", *params, "t: Tiling"])
    body = "\n".join(["    for r in core_rows(t.rows, B):", "        for c in tiles(H, t.tile):",
                      "            with copyin:", *[" " * 16 + s for s in loads],
                      "            with compute:", *[" " * 16 + s for s in compute],
                      "            with copyout:", *[" " * 16 + s for s in stores]])
    return host + f"\n\n@kernel\ndef {mode.lower()}_cell(\n    {sig},\n):\n{body}\n"


def _recurrent(nodes, rnn, traced, name) -> ProgramDraft:
    if len(rnn) > 1:
        raise Unsupported(f"a second recurrent module {_op_name(rnn[1])}{_where(rnn[1])} (the program drafter "
                          "takes one nn.LSTM / GRU / RNN; stack them with num_layers)")
    m = rnn[0]
    mod = m["module"]
    a = mod.get("attrs") or {}
    mode, what = a.get("mode"), _op_name(m) + _where(m)
    if mode not in _RNN:
        raise Unsupported(f"{what}: mode {mode}")
    for key, bad, why in (("bidirectional", True, "bidirectional"), ("batch_first", True, "batch_first=True"),
                          ("bias", False, "bias=False"), ("proj_size", None, "proj_size")):
        v = a.get(key)
        if (bad is None and v) or (bad is not None and v == bad):
            raise Unsupported(f"{what}: {why} is not drafted yet (the program drafter takes seq-first, "
                              "one direction, with biases)")
    if mod.get("training") and a.get("dropout") and a.get("num_layers", 1) > 1:
        raise Unsupported(f"{what}: dropout between layers in training mode")
    args = m.get("args") or []
    ph = [n for n in nodes if n.get("op") == "placeholder"]
    if len(ph) != 1 or _refs(args) != [ph[0]["name"]] or m.get("kwargs"):
        raise Unsupported(f"{what}: an initial state or other arguments (the program drafter takes the "
                          "module applied to the reference's one input, zero initial state)")
    shape = ph[0]["meta"].get("shape") or []
    if len(shape) != 3 or ph[0]["meta"].get("dtype") != "float32":
        raise Unsupported(f"{what}: an input of shape {shape} (the program drafter takes a float32 (S, B, I) sequence)")
    # what each node is: the module's result, its parts
    val = {m["name"]: ("all",)}
    for n in nodes:
        if n is m or n.get("op") in ("placeholder", "output"):
            continue
        refs = _refs(n.get("args") or [])
        if n.get("target") == "operator.getitem" and refs and refs[0] in val:
            k = (n["args"][1] or {}).get("const")
            base = val[refs[0]]
            if base == ("all",) and k == 0:
                val[n["name"]] = ("seq",)
            elif base == ("all",) and k == 1:
                val[n["name"]] = ("state",) if mode == "LSTM" else ("h_n",)
            elif base == ("state",) and k in (0, 1):
                val[n["name"]] = ("h_n",) if k == 0 else ("c_n",)
            else:
                raise Unsupported(f"{_op_name(n)}{_where(n)}: an index {k} of the recurrent module's result")
            continue
        raise Unsupported(f"{_op_name(n)}{_where(n)} on the recurrent module's result (the program drafter "
                          "returns its output sequence, h_n and c_n as they are)")
    out = next(n for n in nodes if n.get("op") == "output")
    outs = []
    for r in _refs(out.get("args") or []):
        v = val.get(r)
        if v is None or v in (("all",), ("state",)):
            raise Unsupported(f"{what}: a returned value other than the output sequence, h_n or c_n")
        outs.append(v[0])
    if not outs:
        raise Unsupported(f"{what}: nothing returned")
    return ProgramDraft(_recurrent_text(mode, a, mod["target"] if "target" in mod else m["target"], outs, name),
                        "recurrent", name, [f"{mode} over the sequence: {len(outs)} output(s) {', '.join(outs)}"])


def _recurrent_text(mode, a, prefix, outs, name) -> str:
    g, layers = _RNN[mode], int(a.get("num_layers", 1))
    gh = f"{g} * H" if g > 1 else "H"
    params = ["x: GM[f32, (S, B, I)]"]
    for ll in range(layers):
        k = "I" if ll == 0 else "H"
        for w, shp in ((f"weight_ih_l{ll}", f"({gh}, {k})"), (f"weight_hh_l{ll}", f"({gh}, H)"),
                       (f"bias_ih_l{ll}", f"({gh},)"), (f"bias_hh_l{ll}", f"({gh},)")):
            params.append(f'{w}: Param[f32, {shp}, "{prefix}.{w}"]')
    decl = {"seq": "(S, B, H)", "h_n": "(L, B, H)", "c_n": "(L, B, H)"}
    for o in outs:
        params.append(f"{o}: Out[f32, {decl[o]}]".replace("(L,", f"({layers},"))
    params += [f"gx: Workspace[f32, (S, B, {g}, H)]", f"gh: Workspace[f32, (B, {g}, H)]"]
    for ll in range(layers):
        params.append(f"h{ll}: Workspace[f32, (2, B, H)]")
        if mode == "LSTM":
            params.append(f"c{ll}: Workspace[f32, (2, B, H)]")
        if ll < layers - 1 or "seq" not in outs:
            params.append(f"y{ll}: Workspace[f32, (S, B, H)]")
    body = []
    for ll in range(layers):
        src = "x.view(S * B, I)" if ll == 0 else f"y{ll - 1}.view(S * B, H)"
        ys = "seq" if ll == layers - 1 and "seq" in outs else f"y{ll}"
        bi, bh = f"bias_ih_l{ll}.view({g}, H)", f"bias_hh_l{ll}.view({g}, H)"
        body.append(f"matmul_bt({src}, weight_ih_l{ll}, gx.view(S * B, {gh}))      # layer {ll}: every step's "
                    "x_t @ W_ih^T")
        body.append("for s in range(S):")
        body.append(f"    matmul_bt(h{ll}[s % 2], weight_hh_l{ll}, gh.view(B, {gh}))")
        state = (f"c{ll}[s % 2], c{ll}[(s + 1) % 2], " if mode == "LSTM" else
                 f"h{ll}[s % 2], " if mode == "GRU" else "")
        body.append(f"    {mode.lower()}_cell(gx[s], gh, {bi}, {bh}, {state}h{ll}[(s + 1) % 2], {ys}[s])")
        if "h_n" in outs:
            body.append(f"copy_rows({ys}[S - 1], h_n[{ll}])")
        if "c_n" in outs:
            body.append(f"copy_rows(c{ll}[S % 2], c_n[{ll}])")
    doc = (f'"""nn.{ {"RNN_TANH": "RNN", "RNN_RELU": "RNN"}.get(mode, mode)} over the sequence ({layers} layer'
           f'{"s" if layers > 1 else ""}, zero initial state), drafted as a program of kernels: per layer one\n'
           "cube launch projects every step's input, then per time step a cube launch (h_{t-1} @ W_hh^T) and the\n"
           "vector cell; the state ping-pongs between the two halves of its Workspace (examples/arch).\n\"\"\"\n")
    text = doc + _MM + _cell(mode)
    if "h_n" in outs or "c_n" in outs:
        text += _COPY
    sig = ",\n    ".join(params)
    text += f"\n\n@program\ndef {name}(\n    {sig},\n):\n" + "\n".join("    " + b for b in body) + "\n"
    return text


# --------------------------------------------------------------------------------------------------- mlp

def _act_of(n: dict) -> str | None:
    if n.get("op") == "call_module":
        c = (n.get("module") or {}).get("class")
        if c == "GELU" and ((n["module"].get("attrs") or {}).get("approximate", "none") != "tanh"):
            return None
        return _ACT_MODULES.get(c)
    t = str(n.get("target", "")).rsplit(".", 1)[-1]
    if t == "gelu" and (n.get("kwargs") or {}).get("approximate", {}).get("const") != "tanh":
        return None
    return _ACT_FUNCS.get(t)


def _mlp(nodes, traced, name) -> ProgramDraft | None:
    ph = [n for n in nodes if n.get("op") == "placeholder"]
    if len(ph) != 1:
        return None
    x = ph[0]
    shape = x["meta"].get("shape") or []
    if len(shape) != 2 or x["meta"].get("dtype") != "float32":
        return None
    layers = []       # [target, has_bias, act | None]
    cur = x["name"]
    for n in nodes:
        if n.get("op") in ("placeholder", "output"):
            continue
        if _refs(n.get("args") or []) != [cur]:
            return None         # not a chain: the one-kernel drafter's (the mhc mappings, gemm epilogues)
        if n.get("op") == "call_module" and n["module"].get("class") == "Linear":
            layers.append([n["target"], "bias" in (n["module"].get("tensors") or []), None])
        elif n.get("op") == "call_module" and n["module"].get("class") == "Dropout" and not n["module"].get("training"):
            pass
        else:
            act = _act_of(n)
            if act is None or not layers or layers[-1][2] is not None:
                return None     # an op the program forms do not take: the one-kernel drafter refuses it by name
            layers[-1][2] = act
        cur = n["name"]
    out = next(n for n in nodes if n.get("op") == "output")
    if _refs(out.get("args") or []) != [cur] or not layers:
        return None
    params = traced.get("parameters") or {}
    dims = [shape[1]] + [params[f"{t}.weight"]["shape"][0] for t, _, _ in layers]
    dn = ["K"] + [f"N{i}" for i in range(1, len(layers))] + ["N"]
    ps = ["x: GM[f32, (M, K)]"]
    for i, (t, bias, _) in enumerate(layers):
        ps.append(f'w{i}: Param[f32, ({dn[i + 1]}, {dn[i]}), "{t}.weight"]')
        if bias:
            ps.append(f'b{i}: Param[f32, ({dn[i + 1]},), "{t}.bias"]')
    ps.append("y: Out[f32, (M, N)]")
    body, kernels = [], {}
    cur = "x"
    for i, (t, bias, act) in enumerate(layers):
        last = i == len(layers) - 1
        tgt = "y" if last else f"a{i}"
        if not last:
            ps.append(f"a{i}: Workspace[f32, (M, {dn[i + 1]})]")
        if bias or act:
            ps.append(f"z{i}: Workspace[f32, (M, {dn[i + 1]})]")
            body.append(f"matmul_bt({cur}, w{i}, z{i})          # cube: {t} (x @ W^T)")
            kname = f"bias_{act or 'add'}" if bias else f"apply_{act}"      # never a C function's name (tanh)
            kernels[kname] = (bias, act)
            body.append(f"{kname}(z{i}, {f'b{i}, ' if bias else ''}{tgt})")
        else:
            body.append(f"matmul_bt({cur}, w{i}, {tgt})          # cube: {t}")
        cur = tgt
    text = (f'"""{len(layers)} nn.Linear layers ({" -> ".join(str(d) for d in dims)}) as a program of kernels: per '
            "layer the product on the cube\ncores and its bias / activation on the vector cores (examples/arch/mlp).\n"
            '"""\n' + _MM)
    for kname, (bias, act) in kernels.items():
        text += _epilogue(kname, bias, act)
    sig = ",\n    ".join(ps)
    text += f"\n\n@program\ndef {name}(\n    {sig},\n):\n" + "\n".join("    " + b for b in body) + "\n"
    return ProgramDraft(text, "mlp", name, [f"{len(layers)} Linear layers: {' -> '.join(str(d) for d in dims)}"])


def _epilogue(kname: str, bias: bool, act: str | None) -> str:
    host = _ROWS_HOST.format(host=f"{kname}_tiling", arg="h", shape="(B, N)",
                             tile=f"ub_elems(f32, live={4 if act else 3})", last="N").replace("(B, H)", "(B, N)")
    bparam = "b: GM[f32, (N,)], " if bias else ""
    loads = ["hu = load(h[r, c])"] + (["bu = load(b[c])"] if bias else [])
    comp = ["xu = hu + bu" if bias else "xu = hu * 1.0", f"yu = {_ACTS[act]}" if act else "yu = xu"]
    if not act:
        comp = ["yu = hu + bu"]
    lines = ["    for r in core_rows(t.rows, B):", "        for c in tiles(N, t.tile):", "            with copyin:",
             *[" " * 16 + s for s in loads], "            with compute:", *[" " * 16 + s for s in comp],
             "            with copyout:", " " * 16 + "store(y[r, c], yu)"]
    return host + (f"\n\n@kernel\ndef {kname}(h: GM[f32, (B, N)], {bparam}y: Out[f32, (B, N)], t: Tiling):\n"
                   + "\n".join(lines) + "\n")
