"""The long tail of real references (issue 33): how modules hold tensors, in-place forms, predicates
as outputs, splits consumed by computation, unused inputs and scalars, dtypes the NPU lacks, and
C++ names whatever the sizes. Each class is a general rule, checked here on several spellings."""
from __future__ import annotations

import re

import pytest

from ascendcraft_lab.drafter import DraftError, draft_from_trace
from ascendcraft_lab.drafter.trace import run_jobs
from ascendcraft_lab.reference.bind import check_interpreter

from drafter_helpers import check_draft_on_emulator, write_ref

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

X = "[torch.randn(6, 40)]"
XY = "[torch.randn(6, 40), torch.randn(6, 40)]"
CASES = {  # name -> (forward, get_inputs, __init__ "PARAMS|BODY")
    # 1. tensors a module holds: plain attributes (top level and in a submodule), constants made in forward
    "attr_plain": ("def forward(self, x):\n    return x * self.gamma + self.beta", X,
                   "|self.gamma = torch.rand(40) + 0.5\nself.beta = torch.randn(40)"),
    "attr_sub": ("def forward(self, x):\n    return self.inner.scale * torch.tanh(x)", X,
                 "|self.inner = nn.Module()\nself.inner.scale = torch.randn(6, 40)"),
    "const_scalar": ("def forward(self, x):\n    return x * torch.tensor(2.5) - torch.tensor([0.5])", X, ""),
    "const_fill": ("def forward(self, x):\n    return x + torch.ones(40) * 3.0", X, ""),
    "const_varied": ("def forward(self, x):\n    return x * torch.arange(40.0)", X, ""),
    # torch.export's trace (range() of a shape fails the symbolic one): lifted_tensor_0 and a plain attribute
    "const_export": ("def forward(self, x):\n    for i in range(x.shape[0] // x.shape[0]):\n"
                     "        x = x * torch.tensor(2.0) + self.g\n    return x", X, "|self.g = torch.rand(40)"),
    # 2. in-place forms: on an input, on a value forward made, through aliases; then a norm
    "ip_method": ("def forward(self, x, y):\n    x.add_(y)\n    x.mul_(0.5)\n    return torch.relu_(x)", XY, ""),
    "ip_alias": ("def forward(self, x, y):\n    z = F.relu(x * y, inplace=True)\n    w = z.clamp_(max=0.7)\n"
                 "    z.sub_(0.25)\n    return self.act(w) + z", XY, "|self.act = nn.ReLU(inplace=True)"),
    "ip_masked": ("def forward(self, x):\n    h = x.clone()\n    h.masked_fill_(x < 0, 0.1)\n"
                  "    return h.sigmoid_()", X, ""),
    "ip_norm": ("def forward(self, x, r):\n    x.add_(r)\n    return F.layer_norm(x, (40,))", XY, ""),
    "ip_out_of_place": ("def forward(self, x, r):\n    return F.layer_norm(x + r, (40,))", XY, ""),
    "ip_view": ("def forward(self, x):\n    v = x.view(-1, 20)\n    x.mul_(2.0)\n    return v + 1.0", X, ""),
    # 3. comparisons and predicates as outputs: bool tensors, one byte per element
    "cmp_op": ("def forward(self, a, b):\n    return a <= b", XY, ""),
    "cmp_method": ("def forward(self, a, b):\n    return a.lt(b)", XY, ""),
    "cmp_function": ("def forward(self, a, b):\n    return torch.less(a, b)", XY, ""),
    "pred_special": ("def forward(self, x):\n    y = torch.log(x) * 0.5\n    return torch.isinf(y), y.isfinite(), "
                     "torch.isnan(y), torch.nan_to_num(y), torch.nan_to_num(y, nan=2.0, posinf=1.0, neginf=-3.0)",
                     "[torch.cat([torch.randn(4, 37), torch.zeros(2, 37)])]", ""),
    "logic_ops": ("def forward(self, m, x):\n    return (m & (x > 0)) | ~m ^ (x < -1), torch.logical_not(x > 0.5)",
                  "[torch.rand(5, 33) > 0.5, torch.randn(5, 33)]", ""),
    "cmp_f16": ("def forward(self, a, b):\n    return a > b", "[torch.randn(7, 45).half(), torch.randn(7, 45).half()]",
                ""),
    "cmp_row_mean": ("def forward(self, x):\n    return x > x.mean(-1, keepdim=True)", "[torch.randn(5, 301)]", ""),
    "cmp_bcast": ("def forward(self, x, t):\n    return x > t", "[torch.randn(6, 40), torch.randn(40)]", ""),
    # 5. inputs forward does not read, .item(), dtypes the NPU lacks
    "unused": ("def forward(self, x, step, flags):\n    return torch.sigmoid(x) * 2.0",
               "[torch.randn(6, 40), torch.tensor(3), torch.rand(5) > 0.5]", ""),
    "item_0d": ("def forward(self, x, s):\n    return x * s.item()", "[torch.randn(6, 40), torch.tensor(3.0)]", ""),
    "item_1": ("def forward(self, x, s):\n    return torch.clamp(x, max=s.item()) + s.item()",
               "[torch.randn(6, 40), torch.tensor([0.25])]", ""),
    "item_nan": ("def forward(self, x, s):\n    return torch.nan_to_num(torch.log(x), nan=s.item())",
                 "[torch.randn(6, 40), torch.tensor(7.0)]", ""),
    "f64": ("def forward(self, x):\n    return x.exp()", "[torch.randn(6, 40, dtype=torch.float64)]", ""),
    "c64": ("def forward(self, x):\n    return x * 2", "[torch.randn(6, 40, dtype=torch.complex64)]", ""),
    "f64_param": ("def forward(self, x):\n    return x * self.w", X, "|self.w = nn.Parameter(torch.ones(40).double())"),
    # 4. parts of a split consumed by computation: views, each the input loaded at its own offset
    "glu_chunk": ("def forward(self, x):\n    a, b = x.chunk(2, dim=-1)\n    return F.silu(a) * b", X, ""),
    "glu_chunk_other": ("def forward(self, x):\n    a, b = x.chunk(2, dim=-1)\n    return F.silu(a) * b",
                        "[torch.randn(5, 3, 66)]", ""),
    "glu_torch_chunk": ("def forward(self, x):\n    a, b = torch.chunk(x, 2, -1)\n    return F.silu(a) * b",
                        X, ""),
    "glu_sizes": ("def forward(self, x):\n    a, b = torch.split(x, [20, 20], dim=-1)\n    return F.silu(a) * b",
                  X, ""),
    "glu_slices": ("def forward(self, x):\n    return F.silu(x[..., :20]) * x[..., 20:]", X, ""),
    "glu_half": ("def forward(self, x):\n    d = x.shape[-1] // 2\n    return F.silu(x[..., :d]) * x[..., d:]", X, ""),
    "glu_functional": ("def forward(self, x):\n    return F.glu(x)", "[torch.randn(3, 7, 26)]", ""),
    "glu_module": ("def forward(self, x):\n    return self.glu(x)", "[torch.randn(3, 7, 26)]", "|self.glu = nn.GLU()"),
    "glu_formula": ("def forward(self, x):\n    a, b = x.chunk(2, -1)\n    return a * torch.sigmoid(b)",
                    "[torch.randn(3, 7, 26)]", ""),
    "glu_three": ("def forward(self, x):\n    a, b, c = x.chunk(3, dim=-1)\n    return a * b - c",
                  "[torch.randn(6, 39)]", ""),
    # 7. a tensor made empty (or zeros of a size) and written: whole, by slices along one axis, by copy_ / fill_
    "empty_whole": ("def forward(self, x):\n    out = torch.empty_like(x)\n    out[...] = torch.relu(x)\n"
                    "    return out", X, ""),
    "empty_cols": ("def forward(self, a, c):\n    out = torch.empty(a.shape[0], 80)\n"
                   "    out[:, :40] = torch.sigmoid(a)\n    out[:, 40:] = c * 2.0\n    return out", XY, ""),
    "empty_rows": ("def forward(self, a, c):\n    out = a.new_empty((12, 40))\n    out[:6].copy_(a)\n"
                   "    out[6:] = torch.tanh(c)\n    return out", XY, ""),
    "empty_fill": ("def forward(self, x):\n    out = torch.empty(x.shape).fill_(1.5)\n    return out + x", X, ""),
    "empty_unwritten": ("def forward(self, x):\n    out = torch.empty_like(x)\n    out[:, :20] = x[:, :20]\n"
                        "    return out", X, ""),
    "zeros_sized": ("def forward(self, x):\n    acc = torch.zeros(x.shape[0], x.shape[1], device=x.device)\n"
                    "    acc += x\n    acc.mul_(0.5)\n    return acc", X, ""),
    "device_noops": ("def forward(self, x):\n    return torch.relu(x.cpu().contiguous()).to(x.device)", X, ""),
    # 8. expand to a new leading axis: the axis kept when another input has it, refused when none does
    "expand_beside": ("def forward(self, x, y):\n    return x.unsqueeze(0).expand(6, 40) * y",
                      "[torch.randn(40), torch.randn(6, 40)]", ""),
    "expand_alone": ("def forward(self, x):\n    return x.expand(4, 40) * 2.0", "[torch.randn(40)]", ""),
    # 9. normalizations without affine parameters, and torch.export's aten spellings of them
    "gn_plain": ("def forward(self, x):\n    return F.group_norm(x, 2)", "[torch.randn(3, 8, 5, 6)]", ""),
    "gn_module_plain": ("def forward(self, x):\n    return self.gn(x)", "[torch.randn(3, 8, 30)]",
                        "|self.gn = nn.GroupNorm(4, 8, affine=False)"),
    "gn_then_gelu": ("def forward(self, x):\n    return F.gelu(F.group_norm(x, self.g)) * 0.5",
                     "[torch.randn(3, 8, 30)]", ", g|self.g = g", "[4]"),
    "gn_native": ("def forward(self, x):\n    out, mean, rstd = torch.ops.aten.native_group_norm(x, self.w, None, "
                  "3, 8, 30, 4, 1e-5)\n    return out", "[torch.randn(3, 8, 30)]", "|self.w = torch.rand(8) + 0.5"),
    "ln_native": ("def forward(self, x):\n    return torch.ops.aten.native_layer_norm(x, [40], None, None, 1e-5)[0]",
                  X, ""),
    "ln_native_stats": ("def forward(self, x):\n    return torch.ops.aten.native_layer_norm(x, [40], None, None, "
                        "1e-5)[2]", X, ""),
    # 10. conversion to integers of a float result at an output (truncating toward zero, as torch converts)
    "to_long": ("def forward(self, x):\n    return (x * 10.0).long()", X, ""),
    "to_int64": ("def forward(self, x):\n    return torch.floor(x * 4.0).to(torch.int64)", X, ""),
    "to_int32_kw": ("def forward(self, x):\n    return torch.round(x * 3.0).to(dtype=torch.int32)", X, ""),
    "int_inside": ("def forward(self, x):\n    return x.long() * 2", X, ""),
    # 11. lists of tensors: forward taking or returning a list, the torch._foreach_* family, in place too
    "fe_sigmoid": ("def forward(self, xs):\n    return torch._foreach_sigmoid(xs)", "[[torch.randn(6, 40)] * 2]", ""),
    "fe_comprehension": ("def forward(self, xs):\n    return [torch.sigmoid(x) for x in xs]",
                         "[[torch.randn(6, 40), torch.randn(6, 40)]]", ""),
    "fe_tensors": ("def forward(self, a, b, c, d):\n    return torch._foreach_add([a, b], [c, d], alpha=2.0)",
                   "[torch.randn(6, 40) for _ in range(4)]", ""),
    "fe_in_place": ("def forward(self, ps, gs):\n    torch._foreach_mul_(ps, 0.5)\n    torch._foreach_add_(ps, gs)\n"
                    "    return ps", "[[torch.randn(6, 40)] * 2, [torch.randn(6, 40)] * 2]", ""),
    "fe_scalar_list": ("def forward(self, xs):\n    return torch._foreach_mul(xs, [2.0, -1.0])",
                       "[[torch.randn(6, 40)] * 2]", ""),
    "fe_norm": ("def forward(self, xs):\n    return torch._foreach_norm(xs)", "[[torch.randn(6, 40)] * 2]", ""),
    "fe_lerp_list_and_tensor": ("def forward(self, xs, ys, s):\n    return torch._foreach_lerp(xs, ys, 0.3), s * 2.0",
                                "[[torch.randn(6, 40)] * 2, [torch.randn(6, 40)] * 2, torch.randn(6, 40)]", ""),
    "fe_shapes": ("def forward(self, xs):\n    return torch._foreach_sigmoid(xs)",
                  "[[torch.randn(6, 40), torch.randn(8, 30)]]", ""),
    "fe_results_written": ("def forward(self, v):\n    d = torch._foreach_sqrt(v)\n    torch._foreach_add_(d, 1e-3)\n"
                           "    return d", "[[torch.rand(6, 40), torch.rand(6, 40)]]", ""),
    # 12. a region under torch.no_grad() that torch.export wraps in a submodule (submod_1): its nodes inlined
    "no_grad_list": ("def forward(self, ps, gs):\n    with torch.no_grad():\n        torch._foreach_add_(ps, gs, "
                     "alpha=-0.1)\n    return ps", "[[torch.randn(6, 40), torch.randn(6, 40)], "
                     "[torch.randn(6, 40), torch.randn(6, 40)]]", ""),
    "no_grad_export": ("def forward(self, x):\n    for i in range(x.shape[0] // x.shape[0]):\n        with "
                       "torch.no_grad():\n            y = torch.relu(x) * 2.0\n    return y + 1.0", X, ""),
    # 13. reductions over axes that are not one run: one value per group of the planes template
    "sum_0_2": ("def forward(self, x):\n    return x.sum(dim=(0, 2))", "[torch.randn(4, 8, 40)]", ""),
    "mean_0_2_3": ("def forward(self, x):\n    return x.mean(dim=(0, 2, 3), keepdim=True)",
                   "[torch.randn(3, 8, 5, 8)]", ""),
    "amax_1_3": ("def forward(self, x):\n    return x.amax(dim=(1, 3))", "[torch.randn(3, 4, 5, 16)]", ""),
    "two_sums": ("def forward(self, g, x):\n    return (g * x).sum(dim=(0, 2)), g.sum(dim=(0, 2))",
                 "[torch.randn(4, 8, 40), torch.randn(4, 8, 40)]", ""),
    "centered": ("def forward(self, x):\n    m = x.mean(dim=(0, 2), keepdim=True)\n    return x - m, m",
                 "[torch.randn(4, 8, 40)]", ""),
}


