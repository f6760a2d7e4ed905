"""The prompts of the LLM engine, built from the project's tables, never written twice.

Every section comes from the source of truth it describes, so a new DSL operation, a renamed
queue or a stricter checker reaches the model without anyone editing a prompt:

| section                     | generated from                                                        |
|-----------------------------|-----------------------------------------------------------------------|
| DSL specification           | `dsl.docs.render_reference()` (grammar, ops table, SoC table, stages)  |
| expert examples             | `examples.EXAMPLES`: same category, closest input shapes               |
| reference and its shapes    | the reference file and a run of it (`reference.load_reference`)        |
| pass rules                  | `passes.pipeline.PIPELINE`: each pass's reason and `rules`             |
| names the checker holds     | `passes.plan.plan_for` (files, tiling struct, queues, TBufs, entry)    |
| API notes                   | the `ascendc` fields of `dsl.ops.OPS` for the operations the kernel uses |
| worked example              | the rule engine's diff for the same pass (category example or this kernel) |
| project so far              | the previous `Bundle`, in the reply format of `files.py`               |

Prompts hold no timestamps and no absolute paths, so the same request hashes the same on
every machine and the reply cache serves it.
"""
from __future__ import annotations

import functools
import re
from pathlib import PurePath
from typing import Iterable, Sequence

from ...dsl import ir
from ...dsl.docs import render_reference
from ...dsl.parser import parse
from ...dsl.verifier import verify
from ...dsl.ops import OPS
from ...examples import CATEGORIES, EXAMPLES, Example
from ...passes.bundle import Bundle, diff
from ...passes.host import tiling_signature
from ...passes.manager import LowerOptions
from ...passes.pipeline import PIPELINE, PassSpec
from ..rule import render
from .files import REPLY_FORMAT as FILES_REPLY_FORMAT
from .files import format_files

DRAFT_NAME = "kernel.dsl.py"  # the name drafts are parsed under (stable: it appears in diagnostics)

# Words that point a reference at a category (matched against its words; >= 4 letters also
# inside longer words, so `layer_norm` counts for `norm`). The examples' own op names count too.
CATEGORY_WORDS: dict[str, tuple[str, ...]] = {
    "activation": ("gelu", "relu", "sigmoid", "tanh", "softmax", "silu", "swish", "elu", "selu", "softplus",
                   "softsign", "hardtanh", "hardsigmoid", "hardswish", "mish", "leaky_relu", "activation"),
    "normalization": ("norm", "normalize", "normalization"),
    "pooling": ("pool", "pooling"),
    "loss": ("loss", "mse", "hinge", "cross_entropy", "kl_div", "triplet", "huber", "smooth_l1"),
    "optimizer": ("sgd", "adam", "adamw", "momentum", "optimizer", "rmsprop", "adagrad"),
    "reduce": ("sum", "mean", "amax", "amin", "prod", "reduce"),
    "index": ("gather", "index_select", "embedding", "take_along_dim", "argmax", "argmin", "indices", "index"),
    "math": ("cumsum", "cumprod", "clamp", "where", "abs", "exp", "log", "sqrt", "pow"),
    "broadcast": ("bias", "broadcast", "expand", "scale", "shift"),
    "layout": ("slice", "narrow", "cat", "concat", "concatenate", "crop", "chunk", "split", "stack", "crelu"),
    "matmul": ("matmul", "mm", "bmm", "addmm", "einsum", "linear", "gemm", "gemv", "matrix", "matrices", "transpose",
               "triu", "tril", "diag"),
    "sort": ("sort", "argsort", "msort", "topk", "top_k", "kthvalue"),
    "convolution": ("conv1d", "conv2d", "conv3d", "convolution", "conv_transpose", "convtranspose2d",
                    "depthwise", "im2col", "out_channels"),
}


# --------------------------------------------------------------------------------------------
# shared sections
# --------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=1)
def dsl_specification() -> str:
    """The DSL reference generated from the grammar, the ops table and the SoC table."""
    return render_reference().rstrip("\n")


def numbered(source: str) -> str:
    """Source with right-aligned line numbers, as the diagnostics quote it."""
    lines = source.rstrip("\n").splitlines()
    width = len(str(len(lines)))
    return "\n".join(f"{i:>{width}} | {line}" for i, line in enumerate(lines, 1))


def fenced(text: str, lang: str = "") -> str:
    runs = [len(m) for m in re.findall(r"`{3,}", text)]
    fence = "`" * max(3, max(runs, default=0) + 1)
    return f"{fence}{lang}\n{text.rstrip()}\n{fence}"


