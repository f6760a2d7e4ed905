"""The child process that checks one MultiKernelBench submission (submission.py starts it).

    python -m ascendcraft_lab.backends.emulator.submission_child SPEC.json

SPEC: {"submission", "reference", "work", "result", "trials", "soc"}. The child reads the
submission, applies the anti-hack rule, builds the CPU torch extension, loads the model code
beside the reference (as the harness execs both into one namespace), runs the correctness protocol
and writes the result JSON; a kernel that crashes takes only this process down.
"""
from __future__ import annotations

import ctypes
import json
import sys
import time
import traceback
import types
from pathlib import Path

from ...atomic import write_text
from . import mkb_protocol as mkb
from . import submission_build as sb
from .runner import NOTE_KINDS


def _torch_npu_shim():
    """The torch_npu module a model imports, on the CPU: NPU calls become no-ops on CPU tensors."""
    import torch
    npu = types.SimpleNamespace(
        synchronize=lambda *a, **k: None,
        current_stream=lambda *a, **k: None,
        set_device=lambda *a, **k: None,
        is_available=lambda: False,
        device_count=lambda: 0,
        empty_cache=lambda: None,
        manual_seed=lambda *a, **k: None,
    )
    mod = types.ModuleType("torch_npu")
    mod.npu = npu
    mod.__acemu_shim__ = True
    sys.modules.setdefault("torch_npu", mod)
    if not hasattr(torch, "npu"):
        torch.npu = npu
    if not hasattr(torch.Tensor, "npu"):
        torch.Tensor.npu = lambda self, *a, **k: self


class Findings:
    """The emulator's findings and notes of every launch, read from the extension after each call."""

    def __init__(self, module_path: Path):
        lib = ctypes.CDLL(str(module_path))
        self._take = lib.acemu_take_report_json
        self._take.restype = ctypes.c_char_p
        self.findings: dict[tuple, dict] = {}
        self.kernel_s = 0.0
        self.launches = 0

    def collect(self) -> None:
        data = json.loads(self._take().decode())
        self.kernel_s += float(data.get("kernel_s", 0.0))
        self.launches += int(data.get("launches", 0))
        for f in data.get("findings", []):
            key = (f["kind"], f["file"], f["line"])
            if key in self.findings:
                self.findings[key]["count"] += f["count"]
            else:
                self.findings[key] = f


def _locate(items: list[dict], sub, work: Path) -> list[dict]:
    for f in items:
        where = sb.locate(sub, work, f.get("file", ""), int(f.get("line", 0)))
        if where:
            f["source"] = where
    return items


def check(spec: dict) -> dict:
    result: dict = {"status": "invalid", "message": "", "trials": [], "findings": [], "notes": [], "diagnostics": [],
                    "anti_hack": None, "timings": {}}
    t0 = time.perf_counter()
    try:
        sub = sb.read_submission(spec["submission"])
    except sb.SubmissionError as exc:
        result["message"] = str(exc)
        return result
    result.update(format=sub.format, problem=sub.problem)
    result["anti_hack"] = mkb.anti_hack(sub.model_source).to_dict()

    import torch
    ref_path = Path(spec["reference"])
    ns: dict = {"__name__": "__mkb_reference__", "__file__": str(ref_path)}
    try:
        exec(compile(ref_path.read_text(), str(ref_path), "exec"), ns)
    except Exception as exc:  # the reference is the user's file: one line about it
        result["message"] = f"the reference {ref_path.name} failed to load: {type(exc).__name__}: {exc}"
        return result
    for name in ("Model", "get_inputs", "get_init_inputs"):
        if name not in ns:
            result["message"] = f"the reference {ref_path.name} defines no {name}"
            return result

    # msopgen builds a kernel per type column of the op JSON; the reference's inputs pick one.
    mkb.set_seed(mkb.SEED)
    probe = [str(v.dtype).replace("torch.", "") for v in ns["get_inputs"]() if isinstance(v, torch.Tensor)]
    work = Path(spec["work"])
    try:
        built = sb.build(sub, work, input_dtypes=probe, soc=spec.get("soc"))
    except sb.SubmissionError as exc:
        result["message"] = str(exc)
        return result
    result["timings"]["build_s"] = round(built.seconds, 2)
    result["timings"]["build_cached"] = built.cached
    if not built.ok:
        result["status"] = "compile-error"
        result["diagnostics"] = _locate([d for d in built.diagnostics if d["severity"] == "error"][:20], sub, work)
        first = result["diagnostics"][0] if result["diagnostics"] else {"message": "the build failed"}
        result["message"] = f"{first.get('source') or first.get('file') or 'build'}: {first['message']}"
        return result

    _torch_npu_shim()
    sys.path.insert(0, str(built.module_dir))
    findings = Findings(built.module_path)
    model_path = work / sub.model_file
    ns["__file__"] = str(model_path)
    try:
        exec(compile(sub.model_source, str(model_path), "exec"), ns)
        model_cls = ns[sub.model_class]
    except Exception as exc:
        result["status"] = "runtime-error"
        result["message"] = f"{sub.model_file} failed to load: {type(exc).__name__}: {exc}"
        return result

    trials = int(spec.get("trials", mkb.TRIALS))
    status, message = "correct", ""
    try:
        init = list(ns["get_init_inputs"]())
        with torch.no_grad():
            mkb.set_seed(mkb.SEED)
            reference = ns["Model"](*init)
            mkb.set_seed(mkb.SEED)
            candidate = model_cls(*init)
            findings.collect()
            for k, inputs in enumerate(mkb.input_sets(ns, trials)):
                want = reference(*inputs)
                got = candidate(*inputs)
                findings.collect()
                cmp = mkb.compare(want, got)
                result["trials"].append({"trial": k, "ok": cmp.ok, "max_abs_err": cmp.max_abs,
                                         "max_rel_err": cmp.max_rel, "tolerance": cmp.tol, "message": cmp.message})
                if not cmp.ok:
                    status, message = "incorrect", f"input set {k}: {cmp.message}"
                    break
    except Exception as exc:
        findings.collect()
        status = "runtime-error"
        tb = traceback.extract_tb(exc.__traceback__)
        here = next((f"{Path(fr.filename).name}:{fr.lineno}" for fr in reversed(tb)
                     if fr.filename == str(model_path)), "")
        first_line = str(exc).splitlines()[0] if str(exc) else ""
        message = f"{type(exc).__name__}: {first_line}" + (f" (at {here})" if here else "")
    everything = _locate(list(findings.findings.values()), sub, work)
    result["findings"] = [f for f in everything if f["kind"] not in NOTE_KINDS]
    result["notes"] = [f for f in everything if f["kind"] in NOTE_KINDS]
    if status == "correct" and result["findings"]:
        status, message = "findings", "the outputs match, but the sanitizer found bugs the NPU would not forgive"
    if not result["anti_hack"]["passed"]:
        status, message = "rejected", "the model computes in PyTorch (MultiKernelBench's anti-hack rule): " + "; ".join(
            f"line {v['line']}: {v['call']} ({v['reason']})" for v in result["anti_hack"]["violations"][:3]) + (
            result["anti_hack"]["error"] or "")
    result["status"], result["message"] = status, message
    result["launches"] = findings.launches
    result["timings"]["kernel_s"] = round(findings.kernel_s, 4)
    result["timings"]["total_s"] = round(time.perf_counter() - t0, 2)
    return result


def main(argv: list[str]) -> int:
    spec = json.loads(Path(argv[0]).read_text())
    result = check(spec)
    write_text(Path(spec["result"]), json.dumps(result, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