@pytest.fixture(scope="module")
def traced(ref_dir):
    """Every case traced and run in one reference child (one torch start-up for the module)."""
    paths = {name: write_ref(ref_dir, f"lt_{name}", case[0], case[1], case[2], *case[3:])
             for name, case in CASES.items()}
    jobs = []
    for path in paths.values():
        jobs += [{"mode": "trace", "path": str(path)}, {"mode": "run", "path": str(path), "seed": 0}]
    answers = run_jobs(jobs)
    return {name: (paths[name], answers[2 * i], answers[2 * i + 1]) for i, name in enumerate(paths)}


def draft(traced, name):
    path, trace, _ = traced[name]
    assert isinstance(trace, dict), trace
    return draft_from_trace(trace["graph"], name="k", source=path.name)


def interpreted(traced, name):
    d = draft(traced, name)
    path, _, run = traced[name]
    assert isinstance(run, dict), run
    verdict = check_interpreter(d.text, path, reference=run["run"])
    assert verdict.correct, f"{name}: {verdict.summary()}\n{d.text}"
    return d


@pytest.mark.parametrize("name", ["attr_plain", "attr_sub"])
def test_a_plain_tensor_attribute_is_bound_by_name_like_a_buffer(traced, name):
    d = interpreted(traced, name)
    assert "Param[" in d.text
    assert '"inner.scale"' in d.text if name == "attr_sub" else '"gamma"' in d.text


