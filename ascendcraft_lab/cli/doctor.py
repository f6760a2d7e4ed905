"""`ascendcraft doctor`: one table of what this machine can do.

Required for the offline pipeline: Python 3.11+, numpy, torch, a g++ that compiles C++17,
and the emulator's headers. Everything else (CANN, torch_npu, an NPU, an LLM endpoint, Ray for
`bench --executor ray`) is reported as available or not and never fails the command; the "NPU
path" row says, per NPU action, exactly which parts are missing (the same one-line reasons the
actions refuse with).
"""
from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import importlib.util
import os
import platform
import shutil
import sys
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from .. import procs
from ..backends.cann.detect import Toolchain, detect, toolkit_summary
from ..backends.emulator.runner import INCLUDE_DIR
from ..engines.llm.errors import LlmError
from ..engines.llm.settings import ENV_BASE_URL, LlmConfig



@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    required: bool = False


def _python() -> Check:
    ok = sys.version_info >= (3, 11)
    return Check("Python", ok, f"{platform.python_version()} ({sys.executable})", required=True)


def _module(name: str, required: bool) -> Check:
    try:
        mod = importlib.import_module(name)
    except Exception as exc:  # an import can fail in many ways; all mean "not available"
        return Check(name, False, f"not importable: {type(exc).__name__}: {exc}".splitlines()[0], required)
    return Check(name, True, getattr(mod, "__version__", "installed"), required)


def _gxx() -> Check:
    cxx = os.environ.get("CXX", "g++")
    path = shutil.which(cxx)
    if not path:
        return Check("g++ (C++17)", False, f"{cxx} not found on PATH; install g++ 9 or newer", True)
    version = (procs.run([path, "--version"], timeout=30).stdout.splitlines() or ["unknown version"])[0]
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp, "probe.cpp")
        src.write_text("#include <optional>\n"
                       "int main(){ std::optional<int> v{1}; if constexpr (true) return *v - 1; }\n")
        probe = procs.run([path, "-std=c++17", "-fsyntax-only", str(src)], timeout=60)
    if probe.returncode:
        return Check("g++ (C++17)", False, f"{version}: cannot compile C++17", True)
    return Check("g++ (C++17)", True, version, True)


def _emulator() -> Check:
    header = INCLUDE_DIR / "kernel_operator.h"
    detail = str(INCLUDE_DIR) if header.is_file() else f"missing {header}"
    return Check("emulator headers", header.is_file(), detail, True)


def _cann(tc: Toolchain | None = None) -> Check:
    """The toolkit, its bisheng and its AscendC CMake package (backends/cann/detect.py)."""
    ok, detail = toolkit_summary(tc)
    return Check("CANN toolkit", ok, detail)


def _npu(tc: Toolchain | None = None) -> Check:
    """The devices the driver shows (/dev/davinci<N>) and, with torch_npu, how many torch sees."""
    tc = tc if tc is not None else detect()
    if not tc.devices:
        return Check("NPU", False, tc.reasons["npu"])
    shown = f"{len(tc.devices)} device file(s) ({', '.join(tc.devices[:4])}{', ...' if len(tc.devices) > 4 else ''})"
    if tc.torch_npu is None:
        return Check("NPU", False, f"{shown}; torch cannot use them: {tc.reasons['torch_npu']}")
    try:
        import torch_npu  # noqa: F401
        import torch
        count = torch.npu.device_count()
    except Exception as exc:      # an import can fail in many ways; say which
        return Check("NPU", False, f"{shown}; importing torch_npu failed: {type(exc).__name__}: {exc}".splitlines()[0])
    return Check("NPU", count > 0, f"{shown}; torch_npu sees {count}" if count else f"{shown}; torch_npu sees none")


PART_LABEL = {"toolkit": "a CANN toolkit", "bisheng": "bisheng", "asc_cmake": "the AscendC CMake package",
              "cann_version": "a newer CANN", "torch_npu": "torch_npu", "npu": "an NPU"}


