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


CHUNK = 1 << 20    # elements at a time: float64 temporaries of a few MiB, whatever the output's size


def _chunks(*arrays):
    flat = [np.asarray(a).reshape(-1) for a in arrays]
    for i in range(0, flat[0].size, CHUNK):
        yield i, [f[i:i + CHUNK].astype(np.float64) for f in flat]


def check_output(name: str, got, want, dtype: str = "float32") -> OutputCheck:
    tol = TOLERANCE.get(dtype, 0.0)
    w_all = np.asarray(want)
    if got is None:
        return OutputCheck(name, False, "the kernel produced no output", tol, 0.0, float("inf"), float("inf"),
                           w_all.size, False)
    g_all = np.asarray(got)
    if g_all.shape != w_all.shape:
        return OutputCheck(name, False, f"shape {g_all.shape} instead of {w_all.shape}", tol,
                           0.0, float("inf"), float("inf"), w_all.size, False)
    # First pass: the reference's scale (rms of its finite values) and whether it is all zero / constant.
    squares, count = 0.0, 0
    w_lo, w_hi, w_nonzero = np.inf, -np.inf, False
    g_lo, g_hi, g_nonzero, g_finite = np.inf, -np.inf, False, True
    for _, (g, w) in _chunks(g_all, w_all):
        wf = w[np.isfinite(w)]
        squares += float(np.square(wf).sum())
        count += wf.size
        if wf.size:
            w_lo, w_hi = min(w_lo, float(wf.min())), max(w_hi, float(wf.max()))
            w_nonzero = w_nonzero or bool(np.any(wf != 0))
        g_nonzero = g_nonzero or bool(np.any(g != 0))
        g_finite = g_finite and bool(np.all(np.isfinite(g)))
        if g.size:
            g_lo, g_hi = min(g_lo, float(np.min(g))), max(g_hi, float(np.max(g)))
    scale = float(np.sqrt(squares / count)) if count else 0.0
    atol = tol * scale if tol else 0.0
    # Second pass: errors against that tolerance, and MultiKernelBench's plain allclose.
    mismatches, max_abs, max_rel, at, mkb, nonfinite = 0, 0.0, 0.0, -1, True, 0
    for i, (g, w) in _chunks(g_all, w_all):
        finite = np.isfinite(w)
        diff = np.abs(g - w)
        same_special = (np.isnan(g) & np.isnan(w)) | ((g == w) & ~finite)
        ok = (diff <= atol + tol * np.abs(np.where(finite, w, 0.0))) | same_special
        mismatches += int((~ok).sum())
        nonfinite += int((~ok & ~finite).sum())
        diff_f = np.where(same_special, 0.0, np.where(np.isnan(diff), np.inf, diff))
        k = int(np.argmax(diff_f))
        if diff_f[k] > max_abs:
            max_abs, at = float(diff_f[k]), i + k
        with np.errstate(invalid="ignore", divide="ignore"):   # a NaN or Inf expected: the relative error is inf
            rel = np.where(diff_f == 0, 0.0, np.where(finite, diff_f / np.maximum(np.abs(w), 1e-30), np.inf))
        max_rel = max(max_rel, float(np.max(rel, initial=0.0)))
        close = bool(np.allclose(g, w, rtol=tol, atol=tol, equal_nan=True)) if tol else bool(np.array_equal(g, w))
        mkb = mkb and close
    reason = ""
    if w_all.size and w_nonzero and not g_nonzero:
        reason = "the output is all zeros and the reference is not"
    elif w_all.size > 1 and w_hi - w_lo > 0 and g_finite and g_hi - g_lo == 0:
        reason = "the output is one constant value and the reference is not"
    elif mismatches:
        idx = np.unravel_index(max(at, 0), w_all.shape)
        reason = (f"{mismatches} elements differ (worst at {tuple(int(i) for i in idx)}: got {float(g_all[idx]):.6g}, "
                  f"expected {float(w_all[idx]):.6g})")
        if nonfinite:
            reason += f"; the reference's output is not finite (NaN or Inf) at {nonfinite} of them"
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
        # The pipe model's ESTIMATED speedup vs ESTIMATED eager on the NPU (perf/): estimated Fast_p.
        est = [(p.get("estimate") or {}).get("speedup") for p in per if p and p.get("correct")]
        est = [x for x in est if x]
        for pth in FAST_P:
            fig[f"est_fast>{pth}"] = (sum(1 for x in est if x > pth) / n) if n else 0.0
        fig["est_speedup_geomean"] = _geomean(est)
        # How close each kernel is to the chip's roofline (perf/model.py: floor / time on the cores).
        roof = [(p.get("estimate") or {}).get("roofline_fraction") for p in per if p and p.get("correct")]
        roof = [x for x in roof if x]
        fig["roofline_geomean"] = _geomean(roof)
        fig["roofline_median"] = float(np.median(roof)) if roof else None
        return fig

    for shape in shapes:
        for c in cats:
            out["categories"].setdefault(c, {})[shape] = figures([r for r in results if r["category"] == c], shape)
        out["overall"][shape] = figures(results, shape)
    out["sensitivity"] = {shape: sensitivity_figures(results, shape) for shape in shapes}
    cases = case_counts(results)
    if cases["total"]:
        out["cases"] = cases
    return out


def _geomean(xs: list[float]) -> float | None:
    return float(np.exp(np.mean(np.log(xs)))) if xs else None


def sensitivity_figures(results: list[dict], shape: str) -> dict:
    """Per uncertain cost parameter and factor (perf/sensitivity.py): the estimated Fast_1 over all ops
    and the geo-mean estimated speedup of the correct ops, with that parameter scaled."""
    per = [r["shapes"].get(shape) for r in results if shape in r["shapes"]]
    n = len(per)
    moves = [(p.get("estimate") or {}).get("sensitivity") for p in per if p and p.get("correct")]
    moves = [m for m in moves if m]
    out: dict = {}
    for name in sorted({k for m in moves for k in m}):
        for f in sorted({f for m in moves for f in m.get(name, {})}, key=float):
            speedups = [e / k for m in moves for k, e in [m.get(name, {}).get(f, [None, None])] if k and e]
            out.setdefault(name, {})[f] = {"est_fast>1.0": sum(1 for x in speedups if x > 1.0) / n if n else 0.0,
                                           "est_speedup_geomean": _geomean(speedups)}
    return out


def case_counts(results: list[dict]) -> dict:
    """Cases of the NPUKernelBench ops, overall and per dtype, under both rules, and the ops
    correct on every case under MultiKernelBench's rule."""
    total = {"total": 0, "dtype-aware": 0, "mkb": 0, "per_dtype": {}, "ops": 0, "ops_mkb": 0}
    for r in results:
        for sr in r["shapes"].values():
            c = sr.get("cases") if isinstance(sr, dict) else None
            if not c:
                continue
            total["ops"] += int(bool(sr.get("correct")))
            total["ops_mkb"] += int(bool(c.get("mkb_correct")))
            total["total"] += c["total"]
            total["dtype-aware"] += c["passed"]["dtype-aware"]
            total["mkb"] += c["passed"]["mkb"]
            for d, v in c["per_dtype"].items():
                slot = total["per_dtype"].setdefault(d, {"cases": 0, "dtype-aware": 0, "mkb": 0})
                for k in slot:
                    slot[k] += v[k]
    return total