@pytest.mark.parametrize("name", ["const_scalar", "const_fill", "const_export"])
def test_a_constant_made_in_forward_that_holds_one_value_is_that_value(traced, name):
    d = interpreted(traced, name)
    assert "_tensor_constant" not in d.text and "lifted_tensor" not in d.text
    assert ('Param[f32, (N,), "g"]' in d.text) if name == "const_export" else "Param[" not in d.text


def test_a_constant_made_in_forward_with_differing_values_is_refused_saying_what_to_do(traced):
    with pytest.raises(DraftError) as exc:
        draft(traced, "const_varied")
    msg = str(exc.value)
    assert "\n" not in msg and "created in forward" in msg and "register_buffer" in msg, msg


def test_a_plain_attribute_runs_on_the_emulator(traced):
    d = draft(traced, "attr_plain")
    path, _, run = traced["attr_plain"]
    verdict, _, _ = check_draft_on_emulator(d.text, run["run"])
    assert verdict.correct, verdict.summary()


@pytest.mark.parametrize("name", ["ip_method", "ip_alias", "ip_masked", "ip_norm"])
def test_an_in_place_form_is_its_out_of_place_op_and_every_alias_reads_the_new_value(traced, name):
    interpreted(traced, name)


def test_an_in_place_add_then_a_norm_drafts_as_the_add_written_out_of_place(traced):
    def body(d):
        return d.text.split('"""', 2)[2]
    assert body(draft(traced, "ip_norm")) == body(draft(traced, "ip_out_of_place"))


