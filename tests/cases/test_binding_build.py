"""The torch binding of a generic, any-rank kernel, built with g++ against PyTorch's real headers
(torch_npu and ACL replaced by tests/cann/fixtures/npu_stubs) and called on CPU tensors: a row
reduction returns the rank PyTorch gives, an empty output launches nothing, and a half tensor is
handed to the f16 variant."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ascendcraft_lab.dsl.generic import instantiate
from ascendcraft_lab.dsl.parser import parse
from ascendcraft_lab.dsl.verifier import verify
from ascendcraft_lab.engines.rule import render
from ascendcraft_lab.passes.spec import LowerOptions

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

STUBS = Path(__file__).resolve().parents[1] / "cann" / "fixtures" / "npu_stubs"

ROW_SUM = '''\
@host
def tiling(x: Tensor[T, (*S, N)]):
    cores = min(VECTOR_CORES, S)
    per_core = cdiv(S, cores)
    tile_rows = max(ub_elems(f32) // (N + 1), 1)
    return Launch(cdiv(S, per_core), per_core=per_core, tile_rows=min(tile_rows, per_core))


@kernel(T=(f32, f16))
def row_sum(x: GM[T, ((*S, N),)], y: Out[T, (*S,)], t: Tiling):
    for part in core_chunk(t.per_core, S):
        for c in tiles(part, t.tile_rows):
            with copyin:
                xu = load(x[windows(c, N, N)])
            with compute:
                yu = window_sum(xu, N, N)
            with copyout:
                store(y[c], yu)
'''

HARNESS = r'''
#include "torch/row_sum_torch.cpp"
#include <cstdio>

static int launches = 0, halves = 0;
void LaunchRowSum(uint32_t, aclrtStream, void *, void *, void *, void *) { ++launches; }
at::Tensor row_sum_f16_npu(const at::Tensor &x) { ++halves; return x; }
at::Tensor row_sum_f16_meta(const at::Tensor &x) { return x; }

int main() {
    const at::Tensor y4 = row_sum_npu(at::randn({2, 3, 4, 5}));
    const at::Tensor y1 = row_sum_npu(at::randn({7}));
    const at::Tensor empty = row_sum_npu(at::randn({0, 5}));
    const int launched = launches;
    row_sum_npu(at::randn({3, 8}).to(at::kHalf));
    const at::Tensor meta = row_sum_meta(at::randn({2, 3, 4, 5}));
    std::printf("%d %d %d %d %d %d %d %d\n", int(y4.sizes() == at::IntArrayRef({2, 3, 4})), int(y1.dim()),
                int(empty.sizes() == at::IntArrayRef({0})), launched, launches, halves,
                int(meta.sizes() == at::IntArrayRef({2, 3, 4})), int(y4.scalar_type() == at::kFloat));
    return 0;
}
'''


def test_a_generic_row_reductions_binding_shapes_dispatches_and_skips_empty_launches(tmp_path):
    torch = pytest.importorskip("torch")
    from torch.utils.cpp_extension import include_paths, library_paths
    files = render(verify(instantiate(parse(ROW_SUM, "row_sum.dsl.py"))), LowerOptions(), 4).files
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    (tmp_path / "harness.cpp").write_text(HARNESS)
    abi = int(torch.compiled_with_cxx11_abi())
    cmd = ["g++", "-std=c++17", "-O0", "-Wall", "-Wextra", "-Werror", f"-D_GLIBCXX_USE_CXX11_ABI={abi}",
           "-I", str(STUBS), "-I", str(tmp_path / "host")]
    cmd += [a for p in include_paths() for a in ("-isystem", p)]
    cmd += [str(tmp_path / "harness.cpp"), str(tmp_path / "host" / "row_sum_tiling.cpp"), "-o", str(tmp_path / "run")]
    cmd += [a for p in library_paths() for a in (f"-L{p}", f"-Wl,-rpath,{p}")] + ["-ltorch", "-ltorch_cpu", "-lc10"]
    built = subprocess.run(cmd, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-3000:]
    ran = subprocess.run([str(tmp_path / "run")], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr[-2000:]
    # (2,3,4,5) -> (2,3,4); (7,) -> 0-d; (0,5) -> (0,) with no launch (2 launches before the
    # half call, none by it); the half tensor went to the f16 variant; meta has the same shape
    assert ran.stdout.split() == ["1", "0", "1", "2", "2", "1", "1", "1"], ran.stdout


if sys.platform != "linux":           # the build links libtorch the Linux way
    pytestmark = pytest.mark.skip("Linux only")
