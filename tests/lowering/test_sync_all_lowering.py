"""sync_all() in the generated project: SyncAll's soft form, since our launch is a direct <<<>>> launch.

CANN supports the hardware `SyncAll()` only in custom-op projects; a kernel-launch project uses
`SyncAll(gmWorkspace, ubWorkspace)` with >= 32 B of zeroed GM and >= 32 B of UB per core. The GM
flags follow the Workspace tensors in the host-zeroed `workspace` argument (one size formula for
the torch binding, the direct export and the emulator runs), and the UB work area is counted in
the UB plan and left out of `ub_elems`, so the verifier's budget, the host tiling and the
kernel's InitBuffer calls agree.
"""
from __future__ import annotations
import pytest

import re
import textwrap

from ascendcraft_lab.dsl.buffers import ub_buffers
from ascendcraft_lab.reference.bind import bind
from ascendcraft_lab.dsl.host import evaluate_host, ub_elems, workspace_layout
from ascendcraft_lab.dsl.ir import DType
from ascendcraft_lab.dsl.parser import parse
from ascendcraft_lab.dsl.verifier import verify
from ascendcraft_lab.engines.rule import RuleEngine, render
from ascendcraft_lab.examples import get_example
from ascendcraft_lab.passes.manager import LowerOptions, run_pipeline
from ascendcraft_lab.backends.emulator.verify import check_emulator, render_run
from ascendcraft_lab.reference import load_reference
from ascendcraft_lab.soc import get_soc


def _frobenius():
    ex = get_example("normalization/frobenius_norm")
    return ex, verify(parse(ex.dsl.read_text(), str(ex.dsl)))


def test_the_kernel_calls_the_soft_form_with_flags_after_the_workspace_tensors():
    _, program = _frobenius()
    files = render(program, LowerOptions(), 4).files
    kernel = files["kernel/frobenius_norm_kernel.cpp"]
    assert "SyncAll(syncFlagsGm, syncWork);" in kernel
    assert not re.search(r"^\s*SyncAll(<[^>]*>)?\(\);", kernel, re.M)      # never the hardware form
    assert "syncFlagsGm.SetGlobalBuffer((__gm__ int32_t *)(workspace + (1 * sizeof(float) + 31) / 32 * 32), " \
           "GetBlockNum() * SYNC_ALL_INTS);" in kernel
    assert "pipe.InitBuffer(syncWorkBuf, SYNC_ALL_MAX_CORES * SYNC_ALL_INTS * sizeof(int32_t));" in kernel
    torch_cpp = files["torch/frobenius_norm_torch.cpp"]
    assert "workspaceBytes = (1 * sizeof(float) + 31) / 32 * 32 + static_cast<int64_t>(blockDim) * 32;" in torch_cpp
    assert "at::zeros({workspaceBytes}" in torch_cpp


@pytest.mark.heavy
def test_the_ub_plan_counts_the_work_area_and_ub_elems_leaves_it_out():
    ex, program = _frobenius()
    soc = get_soc()
    ref = load_reference(ex.reference)
    inputs, _ = bind(program, ref)
    launch = evaluate_host(program, {"x": inputs["x"].shape}, {}, soc)
    reserved = ub_elems(soc, DType.f32, live=3, reserve=soc.vector_cores * 32)
    assert launch["tile"] == reserved < ub_elems(soc, DType.f32, live=3)
    usage = ub_buffers(program).usage({**{f"t.{k}": v for k, v in launch.items()}}, soc)
    assert usage.sync_bytes == soc.vector_cores * 32
    assert "SyncAll work area" in usage.breakdown()
    assert usage.total() <= soc.ub_usable
    # the emulator's workspace: the one float, 32-byte aligned, then 32 B of flags per block
    assert workspace_layout(program, {}, soc, launch["cores"])[1] == 32 + 32 * launch["cores"]


REFERENCE = '''
import torch

class Model(torch.nn.Module):
    def forward(self, x):
        return x * 2.0 + 1.0

N = 1000

def get_inputs():
    return [torch.randn(N)]

def get_init_inputs():
    return []
'''

# sync_all() with no Workspace tensor: the launch's workspace still carries SyncAll's flags.
SYNC_ONLY = '''
@host
def tiling(x: Tensor[f32, (N,)]):
    chunk = align_up(cdiv(N, VECTOR_CORES), 8)
    cores = cdiv(N, chunk)
    return Launch(cores, chunk=chunk, tile=min(ub_elems(f32, live=2), chunk))


@kernel
def twice_plus_one(x: GM[f32, (N,)], y: Out[f32, (N,)], t: Tiling):
    for part in core_chunk(t.chunk, N):
        for c in tiles(part, t.tile):
            with copyin:
                xu = load(x[c])
            with compute:
                yu = xu * 2.0
            with copyout:
                store(y[c], yu)
    sync_all()
    for again in core_chunk(t.chunk, N):
        for c in tiles(again, t.tile):
            with copyin:
                yl = load(x[c])
            with compute:
                zu = yl * 2.0 + 1.0
            with copyout:
                store(y[c], zu)
'''


@pytest.mark.heavy
def test_a_kernel_that_only_syncs_gets_a_workspace_for_the_flags_and_runs_clean(tmp_path):
    ref_path = tmp_path / "twice_plus_one.py"
    ref_path.write_text(textwrap.dedent(REFERENCE))
    program = verify(parse(SYNC_ONLY, "twice_plus_one.dsl.py"))
    ref = load_reference(ref_path)
    inputs, _ = bind(program, ref)
    options = LowerOptions(shapes={"x": inputs["x"].shape})
    steps = run_pipeline(program, RuleEngine(), options)
    assert [f.render() for s in steps for f in s.findings] == []
    kernel = steps[-1].bundle.files["kernel/twice_plus_one_kernel.cpp"]
    assert "(void)workspace" not in kernel and "op.Init(x, y, workspace, tilingData);" in kernel
    assert "syncFlagsGm.SetGlobalBuffer((__gm__ int32_t *)(workspace), GetBlockNum() * SYNC_ALL_INTS);" in kernel
    verdict, run = check_emulator(program, steps[-1].bundle, ref)
    assert run.findings == [], render_run(run, program)
    assert verdict.correct, verdict.summary()


def test_a_workspace_indexed_by_the_core_rows_variable_keeps_whole_indices():
    """The cores share a Workspace: its GlobalTensor is the whole scratch, so a row the core owns is
    at its whole index (mhc/pre_mapping: `hw[r, :]` stored, then read back as scalars). Once, the
    workspace was planned as sliced per core like an output, and row r was written at r - rBegin:
    every core's first row collided (the emulator's gm-race finding)."""
    program = verify(parse(get_example("mhc/pre_mapping").dsl.read_text(), "pre_mapping.dsl.py"))
    kernel = render(program, LowerOptions(), 4).files["kernel/pre_mapping_kernel.cpp"]
    assert "hwGm[r * tiling.N]" in kernel and "hwGm.GetValue(r * tiling.N + i)" in kernel
    assert "hwGm[(r - rBegin)" not in kernel
    assert "yGm[(r - rBegin) * tiling.C + cStart]" in kernel          # the output is still sliced per core