def test_an_in_place_write_that_a_live_view_shares_is_refused_in_one_line(traced):
    with pytest.raises(DraftError) as exc:
        draft(traced, "ip_view")
    msg = str(exc.value)
    assert "\n" not in msg and "in-place `mul_`" in msg and "view" in msg and "reference line" in msg, msg


@pytest.mark.parametrize("name", ["cmp_op", "cmp_method", "cmp_function"])
def test_a_comparison_as_the_output_is_a_bool_tensor_stored_as_bytes(traced, name):
    d = interpreted(traced, name)
    assert "Out[bool," in d.text and "cast(where(" in d.text and ", bool)" in d.text


def test_every_spelling_of_one_comparison_gives_the_same_kernel(traced):
    def body(d):
        return d.text[d.text.index("@kernel"):]
    assert body(draft(traced, "cmp_method")) == body(draft(traced, "cmp_function"))


@pytest.mark.parametrize("name", ["pred_special", "logic_ops", "cmp_f16"])
def test_predicates_and_logic_on_bool_tensors_match_pytorch(traced, name):
    interpreted(traced, name)


@pytest.mark.parametrize("name", ["pred_special", "logic_ops", "cmp_f16"])
def test_bool_outputs_match_pytorch_on_the_emulator(traced, name):
    d = draft(traced, name)
    _, _, run = traced[name]
    verdict, _, _ = check_draft_on_emulator(d.text, run["run"])
    assert verdict.correct, verdict.summary()


