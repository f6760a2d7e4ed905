"""What this machine has for the NPU path, and the one-line refusal when something is missing.

Every NPU action (build, run, profile) starts with `refuse_reason(action)`: `None` when the
action can go ahead, otherwise ONE line naming what is missing and how to get it. Nothing
here imports torch_npu or touches a device: presence is found from the environment, the
file system and `importlib.util.find_spec`, so detection is cheap and never crashes.

What is looked for (CANN's documented layout, see `backends/cann/__init__.py` for sources):
- the toolkit: `ASCEND_HOME_PATH` (set by CANN's `set_env.sh`) or the older `ASCEND_TOOLKIT_HOME`;
- bisheng, CANN's AscendC compiler: on PATH (set_env.sh puts it there) or under the toolkit
  (`compiler/ccec_compiler/bin`, `<arch>-linux/ccec_compiler/bin`, `bin`);
- the AscendC CMake package (`ASCConfig.cmake`, what `find_package(ASC)` loads): `ASC_DIR`,
  then the toolkit's `lib64/cmake/ASC`, `<arch>-linux/lib64/cmake[/ASC]`, the
  `ascendc_kernel_cmake` folders, then a bounded search of the toolkit;
- the toolkit's version, from the `version=` line of its `ascend_toolkit_install.info` (under
  `<arch>-linux/`, where torch_npu and triton-ascend read it): the generated CMake project follows
  the pattern asc-devkit's compile samples state for Atlas A2 / A3 from CANN 9.0.0 on
  (passes/host.py MIN_CANN_FOR_FIND_PACKAGE_ASC); an older toolkit refuses the build and points
  at the exports, which MultiKernelBench builds with its own CMake;
- `cmake` on PATH;
- torch_npu importable (found, not imported);
- an NPU: the Ascend driver's device files `/dev/davinci<N>`.
"""
from __future__ import annotations

import importlib.util
import os
import platform
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from ...passes.host import MIN_CANN_FOR_FIND_PACKAGE_ASC

HOME_VARS = ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME")
# Where CANN installs by default; only used to tell the user which set_env.sh to source.
DEFAULT_INSTALLS = ("/usr/local/Ascend/cann", "/usr/local/Ascend/ascend-toolkit/latest",
                    "~/Ascend/cann", "~/Ascend/ascend-toolkit/latest")
ASC_CONFIG_NAMES = ("ASCConfig.cmake", "asc-config.cmake")

# What each action needs. `npu` only for actions that touch the chip.
NEEDS: dict[str, tuple[str, ...]] = {
    "build": ("toolkit", "bisheng", "cmake", "asc_cmake", "cann_version", "torch_npu"),
    "run": ("toolkit", "bisheng", "cmake", "asc_cmake", "cann_version", "torch_npu", "npu"),
    "profile": ("toolkit", "bisheng", "cmake", "asc_cmake", "cann_version", "torch_npu", "npu"),
}
VERSION_FILES = ("{arch}-linux/ascend_toolkit_install.info", "ascend_toolkit_install.info")
ACTION_WORDS = {"build": "build for the NPU", "run": "run on the NPU", "profile": "profile on the NPU"}


@dataclass(frozen=True)
class Toolchain:
    """The NPU toolchain as found; a missing part is None (or 0 devices) with a reason."""
    home: Path | None
    home_var: str | None
    bisheng: Path | None
    cmake: Path | None
    asc_cmake_dir: Path | None
    torch_npu: Path | None
    devices: tuple[str, ...] = ()
    reasons: Mapping[str, str] = field(default_factory=dict)
    version: str | None = None          # the toolkit's CANN version, when its install info says

    @property
    def arch_prefix(self) -> str:
        return f"{platform.machine()}-linux"

    def has(self, part: str) -> bool:
        return {"toolkit": self.home is not None, "bisheng": self.bisheng is not None,
                "cmake": self.cmake is not None, "asc_cmake": self.asc_cmake_dir is not None,
                "cann_version": not cann_older_than_required(self.version),
                "torch_npu": self.torch_npu is not None, "npu": bool(self.devices)}[part]

    def missing_parts(self, action: str = "run") -> list[str]:
        """The parts `action` needs that are missing, root causes only: without a toolkit,
        its compiler and CMake package are not listed separately."""
        parts = [p for p in NEEDS[action] if not self.has(p)]
        if "toolkit" in parts:
            parts = [p for p in parts if p not in ("bisheng", "asc_cmake", "cann_version")]
        return parts

    def missing(self, action: str = "run") -> list[str]:
        """Why each missing part is missing, with what to do about it."""
        return [self.reasons[p] for p in self.missing_parts(action)]