def guess_category(text: str, name: str = "") -> str:
    """The example category a reference or kernel most likely belongs to (by its words)."""
    words = re.findall(r"[a-z][a-z0-9_]*", text.lower())
    named = re.findall(r"[a-z][a-z0-9_]*", name.lower())
    table = {c: set(CATEGORY_WORDS.get(c, ())) | {e.op for e in EXAMPLES if e.category == c} for c in CATEGORIES}

    def hits(word: str, vocab: set[str]) -> bool:
        return word in vocab or any(len(v) >= 4 and v in word for v in vocab)

    scores = {c: sum(hits(w, vocab) for w in words) + 5 * sum(hits(w, vocab) for w in named)
              for c, vocab in table.items()}
    best = max(CATEGORIES, key=lambda c: scores[c])  # ties: catalog order (max keeps the first)
    return best if scores[best] > 0 else CATEGORIES[0]


@functools.lru_cache(maxsize=64)
def _example_program(ex: Example):
    return parse(ex.dsl.read_text(encoding="utf-8"), f"{ex.op}.dsl.py")


def closest_examples(category: str, ranks: Sequence[int], *, exclude_op: str = "", count: int = 2) -> list[Example]:
    """Up to `count` examples of `category` whose inputs look most like `ranks` (input tensor
    ranks, in order); an example for the very op asked about is left out (it would be the answer)."""
    pool = [e for e in EXAMPLES if e.category == category and e.op != exclude_op]
    if not pool:
        pool = [e for e in EXAMPLES if e.op != exclude_op][:1]

    def distance(ex: Example) -> int:
        theirs = [len(p.dims) for p in _example_program(ex).inputs]
        return 2 * abs(len(theirs) - len(ranks)) + sum(abs(a - b) for a, b in zip(theirs, ranks))

    return sorted(pool, key=distance)[:max(count, 0)]


def ops_used(program: ir.Program) -> list[str]:
    """The operations-table entries the kernel body uses, in table order."""
    used = {n.op for n in ir.walk(program.kernel) if isinstance(n, ir.Call) and n.op in OPS}
    return [name for name in OPS if name in used]


def _code(text: str) -> str:
    """An API name in backticks; a phrase (`expand: Muls(2), Exp, ...`) as it is."""
    return f"`{text}`" if re.fullmatch(r"[\w:]+", text) else text


def api_notes(program: ir.Program) -> str:
    """One line per operation the kernel uses: its AscendC mapping, from the ops table."""
    lines = []
    for name in ops_used(program):
        op = OPS[name]
        line = f"- `{op.spelling}` ({op.doc}): AscendC {_code(op.ascendc)}"
        if op.ascendc_scalar:
            line += f"; with a scalar operand {_code(op.ascendc_scalar)}"
        if op.scratch:
            line += f"; needs {op.scratch} scratch tile(s) of UB"
        lines.append(line)
    return "\n".join(lines) or "- (the kernel uses no vector operations: only copies)"


# --------------------------------------------------------------------------------------------
# drafting
# --------------------------------------------------------------------------------------------

DRAFT_REPLY_FORMAT = """\
Reply with the complete DSL file (the `@host` tiling function and the `@kernel`) in exactly one
```python fenced block. Text outside the block is ignored. The file is parsed, never executed:
no imports, no PyTorch, no C++."""

DRAFT_SYSTEM = ("You are an expert Huawei Ascend NPU kernel engineer. You write kernels in the AscendCraft kernel "
                "DSL, specified below: you decide the algorithm, the core split, the tiling and which values live "
                "in the Unified Buffer; the lowering passes write the AscendC boilerplate. A draft is checked by "
                "the DSL parser, the verifier (types, stages, UB budget) and a numpy interpreter that runs every "
                "core and tile against the PyTorch reference.")


def describe_reference(ref) -> str:
    """Input, parameter and output shapes of a reference run, one line each."""
    lines = []
    for i, v in enumerate(ref.inputs):
        if hasattr(v, "shape"):
            lines.append(f"- get_inputs()[{i}]: tensor {ref.input_dtypes[i] or v.dtype} of shape {tuple(v.shape)}")
        else:
            lines.append(f"- get_inputs()[{i}]: {type(v).__name__} {v!r}")
    for i, v in enumerate(ref.init_inputs):
        lines.append(f"- get_init_inputs()[{i}]: {type(v).__name__} {v!r}" if not hasattr(v, "shape")
                     else f"- get_init_inputs()[{i}]: tensor of shape {tuple(v.shape)}")
    for name, v in ref.named_tensors.items():
        lines.append(f"- Model parameter/buffer `{name}`: {v.dtype} of shape {tuple(v.shape)}")
    for i, v in enumerate(ref.outputs):
        dtype = ref.output_dtypes[i] if i < len(ref.output_dtypes) and ref.output_dtypes[i] else v.dtype
        lines.append(f"- forward returns [{i}]: {dtype} of shape {tuple(v.shape)}")
    return "\n".join(lines)


