"""What counts as correct, and the bench's figures.

Correctness of one output against PyTorch (`check_output`): the MultiKernelBench rule
(allclose with rtol = atol = 1e-4 for fp32, 1e-2 for fp16) with two hardenings:

- the absolute tolerance scales with the reference's magnitude: atol = tol x rms(reference),
  so a softmax row of 16384 values near 6e-5 is not "correct" merely because every value is
  within 1e-4 of zero, and a cumulative sum in the hundreds is held to tol relative accuracy;
- an all-zero or constant output is rejected whenever the reference is not (a kernel that
  writes nothing, or one value, fails even where a loose tolerance would pass it).

Figures per category and overall (`summarise`): Comp@1 = ops whose generated project
compiled, Pass@1 = ops correct on every input set, and, on an NPU, Fast_p = ops correct *and*
faster than p x PyTorch eager. Without an NPU the bench reports the emulator-vs-eager ratio
on this CPU instead, clearly labelled: it is not an NPU speed.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

TOLERANCE = {"float32": 1e-4, "float16": 1e-2, "bfloat16": 1e-2}
FAST_P = (0.2, 0.8, 1.0)


@dataclass
class OutputCheck:
    name: str
    correct: bool
    reason: str              # "" when correct
    rtol: float
    atol: float
    max_abs_err: float
    max_rel_err: float
    mismatches: int
    mkb_allclose: bool       # MultiKernelBench's plain allclose(rtol=atol=tol), for comparison

    def to_json(self) -> dict:
        return asdict(self)


def check_output(name: str, got, want, dtype: str = "float32") -> OutputCheck:
    tol = TOLERANCE.get(dtype, 0.0)
    w = np.asarray(want, dtype=np.float64)
    if got is None:
        return OutputCheck(name, False, "the kernel produced no output", tol, 0.0, float("inf"), float("inf"), w.size, False)
    g = np.asarray(got, dtype=np.float64)
    if g.shape != w.shape:
        return OutputCheck(name, False, f"shape {g.shape} instead of {w.shape}", tol, 0.0, float("inf"), float("inf"),
                           w.size, False)
    finite = np.isfinite(w)
    scale = float(np.sqrt(np.mean(np.square(w[finite])))) if finite.any() else 0.0
    atol = tol * scale if tol else 0.0
    diff = np.abs(g - w)
    same_special = (np.isnan(g) & np.isnan(w)) | ((g == w) & ~finite)
    ok = (diff <= atol + tol * np.abs(np.where(finite, w, 0.0))) | same_special
    mismatches = int((~ok).sum())
    diff_f = np.where(same_special, 0.0, np.where(np.isnan(diff), np.inf, diff))
    max_abs = float(diff_f.max()) if diff_f.size else 0.0
    rel = np.where(diff_f == 0, 0.0, diff_f / np.maximum(np.abs(w), 1e-30))
    max_rel = float(np.nanmax(rel)) if rel.size else 0.0
    mkb = bool(np.allclose(g, w, rtol=tol, atol=tol, equal_nan=True)) if tol else bool(np.array_equal(g, w))
    reason = ""
    if w.size and np.any(w[finite] != 0) and not np.any(g != 0):
        reason = "the output is all zeros and the reference is not"
    elif w.size > 1 and np.ptp(w[finite]) > 0 and np.all(np.isfinite(g)) and np.ptp(g) == 0:
        reason = "the output is one constant value and the reference is not"
    elif mismatches:
        idx = np.unravel_index(int(np.argmax(diff_f)), diff_f.shape)
        reason = (f"{mismatches} elements differ (worst at {tuple(int(i) for i in idx)}: got {g[idx]:.6g}, "
                  f"expected {w[idx]:.6g})")
    return OutputCheck(name, not reason, reason, tol, atol, max_abs, max_rel, mismatches, mkb)


def inputs_unchanged(before: dict, after: dict) -> str:
    """'' when every input buffer is bit-identical after the kernel ran, else which one changed."""
    for name, a in before.items():
        b = after.get(name)
        if b is None:
            continue
        a = np.ascontiguousarray(a)
        b = np.ascontiguousarray(b).reshape(a.shape)
        if a.tobytes() != b.tobytes():
            return f"the kernel wrote into its input `{name}`"
    return ""


def summarise(results: list[dict], shapes: list[str]) -> dict:
    """Comp@1 / Pass@1 / emulator-vs-eager figures per category and overall, per shape."""
    cats = sorted({r["category"] for r in results})
    out: dict = {"shapes": shapes, "categories": {}, "overall": {}}

    def figures(rs: list[dict], shape: str) -> dict:
        per = [r["shapes"].get(shape) for r in rs if shape in r["shapes"]]
        n = len(per)
        comp = sum(1 for p in per if p and p.get("compiled"))
        ok = sum(1 for p in per if p and p.get("correct"))
        fig = {"ops": n, "compiled": comp, "correct": ok,
               "comp@1": comp / n if n else 0.0, "pass@1": ok / n if n else 0.0}
        ratios = [p.get("speed_ratio") for p in per if p and p.get("correct") and p.get("speed_ratio")]
        for pth in FAST_P:
            fig[f"emu_vs_eager>{pth}"] = (sum(1 for x in ratios if x > pth) / n) if n else 0.0
        fig["emu_vs_eager_geomean"] = float(np.exp(np.mean(np.log(ratios)))) if ratios else None
        return fig

    for shape in shapes:
        for c in cats:
            out["categories"].setdefault(c, {})[shape] = figures([r for r in results if r["category"] == c], shape)
        out["overall"][shape] = figures(results, shape)
    return out