def _npu_path(tc: Toolchain | None = None) -> Check:
    """Each NPU action and exactly what it still lacks here (detect.py's root causes; the rows above say how
    to get each, and cmake, which no row above covers, says it here)."""
    tc = tc if tc is not None else detect()
    def missing(action: str, before: list[str]) -> list[str]:
        return [PART_LABEL.get(p) or tc.reasons[p] for p in tc.missing_parts(action) if p not in before]
    build = tc.missing_parts("build")
    run = missing("run", build)
    if not build and not run:
        return Check("NPU path", True, "build, check --backend cann and profile can run here")
    text = ("build: ready" if not build else "build needs " + ", ".join(missing("build", [])))
    if run:
        text += " | check --backend cann and profile need " + ("also " if build else "") + ", ".join(run)
    return Check("NPU path", False, text)


def _llm(timeout: float = 3.0) -> Check:
    """The endpoint as the LLM engine would resolve it (environment and config file); an invalid
    config file is reported as such, not as "not configured"."""
    try:
        cfg = LlmConfig.resolve()
    except LlmError as exc:
        return Check("LLM endpoint", False, f"invalid configuration: {str(exc).splitlines()[0]}")
    key = "key set" if cfg.has_key else "no OPENAI_API_KEY"
    if not os.environ.get(ENV_BASE_URL) and "file" not in cfg.source:
        return Check("LLM endpoint", False,
                     f"not configured (OPENAI_BASE_URL unset, no config file; model {cfg.model}; {key})")
    url = cfg.base_url.rstrip("/") + "/models"
    try:
        with urllib.request.urlopen(urllib.request.Request(url), timeout=timeout) as reply:
            status = f"reachable (HTTP {reply.status})"
    except urllib.error.HTTPError as exc:  # 401 still proves the server is there
        status = f"reachable (HTTP {exc.code})"
    except Exception as exc:
        return Check("LLM endpoint", False,
                     f"{cfg.base_url} unreachable: {type(exc).__name__}; model {cfg.model}; {key}")
    return Check("LLM endpoint", True, f"{cfg.base_url} {status}; model {cfg.model}; {key} ({cfg.source})")


RAY_MIN = (2, 40)


def _ray() -> Check:
    """Ray for `bench --executor ray`, from its installed metadata: importing Ray takes seconds."""
    try:
        version = importlib.metadata.version("ray")
    except importlib.metadata.PackageNotFoundError:
        return Check("Ray", False, "not installed (only `bench --executor ray` needs it: "
                                   "pip install 'ascendcraft-lab[ray]')")
    try:
        too_old = tuple(int(x) for x in version.split(".")[:2]) < RAY_MIN
    except ValueError:
        too_old = False
    if too_old:
        return Check("Ray", False,
                     f"{version} is older than {RAY_MIN[0]}.{RAY_MIN[1]}: pip install 'ascendcraft-lab[ray]'")
    detail = version
    if importlib.util.find_spec("grpc") is None:      # what Ray Client adds (ray[client])
        detail += "; without Ray Client: --address ray://HOST:PORT needs pip install 'ray[client]'"
    if os.environ.get("RAY_ADDRESS"):
        detail += f"; RAY_ADDRESS={os.environ['RAY_ADDRESS']}"
    return Check("Ray", True, detail)


def run_checks(toolchain: Toolchain | None = None) -> list[Check]:
    tc = toolchain if toolchain is not None else detect()
    return [
        _python(),
        _module("numpy", True),
        _module("torch", True),
        _gxx(),
        _emulator(),
        _cann(tc),
        _module("torch_npu", False),
        _npu(tc),
        _npu_path(tc),
        _llm(),
        _ray(),
    ]


def render(checks: list[Check]) -> str:
    width = max(len(c.name) for c in checks)
    lines = [f"{'component':<{width}}  status   detail", f"{'-' * width}  -------  ------"]
    for c in checks:
        mark = "ok" if c.ok else ("MISSING" if c.required else "absent")
        lines.append(f"{c.name:<{width}}  {mark:<7}  {c.detail}")
    offline = all(c.ok for c in checks if c.required)
    lines.append("")
    lines.append("offline pipeline (DSL, passes, emulator): "
                 + ("ready" if offline else "NOT ready: fix the MISSING rows"))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(prog="ascendcraft doctor", description="What this machine can do: g++, the emulator, "
                            "CANN, torch_npu, an NPU, the LLM endpoint, Ray.").parse_args([] if argv is None else argv)
    checks = run_checks()
    print(render(checks))
    return 0 if all(c.ok for c in checks if c.required) else 1