def test_a_bool_output_of_the_bcast_template_is_refused_in_one_line_saying_why(traced):
    with pytest.raises(DraftError) as exc:
        draft(traced, "cmp_bcast")
    msg = str(exc.value)
    assert "\n" not in msg and "bool output of the bcast template" in msg, msg


def test_a_bool_output_over_short_rows_is_drafted_one_row_at_a_time(traced):
    # row_blocks would cast a tile of rows to bytes (not lowered): the rows template's tiles are 1-D
    d = interpreted(traced, "cmp_row_mean")
    assert d.template == "rows"
    _, _, run = traced["cmp_row_mean"]
    verdict, _, _ = check_draft_on_emulator(d.text, run["run"])
    assert verdict.correct, verdict.summary()


@pytest.mark.parametrize("name", ["unused", "item_0d", "item_1", "item_nan"])
def test_unused_inputs_and_item_of_one_element_tensors_draft(traced, name):
    d = interpreted(traced, name)
    if name == "unused":
        assert "step: GM[i64, ()]" in d.text and "flags: GM[bool, (FLAGS0,)]" in d.text, d.text


def test_an_unused_input_is_bound_but_never_read_on_the_emulator(traced):
    d = draft(traced, "unused")
    _, _, run = traced["unused"]
    verdict, _, _ = check_draft_on_emulator(d.text, run["run"])
    assert verdict.correct, verdict.summary()


@pytest.mark.parametrize("name,dtype,hint", [("f64", "float64", "float32"), ("c64", "complex64", "view_as_real"),
                                             ("f64_param", "float64", "float32")])