def _home(env: Mapping[str, str]) -> tuple[Path | None, str | None, str]:
    for var in HOME_VARS:
        value = env.get(var)
        if value:
            path = Path(value).expanduser()
            if path.is_dir():
                return path, var, ""
            return None, var, f"no CANN toolkit ({var}={value} is not a directory)"
    installed = next((Path(p).expanduser() for p in DEFAULT_INSTALLS if Path(p).expanduser().is_dir()), None)
    if installed is not None:
        return None, None, f"no CANN toolkit in the environment (source {installed}/set_env.sh)"
    return None, None, ("no CANN toolkit (ASCEND_HOME_PATH and ASCEND_TOOLKIT_HOME unset; "
                        "install CANN and source its set_env.sh)")


def _bisheng(home: Path | None, env: Mapping[str, str]) -> Path | None:
    found = shutil.which("bisheng", path=env.get("PATH", ""))
    if found:
        return Path(found)
    if home is None:
        return None
    for rel in ("compiler/ccec_compiler/bin", f"{platform.machine()}-linux/ccec_compiler/bin", "bin",
                "tools/ccec_compiler/bin"):
        candidate = home / rel / "bisheng"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def _asc_cmake(home: Path | None, env: Mapping[str, str], max_depth: int = 6) -> Path | None:
    """The folder holding ASCConfig.cmake: the documented places first, then a bounded search."""
    def holds(d: Path) -> bool:
        return any((d / n).is_file() for n in ASC_CONFIG_NAMES)

    if env.get("ASC_DIR") and holds(Path(env["ASC_DIR"])):
        return Path(env["ASC_DIR"])
    if home is None:
        return None
    arch = f"{platform.machine()}-linux"
    for rel in ("lib64/cmake/ASC", "lib64/cmake", f"{arch}/lib64/cmake/ASC", f"{arch}/lib64/cmake",
                "compiler/tikcpp/ascendc_kernel_cmake", "tools/tikcpp/ascendc_kernel_cmake"):
        if holds(home / rel):
            return home / rel
    for root, dirs, files in os.walk(home):
        depth = len(Path(root).relative_to(home).parts)
        if any(n in files for n in ASC_CONFIG_NAMES):
            return Path(root)
        if depth >= max_depth:
            dirs[:] = []
    return None


def cann_version(home: Path | None) -> str | None:
    """The `version=` of the toolkit's install info (e.g. 8.3.RC1, 8.5.0), or None when it has none."""
    if home is None:
        return None
    for rel in VERSION_FILES:
        try:
            text = (home / rel.format(arch=platform.machine())).read_text(errors="replace")
        except OSError:
            continue
        m = re.search(r"(?m)^\s*version\s*=\s*(\S+)", text)
        if m:
            return m.group(1)
    return None


def version_key(version: str) -> tuple[int, ...] | None:
    """Orders CANN versions: 8.2.RC1 < 8.3.RC1.alpha002 < 8.3.RC1 < 8.5.0 < 9.0.0-beta.1 < 9.0.0;
    None when the text is not a CANN version."""
    m = re.fullmatch(r"(\d+)\.(\d+)\.(?:RC(\d+)|(\d+))(?:[.-]?(?:alpha|beta)\.?(\d+))?", version.strip(), re.I)
    if m is None:
        return None
    major, minor, rc, patch, pre = m.groups()
    final = 1 if rc is None else 0                       # an RC comes before the release of its minor version
    return (int(major), int(minor), final, int(rc if rc is not None else patch), int(pre) if pre else 1 << 30)