def draft_messages(ref_text: str, ref_name: str, ref, *, soc: str, examples: Iterable[Example],
                   start_draft: str | None = None, start_feedback: str = "") -> list[dict[str, str]]:
    """System + user message asking for a DSL draft of the reference."""
    system = "\n\n".join([DRAFT_SYSTEM, "# The AscendCraft kernel DSL", dsl_specification(),
                          "# Reply format", DRAFT_REPLY_FORMAT])
    parts = []
    examples = list(examples)
    if examples:
        parts.append(f"# Expert examples ({examples[0].category})")
        for ex in examples:
            parts.append(f"## {ex.name}: {ex.about}\n\nReference `{ex.reference.name}`:\n"
                         + fenced(ex.reference.read_text(encoding="utf-8"), "python")
                         + f"\n\nDSL kernel `{ex.dsl.name}`:\n" + fenced(ex.dsl.read_text(encoding="utf-8"), "python"))
    parts.append(f"# The reference to implement: `{ref_name}`\n\n" + fenced(ref_text, "python"))
    parts.append("Running it (seed 0) gives:\n" + describe_reference(ref))
    if start_draft is not None:
        parts.append("# A draft to improve (from the offline drafter)\n\n" + fenced(start_draft, "python")
                     + "\n\n" + (f"Checking it gives:\n{fenced(start_feedback)}" if start_feedback
                                 else "It is correct on the interpreter; improve it only where you are sure."))
    parts.append(f"# Task\n\nWrite the DSL kernel for `{ref_name}` on {soc}. It must parse, pass the verifier with "
                 "the shapes above and match the reference on the interpreter (every core, every tile, ragged last "
                 "tiles included).\n\n" + DRAFT_REPLY_FORMAT)
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(parts)}]


def draft_follow_up(feedback: str, ok: bool) -> str:
    if ok:
        return ("This draft is correct on the interpreter:\n" + fenced(feedback) + "\n\nImprove it if you can "
                "(fewer sweeps over global memory, larger tiles, fewer UB buffers) while keeping it correct; "
                "otherwise send it unchanged.\n\n" + DRAFT_REPLY_FORMAT)
    return ("Your draft does not pass the checks:\n" + fenced(feedback) + "\n\nFix it and send the complete "
            "corrected file.\n\n" + DRAFT_REPLY_FORMAT)


# --------------------------------------------------------------------------------------------
# lowering
# --------------------------------------------------------------------------------------------

LOWER_SYSTEM = ("You are an expert AscendC engineer. You carry out one pass of a four-pass lowering from the "
                "AscendCraft kernel DSL to an AscendC kernel-launch project (CANN). Each pass adds its own regions "
                "to the project; the result is checked by the pass's constraint checker and compiled with g++ "
                "against a CPU emulator of the AscendC API (kernel_operator.h).")


def checker_rules() -> dict[str, str]:
    """What each pass's checker verifies, one line per pass, from the passes' own rules."""
    return {p.name: "; ".join(p.rules) + "." for p in PIPELINE if p.rules}


def plan_facts(plan, spec: PassSpec) -> str:
    """The names and numbers the checkers hold any bundle of this kernel to."""
    program = plan.program
    tensors = [t.name for t in program.tensors()]
    lines = [
        "Files: " + ", ".join(f"`{p}`" for p in (plan.tiling_path, plan.tiling_impl_path, plan.host_path,
                                                 plan.kernel_path, plan.torch_path, plan.cmake_path)),
        f"Kernel entry: `extern \"C\" __global__ __aicore__ void {plan.entry}(GM_ADDR "
        + ", GM_ADDR ".join(tensors + ["workspace", "tiling"]) + ")`; kernel class `" + plan.cls + "`.",
        f"Tiling struct `{plan.tiling_struct}` in `{plan.tiling_path}` with the fields, in order:",
    ]
    for f in plan.tiling_fields:
        aligned = f" (a multiple of {f.aligned} elements)" if f.aligned else ""
        lines.append(f"  - `{f.ctype} {f.name};` — {f.doc}{aligned}")
    lines.append(f"Tiling function in `{plan.tiling_impl_path}`: `{tiling_signature(plan)}` fills the struct and "
                 "returns the block dim, with the same numbers as the DSL `@host` function.")
    if plan.buffers:
        lines.append("UB tiles of the DSL and the member each must have (declared in the kernel class, sized with "
                     "pipe.InitBuffer):")
        for b in plan.buffers:
            lines.append(f"  - `{b.name}` (DSL line {b.dsl_line}, {b.kind}): `{b.declaration}`")
    lines.append(f"UB usable on {plan.soc.name}: {plan.soc.ub_usable} bytes (the InitBuffer total must fit).")
    return "\n".join(lines)