def test_dtypes_the_npu_lacks_are_refused_in_one_line_saying_why_and_what_to_do(traced, name, dtype, hint):
    with pytest.raises(DraftError) as exc:
        draft(traced, name)
    msg = str(exc.value)
    assert "\n" not in msg and f"is {dtype}" in msg and "no " in msg and hint in msg, msg


@pytest.mark.parametrize("name", ["glu_chunk", "glu_torch_chunk", "glu_sizes", "glu_slices", "glu_half",
                                  "glu_functional", "glu_module", "glu_three"])
def test_parts_of_a_split_consumed_by_computation_are_views_of_one_input(traced, name):
    d = interpreted(traced, name)
    assert d.text.count(": GM[") == 1, d.text          # one input, read at two (three) offsets


def test_glu_spellings_give_the_same_kernel(traced):
    def body(d):
        return d.text[d.text.index("@kernel"):]
    functional, module = body(draft(traced, "glu_functional")), body(draft(traced, "glu_module"))
    assert functional == module == body(draft(traced, "glu_formula"))
    assert body(draft(traced, "glu_chunk")) == body(draft(traced, "glu_torch_chunk")) == body(draft(traced, "glu_half"))


def test_a_chunked_draft_writes_its_parts_as_dim_expressions_and_holds_on_another_shape(traced):
    d = draft(traced, "glu_chunk")              # drafted on (6, 40), run on (5, 3, 66)'s rows of 66
    assert "// 2)" in d.text, d.text
    path, _, run = traced["glu_chunk_other"]
    other = run["run"]
    other.inputs = [other.inputs[0].reshape(15, 66)]
    other.outputs = [other.outputs[0].reshape(15, 33)]
    verdict = check_interpreter(d.text, path, reference=other)
    assert verdict.correct, verdict.summary()


def test_swiglu_runs_on_the_emulator(traced):
    d = draft(traced, "glu_chunk")
    _, _, run = traced["glu_chunk"]
    verdict, _, _ = check_draft_on_emulator(d.text, run["run"])
    assert verdict.correct, verdict.summary()


@pytest.mark.parametrize("name", ["empty_whole", "empty_cols", "empty_rows", "empty_fill", "zeros_sized"])
def test_a_tensor_made_empty_then_written_is_the_values_written(traced, name):
    d = interpreted(traced, name)
    assert "empty" not in d.text.split('"""', 2)[2]


def test_writes_into_slices_of_an_empty_tensor_are_stores_at_offsets(traced):
    assert draft(traced, "empty_cols").template == "bcast_fold"
    d = draft(traced, "empty_rows")
    _, _, run = traced["empty_rows"]
    verdict, _, _ = check_draft_on_emulator(d.text, run["run"])
    assert verdict.correct, verdict.summary()


def test_reading_values_of_an_empty_tensor_never_written_is_refused_in_one_line(traced):
    with pytest.raises(DraftError) as exc:
        draft(traced, "empty_unwritten")
    msg = str(exc.value)
    assert "\n" not in msg and "torch.empty" in msg and "undefined" in msg, msg


def test_device_and_layout_calls_are_no_ops(traced):
    def body(name):
        return interpreted(traced, name).text.split('"""', 2)[2]
    assert "relu(" in body("device_noops")


def test_an_expand_to_a_new_leading_axis_keeps_the_axis(traced):
    d = interpreted(traced, "expand_beside")
    assert d.template.startswith("bcast")
    with pytest.raises(DraftError) as exc:
        draft(traced, "expand_alone")
    msg = str(exc.value)
    assert "\n" not in msg and "only an expand makes" in msg, msg


@pytest.mark.parametrize("name", ["gn_plain", "gn_module_plain", "gn_then_gelu", "gn_native", "ln_native"])
def test_a_normalization_without_affine_parameters_or_in_its_aten_spelling_drafts(traced, name):
    d = interpreted(traced, name)
    assert d.template in ("planes", "rows", "row_blocks"), d.template


def test_the_number_of_groups_from_get_init_inputs_is_a_kernel_scalar(traced):
    text = draft(traced, "gn_then_gelu").text
    assert re.search(r"\bg\d*: i32", text) and "B * 4" not in text, text


def test_the_saved_statistics_of_an_aten_norm_are_refused_in_one_line(traced):
    with pytest.raises(DraftError) as exc:
        draft(traced, "ln_native_stats")
    msg = str(exc.value)
    assert "\n" not in msg and "native_layer_norm" in msg and "mean / rstd" in msg, msg


