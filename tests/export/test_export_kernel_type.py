"""The exports launch a kernel the way the session's entry declares it: the kernel type (what blockDim
counts) and, for a cube + vector kernel, the cross-core sync base read on the host and set before any flag.
Checked on the exported source text, parsed the way the compiler meets it: the entry's own statements."""
from __future__ import annotations

import functools
import re

import pytest

from ascendcraft_lab.examples import get_example
from ascendcraft_lab.export.common import load_dsl_file
from ascendcraft_lab.export.direct import export_direct
from ascendcraft_lab.export.mkb import export_mkb
from ascendcraft_lab.passes.cpp import strip_comments

KINDS = {"gelu": None, "matmul": "KERNEL_TYPE_AIC_ONLY", "linear_relu": "KERNEL_TYPE_MIX_AIC_1_2"}


@functools.lru_cache(maxsize=None)
def _lowered(name: str):
    ex = get_example(name)
    return load_dsl_file(ex.dsl, reference=ex.reference)


def _entry(text: str, name: str) -> tuple[list[str], list[str]]:
    """(parameter declarations, statements) of the `__global__` function `name` in C++ `text`."""
    code = strip_comments(text)
    m = re.search(rf"__global__ __aicore__ void {re.escape(name)}\(([^)]*)\)\s*\{{", code)
    assert m, f"no __global__ entry {name}"
    depth, i = 1, m.end()
    while depth:
        depth += {"{": 1, "}": -1}.get(code[i], 0)
        i += 1
    body = code[m.end():i - 1]
    return [p.strip() for p in m.group(1).split(",")], [s.strip() for s in body.split(";") if s.strip()]


def _kernel_type(statements: list[str]) -> str | None:
    found = [re.fullmatch(r"KERNEL_TASK_TYPE_DEFAULT\((\w+)\)", s) for s in statements]
    kinds = [m.group(1) for m in found if m]
    assert len(kinds) <= 1
    return kinds[0] if kinds else None


@pytest.fixture(scope="module", params=sorted(KINDS))
def source(request):
    return request.param, _lowered(request.param)


def test_the_sessions_entry_declares_the_kernels_type(source):
    name, src = source
    _, statements = _entry(src.bundle[src.plan.kernel_path], src.plan.entry)
    assert _kernel_type(statements) == KINDS[name]


def test_the_direct_launch_entry_declares_the_sessions_kernel_type(source):
    name, src = source
    files = {s["path"]: s["content"] for s in export_direct(src)["sources"]}
    _, statements = _entry(files[f"kernel/{src.plan.op}_kernel.cpp"], src.plan.entry)
    assert _kernel_type(statements) == KINDS[name]
    if KINDS[name]:
        assert statements[0].startswith("KERNEL_TASK_TYPE_DEFAULT(")      # before anything runs


def test_the_six_string_entry_declares_the_sessions_kernel_type():
    src = _lowered("matmul")           # the MIX kernel syncs, which the six-string export refuses
    fields = export_mkb(src)
    _, statements = _entry(fields["kernel_src"], f"{src.op}_custom")
    assert _kernel_type(statements) == "KERNEL_TYPE_AIC_ONLY"


@pytest.mark.parametrize("form", ["session", "direct"])
def test_a_mix_kernel_sets_the_hosts_sync_base_before_any_cross_core_flag(form):
    src = _lowered("linear_relu")
    if form == "session":
        kernel, launch = src.bundle[src.plan.kernel_path], src.bundle[src.plan.host_path]
    else:
        files = {s["path"]: s["content"] for s in export_direct(src)["sources"]}
        kernel = launch = files[f"kernel/{src.plan.op}_kernel.cpp"]
    params, statements = _entry(kernel, src.plan.entry)
    assert params[-1] == "GM_ADDR syncBase"
    sets = [i for i, s in enumerate(statements) if s == "SetSyncBaseAddr(reinterpret_cast<uint64_t>(syncBase))"]
    assert sets and sets[0] < next(i for i, s in enumerate(statements) if s.startswith("op.Init("))
    # the class's flags all run inside Process, after the entry set the base
    assert not any("CrossCore" in s for s in statements[:sets[0]])
    # the host reads the base with ACL before the launch, which passes it as the last argument
    code = strip_comments(launch)
    query = code.index("aclrtGetHardwareSyncAddr(&syncBase)")
    call = re.search(rf"{src.plan.entry}<<<[^;]*>>>\(([^;]*)\);", code)
    assert call and query < call.start()
    assert call.group(1).split(",")[-1].strip() in ("static_cast<GM_ADDR>(syncBase)",)


def test_a_vector_or_cube_kernel_takes_no_sync_base():
    for name in ("gelu", "matmul"):
        src = _lowered(name)
        params, statements = _entry(src.bundle[src.plan.kernel_path], src.plan.entry)
        assert "GM_ADDR syncBase" not in params and not any("SetSyncBaseAddr" in s for s in statements)


@pytest.mark.parametrize("soc, family", [("Ascend910B4", "ascend910b"), ("Ascend910_9392", "ascend910_93")])
def test_the_six_string_op_registers_for_the_chips_family(soc, family):
    """msopgen builds the op for the SoC families its OpDef adds (an A3 part is "ascend910_93")."""
    ex = get_example("gelu")
    src = load_dsl_file(ex.dsl, reference=ex.reference, soc=soc)
    host = export_mkb(src)["host_operator_src"]
    assert re.findall(r'AddConfig\("(\w+)"\)', host) == [family]
