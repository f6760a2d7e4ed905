"""The program drafter (drafter/programs.py): nn.LSTM / GRU / RNN over a sequence and Linear chains
drafted as programs of kernels. Fast: traced graphs written here (the child's JSON form), the draft
parsed back and verified by verify_multi; heavy: one suite reference drafted and run on the emulator."""
import pytest

from ascendcraft_lab.drafter.draft import DraftError, draft_from_trace
from ascendcraft_lab.dsl.ir import MultiProgram, TensorRole
from ascendcraft_lab.dsl.program import parse_any
from ascendcraft_lab.dsl.program_check import verify_multi

_T = {"kind": "tensor", "dtype": "float32"}


def _rnn_trace(cls="LSTM", mode="LSTM", layers=1, outs=("seq",), S=5, B=6, I=12, H=16, **attrs):
    g = {"LSTM": 4, "GRU": 3}.get(mode, 1)
    a = {"mode": mode, "input_size": I, "hidden_size": H, "num_layers": layers, "bias": True,
         "batch_first": False, "dropout": 0.0, "bidirectional": False, "proj_size": 0, **attrs}
    tensors = [f"{w}_l{k}" for k in range(layers) for w in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
    params = {}
    for k in range(layers):
        params[f"rnn.weight_ih_l{k}"] = {**_T, "shape": [g * H, I if k == 0 else H]}
        params[f"rnn.weight_hh_l{k}"] = {**_T, "shape": [g * H, H]}
        params[f"rnn.bias_ih_l{k}"] = {**_T, "shape": [g * H]}
        params[f"rnn.bias_hh_l{k}"] = {**_T, "shape": [g * H]}
    nodes = [{"name": "x", "op": "placeholder", "meta": {**_T, "shape": [S, B, I]}, "index": 0, "target": "x"},
             {"name": "rnn", "op": "call_module", "meta": {}, "line": 12, "target": "rnn",
              "module": {"class": cls, "attrs": a, "training": True, "tensors": tensors},
              "args": [{"node": "x"}], "kwargs": {}},
             {"name": "seq", "op": "call_function", "target": "operator.getitem", "line": 12,
              "args": [{"node": "rnn"}, {"const": 0}], "kwargs": {}},
             {"name": "st", "op": "call_function", "target": "operator.getitem", "line": 12,
              "args": [{"node": "rnn"}, {"const": 1}], "kwargs": {}}]
    if mode == "LSTM":
        nodes += [{"name": "h_n", "op": "call_function", "target": "operator.getitem", "line": 12,
                   "args": [{"node": "st"}, {"const": 0}], "kwargs": {}},
                  {"name": "c_n", "op": "call_function", "target": "operator.getitem", "line": 12,
                   "args": [{"node": "st"}, {"const": 1}], "kwargs": {}}]
    ref = {"seq": "seq", "h_n": "h_n" if mode == "LSTM" else "st", "c_n": "c_n"}
    out = [{"node": ref[o]} for o in outs]
    nodes.append({"name": "output", "op": "output", "meta": {}, "args": [out[0] if len(out) == 1 else {"tuple": out}]})
    return {"method": "fx", "nodes": nodes, "inputs": [{**_T, "shape": [S, B, I]}], "parameters": params}


def _mlp_trace(dims=(32, 64, 64, 8), acts=("relu", "gelu_tanh"), bias=(True, False, True)):
    nodes = [{"name": "x", "op": "placeholder", "meta": {**_T, "shape": [10, dims[0]]}, "index": 0, "target": "x"}]
    params, cur = {}, "x"
    for i in range(len(dims) - 1):
        params[f"fc{i}.weight"] = {**_T, "shape": [dims[i + 1], dims[i]]}
        tensors = ["weight"] + (["bias"] if bias[i] else [])
        nodes.append({"name": f"fc{i}", "op": "call_module", "meta": {}, "line": 20 + i, "target": f"fc{i}",
                      "module": {"class": "Linear", "attrs": {}, "training": True, "tensors": tensors},
                      "args": [{"node": cur}], "kwargs": {}})
        cur = f"fc{i}"
        if i < len(acts):
            act = acts[i]
            kw = {"approximate": {"const": "tanh"}} if act == "gelu_tanh" else {}
            nodes.append({"name": f"a{i}", "op": "call_function", "line": 30 + i,
                          "target": "torch._C._nn.gelu" if act.startswith("gelu") else f"torch.{act}",
                          "args": [{"node": cur}], "kwargs": kw})
            cur = f"a{i}"
    nodes.append({"name": "output", "op": "output", "meta": {}, "args": [{"node": cur}]})
    return {"method": "fx", "nodes": nodes, "inputs": [{**_T, "shape": [10, dims[0]]}], "parameters": params}


def _program(traced) -> MultiProgram:
    d = draft_from_trace(traced, name="model", source="model.py")
    mp = parse_any(d.text, "model.dsl.py")
    assert isinstance(mp, MultiProgram)
    verify_multi(mp)
    return d, mp


@pytest.mark.parametrize("cls,mode,layers,outs", [
    ("LSTM", "LSTM", 1, ("seq",)), ("LSTM", "LSTM", 3, ("seq", "h_n", "c_n")), ("LSTM", "LSTM", 2, ("h_n",)),
    ("GRU", "GRU", 1, ("seq",)), ("GRU", "GRU", 2, ("seq", "h_n")), ("RNN", "RNN_TANH", 1, ("seq", "h_n")),
    ("RNN", "RNN_RELU", 2, ("seq",)),
])
def test_recurrent_program_drafts_and_verifies(cls, mode, layers, outs):
    d, mp = _program(_rnn_trace(cls, mode, layers, outs))
    assert d.template == "recurrent"
    text = d.text
    for k in range(layers):        # every layer's weights bound by their state_dict names
        for w in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            assert f'"rnn.{w}_l{k}"' in text
    assert text.count("for s in range(S):") == layers
    assert f"def {mode.lower()}_cell(" in text
    assert ("copy_rows(" in text) == ("h_n" in outs or "c_n" in outs)
    # the Outs are the reference's outputs, in its order
    assert [p.name for p in mp.main.params if getattr(p, "role", None) == TensorRole.output] == list(outs)


def test_mlp_program_drafts_and_verifies():
    d, _ = _program(_mlp_trace())
    assert d.template == "mlp"
    assert d.text.count("matmul_bt(") == 1 + 3          # the kernel and three launches
    assert "def bias_relu(" in d.text and "def apply_gelu(" in d.text and '"fc1.weight"' in d.text
    assert '"fc1.bias"' not in d.text                      # fc1 has no bias: its activation alone


def test_deep_mlp_shares_its_kernels():
    dims = (16,) + (24,) * 7
    d, _ = _program(_mlp_trace(dims, acts=("relu",) * 6, bias=(True,) * 7))
    assert d.text.count("@kernel") == 3                   # matmul_bt, bias_relu, bias_add
    assert d.text.count("bias_relu(z") == 6


@pytest.mark.parametrize("attrs,word", [({"bidirectional": True}, "bidirectional"),
                                         ({"batch_first": True}, "batch_first"), ({"bias": False}, "bias=False")])
def test_recurrent_refusals_name_the_module_and_line(attrs, word):
    with pytest.raises(DraftError) as e:
        draft_from_trace(_rnn_trace(**attrs), name="model", source="model.py")
    msg = str(e.value)
    assert "\n" not in msg and "nn.LSTM" in msg and "reference line 12" in msg and word in msg


def test_an_op_after_the_recurrent_module_is_refused_with_its_line():
    t = _rnn_trace()
    t["nodes"].insert(-1, {"name": "r", "op": "call_function", "target": "torch.relu", "line": 14,
                           "args": [{"node": "seq"}], "kwargs": {}})
    t["nodes"][-1]["args"] = [{"node": "r"}]
    with pytest.raises(DraftError, match=r"torch.relu \(reference line 14\)"):
        draft_from_trace(t, name="model", source="model.py")


def test_linears_that_are_not_a_plain_chain_go_on_to_the_one_kernel_drafter():
    from ascendcraft_lab.drafter.programs import draft_program
    assert draft_program(_mlp_trace(acts=("softplus",))) is None          # an op the program forms do not take
    t = _mlp_trace()
    t["nodes"][2]["args"] = [{"node": "x"}, {"node": "fc0"}]             # an op of two tensors (a residual)
    assert draft_program(t) is None
    assert draft_program(_mlp_trace()) is not None


@pytest.mark.heavy
def test_suite_lstm_hn_cn_drafts_and_runs_on_the_emulator(tmp_path):
    from pathlib import Path

    from ascendcraft_lab.drafter.draft import draft_reference
    from ascendcraft_lab.session.program import check_program
    ref = Path(__file__).resolve().parents[2] / "ascendcraft_lab" / "suite" / "arch" / "lstm_hn_cn.py"
    d = draft_reference(ref)
    assert d.template == "recurrent"
    f = tmp_path / "lstm_hn_cn.dsl.py"
    f.write_text(d.text)
    verdict, _ = check_program(f, str(ref), backend="emulator", overrides={"seq_len": 3, "batch_size": 5,
                                                                           "input_size": 19, "hidden_size": 21})
    assert verdict.correct, verdict.message