def pass_rules(spec: PassSpec, plan) -> str:
    rules = checker_rules()
    later = [p for p in PIPELINE if p.number > spec.number]
    lines = [
        f"- Do only pass {spec.number} ({spec.name}): {spec.reason}.",
        "- Keep everything the earlier passes wrote unless this pass's rules require a change.",
        f"- Replace every `TODO(pass {spec.number} {spec.name})` placeholder; none may remain.",
    ]
    if later:
        lines.append("- Leave the placeholders of later passes ("
                     + ", ".join(f"`TODO(pass {p.number} {p.name})`" for p in later) + ") exactly as they are.")
    lines.append("- Before each block you write, put a comment `// DSL <line>: <what>` naming the DSL line it "
                 "implements.")
    lines.append("- Write code a newcomer can learn AscendC from: the canonical KernelXxx class shape, consistent "
                 "names, no dead code.")
    checked = [f"- pass {p.number} {p.name}: {rules[p.name]}" for p in PIPELINE[:spec.number] if p.name in rules]
    return ("\n".join(lines) + "\n\nThe constraint checker verifies (this pass and every earlier one):\n"
            + "\n".join(checked) + "\n\nNames and numbers it holds this project to:\n" + plan_facts(plan, spec))


def worked_example(spec: PassSpec, program, options, mode: str = "category") -> tuple[str, str]:
    """(title, text) of the rule engine's output for this pass: on the closest example of the
    kernel's category (`mode="category"`), on this very kernel (`"self"`), or none (`"none"`)."""
    if mode == "none":
        return "", ""
    target, label = None, ""
    if mode == "category":
        category = guess_category(program.source, program.kernel.name)
        ranks = [len(p.dims) for p in program.inputs]
        for ex in closest_examples(category, ranks, exclude_op=program.kernel.name, count=3):
            try:
                target = verify(_example_program(ex), options.soc)
            except Exception:  # an example that does not verify on this SoC: try the next
                continue
            label = f"the category example `{ex.name}`"
            opts = LowerOptions(soc=options.soc)
            break
    if target is None:
        target, label, opts = program, "this kernel", options
    try:
        before = render(target, opts, spec.number - 1) if spec.number > 1 else None
        after = render(target, opts, spec.number)
    except Exception:  # the rule engine cannot lower it: no worked example rather than none at all
        return "", ""
    title = f"Worked example: the rule engine's pass {spec.number} ({spec.name}) on {label}"
    if before is None:
        return title, "It creates these files:\n\n" + format_files(after.files)
    text = "\n".join(d.text for d in diff(before, after))
    return title, "Its diff against the project after the previous pass:\n\n" + fenced(text, "diff")


def lower_messages(spec: PassSpec, program, previous: Bundle | None, options, plan, *,
                   example_mode: str = "category") -> list[dict[str, str]]:
    """System + user message asking for pass `spec` on `previous`."""
    system = "\n\n".join([LOWER_SYSTEM, "# Reply format", FILES_REPLY_FORMAT])
    from_file = program.path and program.path != "<dsl>"
    dsl_name = PurePath(program.path).name if from_file else f"{program.kernel.name}.dsl.py"
    passes = "\n".join(f"{p.number}. {p.name} — {p.reason}" for p in PIPELINE)
    parts = [
        f"# Pass {spec.number} of {len(PIPELINE)}: {spec.name}\n\n{spec.reason}.\n\n{spec.explain}\n\n"
        f"The four passes, in order:\n{passes}",
        "# Rules of this pass\n\n" + pass_rules(spec, plan),
        "# AscendC API notes for the operations this kernel uses\n\n" + api_notes(program),
    ]
    title, text = worked_example(spec, program, options, example_mode)
    if title:
        parts.append(f"# {title}\n\n{text}")
    parts.append(f"# The DSL kernel `{dsl_name}`\n\n" + fenced(numbered(program.source), "text"))
    if previous is None or not previous.files:
        parts.append("# The project so far\n\nThere is no project yet: this pass creates it.")
    else:
        parts.append(f"# The project after pass {spec.number - 1}\n\n" + format_files(previous.files))
    parts.append(f"# Task\n\nCarry out pass {spec.number} ({spec.name}) on this project.\n\n{FILES_REPLY_FORMAT}")
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(parts)}]


def lower_follow_up(feedback: str) -> str:
    return ("Your files do not pass the checks:\n" + fenced(feedback) + "\n\nFix them and send every file you "
            "change, complete, in the same format.")


__all__ = ["CATEGORY_WORDS", "DRAFT_NAME", "DRAFT_REPLY_FORMAT", "api_notes", "checker_rules", "closest_examples",
           "draft_follow_up", "draft_messages", "dsl_specification", "guess_category", "lower_follow_up",
           "lower_messages", "numbered", "ops_used", "pass_rules", "plan_facts", "worked_example"]