def cann_older_than_required(version: str | None) -> bool:
    """True only for a known version older than the one find_package(ASC) needs; an unknown one may pass."""
    key = version_key(version) if version else None
    return key is not None and key < version_key(MIN_CANN_FOR_FIND_PACKAGE_ASC)


def _devices(dev_dir: Path) -> tuple[str, ...]:
    try:
        return tuple(sorted(p.name for p in dev_dir.iterdir() if re.fullmatch(r"davinci\d+", p.name)))
    except OSError:
        return ()


def detect(env: Mapping[str, str] | None = None, *, dev_dir: str | Path = "/dev") -> Toolchain:
    """Find the toolchain. `env` defaults to os.environ; tests pass their own (and a `dev_dir`)."""
    env = dict(os.environ if env is None else env)
    home, home_var, home_reason = _home(env)
    bisheng = _bisheng(home, env)
    cmake = shutil.which("cmake", path=env.get("PATH", ""))
    asc = _asc_cmake(home, env)
    spec = importlib.util.find_spec("torch_npu")
    torch_npu = Path(spec.origin).parent if spec is not None and spec.origin else None
    devices = _devices(Path(dev_dir))
    version = cann_version(home)
    reasons = {
        "toolkit": home_reason,
        "bisheng": f"bisheng not found (not on PATH nor under {home}/compiler/ccec_compiler/bin)",
        "cmake": "cmake not found on PATH (CMake 3.16 or newer)",
        "asc_cmake": f"the AscendC CMake package (ASCConfig.cmake) is not under {home}; set ASC_DIR to its folder",
        "cann_version": (f"CANN {version} is older than {MIN_CANN_FOR_FIND_PACKAGE_ASC}, the first whose samples "
                         "build ASC and C++ sources into one CMake target as the generated project does; "
                         "`ascendcraft export --format mkb|mkb-direct` still works there (MultiKernelBench builds the "
                         "exports with its own CMake)"),
        "torch_npu": "torch_npu is not installed (pip install torch_npu matching your torch and CANN)",
        "npu": f"no Ascend NPU visible (no {Path(dev_dir) / 'davinci<N>'} device)",
    }
    return Toolchain(home, home_var, bisheng, Path(cmake) if cmake else None, asc, torch_npu, devices, reasons, version)


def refuse_reason(action: str = "run", toolchain: Toolchain | None = None) -> str | None:
    """None when `action` (build, run or profile) can go ahead; otherwise one line saying why not."""
    if action not in NEEDS:
        raise ValueError(f"unknown NPU action {action!r}; one of {', '.join(NEEDS)}")
    tc = toolchain if toolchain is not None else detect()
    missing = tc.missing(action)
    if not missing:
        return None
    return f"cannot {ACTION_WORDS[action]} here: " + "; ".join(missing)


def toolkit_summary(tc: Toolchain | None = None) -> tuple[bool, str]:
    """(ok, detail) for `ascendcraft doctor`'s CANN row: toolkit, bisheng and the CMake package."""
    tc = tc if tc is not None else detect()
    build_parts = ("toolkit", "bisheng", "asc_cmake", "cann_version")
    missing = [tc.reasons[p] for p in tc.missing_parts("build") if p in build_parts]
    if missing:
        return False, "not available: " + "; ".join(missing)
    version = (f"CANN {tc.version}" if tc.version else
               f"CANN version unknown (no ascend_toolkit_install.info); "
               f"the build needs {MIN_CANN_FOR_FIND_PACKAGE_ASC} or newer")
    return True, f"{tc.home}, {version} (bisheng: {tc.bisheng}; CMake package: {tc.asc_cmake_dir})"