@pytest.mark.parametrize("name,dtype", [("to_long", "i64"), ("to_int64", "i64"), ("to_int32_kw", "i32")])
def test_a_float_result_converted_to_an_integer_type_is_stored_truncated(traced, name, dtype):
    d = interpreted(traced, name)
    assert f"Out[{dtype}," in d.text and "round='trunc'" in d.text


def test_an_integer_conversion_computed_with_afterwards_is_refused_in_one_line(traced):
    with pytest.raises(DraftError) as exc:
        draft(traced, "int_inside")
    assert "int64 tensors" in str(exc.value)


def test_an_int64_conversion_runs_on_the_emulator(traced):
    d = draft(traced, "to_int64")
    _, _, run = traced["to_int64"]
    verdict, _, _ = check_draft_on_emulator(d.text, run["run"])
    assert verdict.correct, verdict.summary()


@pytest.mark.parametrize("name,outputs", [("fe_sigmoid", 2), ("fe_comprehension", 2), ("fe_tensors", 2),
                                          ("fe_in_place", 2), ("fe_scalar_list", 2), ("fe_norm", 2),
                                          ("fe_lerp_list_and_tensor", 3)])
def test_a_list_of_tensors_is_one_gm_tensor_per_item_and_a_foreach_op_its_op_per_item(traced, name, outputs):
    d = interpreted(traced, name)
    assert d.text.count(": Out[") == outputs, d.text


def test_a_foreach_draft_runs_on_the_emulator(traced):
    d = draft(traced, "fe_in_place")
    _, _, run = traced["fe_in_place"]
    assert len(run["run"].inputs) == 4          # two lists of two tensors, one input per tensor
    verdict, _, _ = check_draft_on_emulator(d.text, run["run"])
    assert verdict.correct, verdict.summary()


def test_items_of_a_foreach_result_written_in_place_are_tensors_of_their_own(traced):
    interpreted(traced, "fe_results_written")


@pytest.mark.parametrize("name", ["no_grad_list", "no_grad_export"])
def test_a_no_grad_region_torch_export_wraps_in_a_submodule_is_inlined(traced, name):
    path, trace, _ = traced[name]
    assert trace["graph"]["method"] == "export"
    assert not any("submod" in str(nd.get("target")) for nd in trace["graph"]["nodes"])
    interpreted(traced, name)


def test_a_draft_fits_ub_on_a_shape_whose_rows_round_up_by_most_of_a_block():
    # two halves of a torch.empty buffer: at (16, 2048) a tile count fitted UB by rounding that (13, 1003)
    # overflows; the sizes are also checked with every dim halved plus one
    from ascendcraft_lab.dsl.parser import parse
    from ascendcraft_lab.dsl.verifier import verify
    from ascendcraft_lab.soc import get_soc
    from ascendcraft_lab.suite import ROOT
    path = ROOT / "filled" / "empty_two_halves.py"
    trace = run_jobs([{"mode": "trace", "path": str(path)}])[0]
    d = draft_from_trace(trace["graph"], name="k", source=path.name)
    verify(parse(d.text, "k.dsl.py"), get_soc(None), shapes={"a": (13, 1003), "b": (13, 1003)}, scalars={})


@pytest.mark.parametrize("name", ["sum_0_2", "mean_0_2_3", "amax_1_3", "two_sums", "centered"])
def test_a_reduction_over_axes_that_are_not_one_run_stores_one_value_per_group(traced, name):
    d = interpreted(traced, name)
    assert d.template == "planes"


def test_reduced_outputs_of_the_planes_template_run_on_the_emulator(traced):
    d = draft(traced, "centered")
    _, _, run = traced["centered"]
    verdict, _, _ = check_draft_on_emulator(d.text, run["run"])
    assert verdict.correct, verdict.summary()


def test_a_foreach_over_tensors_of_different_shapes_is_refused_in_one_line(traced):
    with pytest.raises(DraftError) as exc:
        draft(traced, "fe_shapes")
    msg = str(exc.value)
    assert "\n" not in msg and "different shapes" in msg and "(6, 40)" in msg and "(8, 30)" in msg, msg
