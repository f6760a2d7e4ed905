"""Random well-typed DSL kernels for the UB-plan property (tests/passes/test_ub_plan_property.py,
bench/ub_plan_property.py): ops drawn from the op table, mixed dtypes, random shapes and tiles.

A kernel walks rows over cores and tiles along each row; it loads up to three tensors (f32 or
f16, and sometimes a bool mask), computes one random tile expression (and sometimes a scalar
reduction of another), casts it to the output dtype and stores it.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass

UNARY = ["abs", "relu", "exp", "sigmoid", "tanh", "neg"]
GUARDED = {"log": "log(abs({x}) + 1.0)", "sqrt": "sqrt(abs({x}))", "rsqrt": "rsqrt(abs({x}) + 1.0)",
           "reciprocal": "reciprocal(abs({x}) + 1.0)"}
BINARY = ["+", "-", "*", "max", "min"]
COMPARE = [">", "<", ">=", "<=", "==", "!="]


@dataclass
class Case:
    text: str
    shapes: dict[str, tuple[int, ...]]
    seed: int


def _expr(rng: random.Random, leaves: list[str], depth: int, masks: list[str]) -> str:
    if depth == 0 or rng.random() < 0.25:
        return rng.choice(leaves) if rng.random() < 0.85 else f"{rng.uniform(-2, 2):.3f}"
    kind = rng.random()
    sub = lambda: _expr(rng, leaves, depth - 1, masks)  # noqa: E731
    if kind < 0.25:
        return (f"{rng.choice(UNARY)}({sub()})" if rng.random() < 0.6
                else GUARDED[rng.choice(list(GUARDED))].format(x=sub()))
    if kind < 0.55:
        op = rng.choice(BINARY)
        a, b = sub(), sub()
        return f"{op}({a}, {b})" if op in ("max", "min") else f"({a} {op} {b})"
    if kind < 0.65:
        return f"({sub()} / (abs({sub()}) + 1.0))"
    if kind < 0.75:
        lo = rng.uniform(-2, 0)
        return f"clamp({sub()}, {lo:.2f}, {lo + rng.uniform(0.1, 3):.2f})"
    if kind < 0.9:
        cond = f"{sub()} {rng.choice(COMPARE)} {sub()}" if not masks or rng.random() < 0.5 else rng.choice(masks)
        a = sub() if rng.random() < 0.8 else f"{rng.uniform(-1, 1):.2f}"
        b = sub() if rng.random() < 0.8 else f"{rng.uniform(-1, 1):.2f}"
        if a[0].isdigit() or a[0] == "-" and a[1:2].isdigit():
            if b[0].isdigit() or b[0] == "-" and b[1:2].isdigit():
                b = rng.choice(leaves)
        return f"where({cond}, {a}, {b})"
    return f"({sub()} - reduce_max({rng.choice(leaves)}))"


def _tile_expr(rng: random.Random, leaves: list[str], depth: int, masks: list[str]) -> str:
    """A random expression that reads at least one tile (a scalar one is redrawn)."""
    while True:
        e = _expr(rng, leaves, depth, masks)
        if any(re.search(rf"\b{x}\b", e) for x in leaves + masks):
            return e


def random_kernel(seed: int, *, max_rows: int = 5, max_cols: int = 3000, multiple: int = 1) -> Case:
    """Kernel number `seed`; row lengths a multiple of `multiple` (32 for a SoC without
    DataCopyPad, whose copies move whole 32-byte blocks). Every third kernel works on tiles of
    whole rows (2-D tiles) with stretched operands: a vector per column, a value per row."""
    if seed % 3 == 2:
        return random_rows_kernel(seed, multiple=multiple)
    rng = random.Random(seed)
    n_in = rng.randint(1, 3)
    dts = [rng.choice(["f32", "f32", "f16"]) for _ in range(n_in)]
    out_dt = rng.choice(["f32", "f32", "f16"])
    reduce = rng.random() < 0.3
    B, N = rng.randint(1, max_rows), rng.randint(1, max(1, max_cols // multiple)) * multiple
    live = rng.randint(1, 10)
    tile = f"min(ub_elems(f32, live={live}), N)" if rng.random() < 0.7 else \
        f"min({rng.randint(1, max(1, 4096 // multiple)) * multiple}, N)"
    names = [f"x{i}" for i in range(n_in)]
    value = {n: (f"{n}u" if dt == "f32" else f"{n}f") for n, dt in zip(names, dts)}
    masks = ["mu"] if rng.random() < 0.3 else []
    body = _tile_expr(rng, list(value.values()), rng.randint(1, 4), masks)
    reduced = _tile_expr(rng, list(value.values()), rng.randint(0, 2), []) if reduce else ""
    read = lambda v: bool(re.search(rf"\b{v}\b", body + " " + reduced))  # noqa: E731
    used = [n for n in names if read(value[n])]
    if not used:
        used = names[:1]
    params = [f"{n}: GM[{dt}, (B, N)]" for n, dt in zip(names, dts) if n in used]
    loads = [f"                {n}u = load({n}[r, c])" for n in used]
    casts = [f"                {n}f = cast({n}u, f32)" for n, dt in zip(names, dts) if n in used and dt == "f16"]
    if masks and read("mu"):
        params.append("m: GM[bool, (B, N)]")
        loads.append("                mu = load(m[r, c])")
    params.append(f"y: Out[{out_dt}, (B, N)]")
    if reduce:
        params.append("s: Out[f32, ()]")
    result = f"cast({body}, f16)" if out_dt == "f16" else body
    compute = casts + [f"                yu = {result}"]
    if reduce:
        compute.append(f"                acc = acc + reduce_sum({reduced})")
    first = used[0]
    text = "\n".join([
        "@host",
        f"def tiling({first}: Tensor[{dts[names.index(first)]}, (B, N)]):",
        "    cores = min(VECTOR_CORES, B)",
        "    rows = cdiv(B, cores)",
        "    cores = cdiv(B, rows)",
        f"    return Launch(cores, rows=rows, tile={tile})",
        "",
        "",
        "@kernel",
        f"def rand{seed}({', '.join(params)}, t: Tiling):",
        "    for r in core_rows(t.rows, B):",
        *(["        acc = 0.0"] if reduce else []),
        "        for c in tiles(N, t.tile):",
        "            with copyin:",
        *loads,
        "            with compute:",
        *compute,
        "            with copyout:",
        "                store(y[r, c], yu)",
        *(["        with copyout:", "            store(s, acc, accumulate=True)"] if reduce else []),
        "",
    ])
    shapes = {n: (B, N) for n in used} | ({"m": (B, N)} if "m: GM" in text else {})
    return Case(text, shapes, seed)


def _rows_expr(rng: random.Random, full: list[str], wide: list[str], depth: int) -> str:
    """A random expression over full tiles of rows and stretched operands (by NumPy's rules)."""
    if depth == 0 or rng.random() < 0.2:
        pick = rng.random()
        if pick < 0.6 or not wide:
            return rng.choice(full)
        return rng.choice(wide) if pick < 0.92 else f"{rng.uniform(-2, 2):.3f}"
    sub = lambda: _rows_expr(rng, full, wide, depth - 1)  # noqa: E731
    kind = rng.random()
    if kind < 0.2:
        return (f"{rng.choice(UNARY)}({sub()})" if rng.random() < 0.6
                else GUARDED[rng.choice(list(GUARDED))].format(x=sub()))
    if kind < 0.6:
        op = rng.choice(BINARY)
        a, b = sub(), sub()
        return f"{op}({a}, {b})" if op in ("max", "min") else f"({a} {op} {b})"
    if kind < 0.7:
        return f"({sub()} / (abs({sub()}) + 1.0))"
    if kind < 0.8:
        return f"({sub()} - reduce_max({rng.choice(full)}, axis=1, keepdim=True))"
    if kind < 0.9:
        # the comparison itself broadcasts; where() takes a mask of the result's shape
        cond = f"{rng.choice(full)} {rng.choice(COMPARE)} {sub()}"
        return f"where({cond}, {sub()}, {sub()})"
    return f"({sub()} * reduce_sum({rng.choice(full)}, axis=1, keepdim=True))"


def random_rows_kernel(seed: int, *, multiple: int = 1) -> Case:
    """A kernel over tiles of whole rows: x[c, :] of (B, N), a (N,) vector loaded once per core and a
    (B, 1) value per row beside them, one random expression, a cast to the output dtype."""
    rng = random.Random(seed)
    B, N = rng.randint(1, 300), rng.randint(1, max(1, 700 // multiple)) * multiple
    dt = rng.choice(["f32", "f32", "f16"])
    out_dt = rng.choice(["f32", "f32", "f16"])
    vec, per_row = rng.random() < 0.6, rng.random() < 0.6
    x = "xu" if dt == "f32" else "xf"
    wide = (["bu"] if vec else []) + (["su"] if per_row else [])
    body = _rows_expr(rng, [x], wide, rng.randint(1, 4))
    while x not in body:
        body = _rows_expr(rng, [x], wide, rng.randint(1, 4))
    wide = [w for w in wide if re.search(rf"\b{w}\b", body)]
    rows = rng.choice([1, 7, 16, 100, 240, 300])
    params = [f"x: GM[{dt}, (B, N)]"] + (["b: GM[f32, (N,)]"] if "bu" in wide else []) + \
        (["s: GM[f32, (B, 1)]"] if "su" in wide else []) + [f"y: Out[{out_dt}, (B, N)]"]
    result = f"cast({body}, f16)" if out_dt == "f16" else body
    text = "\n".join([
        "@host",
        f"def tiling(x: Tensor[{dt}, (B, N)]):",
        "    cores = min(VECTOR_CORES, B)",
        "    per_core = cdiv(B, cores)",
        "    cores = cdiv(B, per_core)",
        f"    return Launch(cores, per_core=per_core, rows=min({rows}, per_core))",
        "",
        "",
        "@kernel",
        f"def rows{seed}({', '.join(params)}, t: Tiling):",
        *(["    with copyin:", "        bu = load(b[:])"] if "bu" in wide else []),
        "    for part in core_chunk(t.per_core, B):",
        "        for c in tiles(part, t.rows):",
        "            with copyin:",
        "                xu = load(x[c, :])" if dt == "f32" else "                xh = load(x[c, :])",
        *(["                su = load(s[c, :])"] if "su" in wide else []),
        "            with compute:",
        *([] if dt == "f32" else ["                xf = cast(xh, f32)"]),
        f"                yu = {result}",
        "            with copyout:",
        "                store(y[c, :], yu)",
        "",
    ])
    shapes = {"x": (B, N)} | ({"b": (N,)} if "bu" in wide else {}) | ({"s": (B, 1)} if "su" in wide else {})
    return Case(text, shapes, seed)


def check_case(case: Case, *, emulate: bool = False, soc: str | None = None) -> str:
    """The property for one random kernel: "rejected" when the verifier refuses it, else "ok"
    after asserting that every pass lowers it, that the UB plan's total is what Init allocates
    (the InitBuffer calls evaluated) and uses (every scratch slot it sizes), and with `emulate`
    that the emulator's InitBuffer total is the same and the kernel runs without a finding."""
    import numpy as np

    from ascendcraft_lab.backends.emulator.verify import emulate as run_on_emulator
    from ascendcraft_lab.dsl.errors import DslError
    from ascendcraft_lab.dsl.host import bind_dims, evaluate_host
    from ascendcraft_lab.dsl.parser import parse
    from ascendcraft_lab.dsl.verifier import verify
    from ascendcraft_lab.engines.rule import RuleEngine
    from ascendcraft_lab.passes.init import initbuffer_total
    from ascendcraft_lab.passes.manager import LowerOptions, run_pipeline
    from ascendcraft_lab.passes.plan import plan_for
    from ascendcraft_lab.soc import get_soc

    chip = get_soc(soc)
    try:
        program = verify(parse(case.text, f"rand{case.seed}.dsl.py"), chip, shapes=case.shapes, scalars={})
    except DslError:
        return "rejected"
    options = LowerOptions(soc=chip.name, shapes=case.shapes, scalars={})
    steps = run_pipeline(program, RuleEngine(), options)
    errors = [f.render() for s in steps for f in s.findings if f.severity == "error"]
    assert len(steps) == 4 and not errors and not any(s.failed for s in steps), \
        f"seed {case.seed}: the verifier accepts but the passes fail:\n" + "\n".join(errors) + "\n" + case.text
    bundle = steps[-1].bundle
    plan = plan_for(program, options)
    launch = evaluate_host(program, case.shapes, {}, chip)
    env = {**bind_dims(program, case.shapes), **{f"t.{k}": v for k, v in launch.items()}}
    usage = program.plan.usage(env, chip)
    text = bundle[plan.kernel_path]
    allocated = initbuffer_total(text, plan.tiling_values(options))[0]
    assert usage.total() == allocated, \
        f"seed {case.seed}: plan {usage.total()} B ({usage.breakdown()}) vs InitBuffer {allocated} B\n{case.text}"
    used = {int(i) for i in __import__("re").findall(r"Scratch<\w+>\((\d+)\)", text)}
    assert len(used) == program.plan.scratch_slots, \
        (f"seed {case.seed}: the plan sizes {program.plan.scratch_slots} scratch slots, "
         f"the kernel uses {sorted(used)}\n{case.text}")
    if emulate:
        rng = np.random.default_rng(case.seed)
        inputs = {}
        for t in program.inputs:
            if t.dtype.value == "bool":
                inputs[t.name] = rng.random(case.shapes[t.name]) < 0.5
            else:
                inputs[t.name] = rng.standard_normal(case.shapes[t.name]).astype(t.dtype.np)
        run = run_on_emulator(program, bundle, inputs, {}, soc=chip.name)
        assert run.status == "ok", f"seed {case.seed}: {run.status}: {run.message} {run.findings[:2]}\n{case.text}"
        assert run.timings.get("ub_bytes") == usage.total(), \
            f"seed {case.seed}: emulator UB {run.timings.get('ub_bytes')} B vs plan {usage.total()} B\n{case.text}"
    return "ok"
