"""What a run asks the device before launching a kernel, and how it asks.

NOT YET RUN ON HARDWARE by the project. Both queries go to CANN's runtime library (libascendcl.so)
through ctypes, never through `torch_npu.npu.get_device_name`: MultiKernelBench's
backends/ascendc_backend.py reports its hardware from a constant because "torch_npu.npu.
get_device_name(device) causes crash", and torch_npu's get_device_properties reads the same SoC
name. They run after torch_npu has initialised the device (it calls aclInit and aclrtSetDevice).

- `kernel_cores(soc)`: how many cores a launch of the session's kernels spreads over on this
  device, from `aclGetDeviceCapability(deviceId, aclDeviceInfo, int64_t *value)` (CANN API
  reference "aclGetDeviceCapability", documented from CANN 8.0): `ACL_DEVICE_INFO_VECTOR_CORE_NUM`
  (= 1) on SoCs with separate vector cores (Atlas A2: vllm-ascend's and sgl-kernel-npu's vector
  kernels read their AIV count this way), `ACL_DEVICE_INFO_AI_CORE_NUM` (= 0) where cube and vector
  share an AI core (310P);
- `core_refusal(soc, found)`: the one-line refusal when that count differs from the session SoC's.
  The tiling spreads rows over the SoC table's count, and a kernel that calls SyncAll waits for
  every block of its launch: on a device with fewer cores (a 40-core 910B3 running a 910B2
  session) some blocks never start and the launch hangs;
- `soc_name()`: `aclrtGetSocName()` (None-safe); `soc_refusal(soc)` looks the name up in the SoC
  table (soc.soc_of_device) and refuses a session lowered for a part with other core counts or
  memory sizes, naming the entry to lower for.

The ACL documentation gives no figure for what VECTOR_CORE_NUM returns on Atlas A2 (its note
counts one cube core and its vector cores as one AI core), so the evidence that it is the AIV
count is one working project, not a page: `ASCENDCRAFT_CORE_CHECK=0` turns the refusal off (the
count found is still recorded in the run).
"""
from __future__ import annotations

import ctypes
import os
from pathlib import Path

from ...soc import Soc

ACL_DEVICE_INFO_AI_CORE_NUM = 0
ACL_DEVICE_INFO_VECTOR_CORE_NUM = 1
CHECK_VAR = "ASCENDCRAFT_CORE_CHECK"


class DeviceQueryError(RuntimeError):
    """An ACL query failed; the message names the call and its error code."""


class DeviceRefusal(RuntimeError):
    """The device is not the one the session was lowered for; the message is the one-line refusal."""


def acl_library(home: Path | None = None) -> ctypes.CDLL:
    """CANN's runtime library: the toolkit's lib64 copy, else whatever the loader finds (set_env.sh
    puts lib64 on LD_LIBRARY_PATH). In a process where torch_npu loaded it, this is the same library."""
    if home is None:
        from .detect import detect
        home = detect().home
    candidate = home / "lib64" / "libascendcl.so" if home is not None else None
    try:
        return ctypes.CDLL(str(candidate) if candidate is not None and candidate.is_file() else "libascendcl.so")
    except OSError as exc:
        raise DeviceQueryError(f"cannot load libascendcl.so ({exc})") from None


def kernel_info(soc: Soc) -> int:
    """Which aclDeviceInfo counts the cores a vector kernel of `soc` runs on. The SoC table gives
    the same count to cube and vector cores exactly where they share one AI core (310P)."""
    return ACL_DEVICE_INFO_AI_CORE_NUM if soc.vector_cores == soc.cube_cores else ACL_DEVICE_INFO_VECTOR_CORE_NUM


def kernel_cores(soc: Soc, device: int = 0, *, library: ctypes.CDLL | None = None) -> int:
    lib = library if library is not None else acl_library()
    query = lib.aclGetDeviceCapability
    query.argtypes = [ctypes.c_uint32, ctypes.c_int, ctypes.POINTER(ctypes.c_int64)]
    query.restype = ctypes.c_int
    value = ctypes.c_int64(0)
    info = kernel_info(soc)
    err = query(device, info, ctypes.byref(value))
    if err:
        vector = info == ACL_DEVICE_INFO_VECTOR_CORE_NUM
        name = "ACL_DEVICE_INFO_VECTOR_CORE_NUM" if vector else "ACL_DEVICE_INFO_AI_CORE_NUM"
        raise DeviceQueryError(f"aclGetDeviceCapability({device}, {name}) failed with aclError {err}")
    return int(value.value)


def core_check_enabled(env: dict | None = None) -> bool:
    return (os.environ if env is None else env).get(CHECK_VAR, "1").strip().lower() not in ("0", "off", "no", "false")


def core_refusal(soc: Soc, found: int) -> str | None:
    """None when the device has the session SoC's core count; otherwise one line saying what to do."""
    if found == soc.vector_cores:
        return None
    from ...soc import SOCS
    matching = [s.name for s in SOCS.values() if s.vector_cores == found and s.arch == soc.arch]
    fix = (f"lower it for the device instead (--soc {matching[0]})" if matching else
           "lower it for a SoC with that many cores")
    return (f"the session was lowered for {soc.name} ({soc.vector_cores} vector cores) but the device reports {found}: "
            f"its tiling would be wrong and a kernel that syncs all cores would hang; {fix}, or set {CHECK_VAR}=0 "
            "if this count is not the number of cores a kernel runs on")


def kernel_facts(soc: Soc) -> tuple:
    """What a lowered kernel depends on: its core counts and memory sizes (the tiling and the buffers)."""
    return (soc.arch, soc.vector_cores, soc.cube_cores, soc.ub_usable, soc.l1_bytes, soc.l0a_bytes, soc.l0b_bytes,
            soc.l0c_bytes)


def soc_refusal(soc: Soc, *, library: ctypes.CDLL | None = None) -> tuple[str | None, str | None]:
    """(the chip's SoC name, the one-line refusal or None). The name selects the chip's SoC table entry
    (soc.soc_of_device); a session lowered for a part with other core counts or memory sizes is refused,
    naming the entry to lower for. A name the table lacks refuses nothing (the core count is still checked)."""
    from ...soc import soc_of_device
    try:
        name = soc_name(library=library)
    except (AttributeError, OSError):          # an ACL without the call: the core count decides alone
        return None, None
    entry = soc_of_device(name)
    if entry is None or kernel_facts(entry) == kernel_facts(soc):
        return name, None
    return name, (f"the session was lowered for {soc.name} but the device is {entry.name} ({entry.vector_cores} "
                  f"vector cores, {entry.cube_cores} cube cores): its tiling and buffers would be wrong; lower it for "
                  f"the device (--soc {entry.name}), or set {CHECK_VAR}=0 to run it anyway")


def soc_name(*, library: ctypes.CDLL | None = None) -> str | None:
    lib = library if library is not None else acl_library()
    get = lib.aclrtGetSocName
    get.argtypes = []
    get.restype = ctypes.c_char_p
    name = get()
    return name.decode(errors="replace") if name else None
