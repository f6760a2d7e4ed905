"""The generated torch binding's host side: the stream it launches on, the order of its work, and
the tiling it uploads once; checked on every example's text and, for one, by building it with
g++ against PyTorch's real headers (torch_npu and ACL replaced by fixtures/npu_stubs) and calling
it on CPU tensors."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from ascendcraft_lab.dsl.parser import parse
from ascendcraft_lab.dsl.verifier import verify
from ascendcraft_lab.engines.rule import render
from ascendcraft_lab.examples import EXAMPLES, get_example
from ascendcraft_lab.export.common import load_dsl_file
from ascendcraft_lab.export.direct import export_direct
from ascendcraft_lab.passes.manager import LowerOptions

STUBS = Path(__file__).parent / "fixtures" / "npu_stubs"


def _project(example) -> dict[str, str]:
    return render(verify(parse(example.dsl.read_text(), example.dsl.name)), LowerOptions(), 4).files


def _function_body(text: str, head: str) -> list[str]:
    """The statements of the function whose signature starts with `head`, comments dropped."""
    start = text.index(head)
    body = text[text.index("{", start) + 1:text.index("\n}\n", start)]
    return [line.strip() for line in body.splitlines() if line.strip() and not line.strip().startswith("//")]


def _assert_flushed_stream_is_last_before(lines: list[str], launch: str) -> None:
    [flush] = [i for i, line in enumerate(lines) if ".stream(true)" in line]
    # a cube + vector kernel's launch returns the sync-base query's error: `const ... launched = Launch...`
    assert re.sub(r"^const \w+ launched = ", "", lines[flush + 1]).startswith(launch), lines[flush:flush + 2]
    queued = [i for i, line in enumerate(lines) if re.search(r"\bat::(zeros|empty)\(|DeviceTiling\(", line)]
    assert queued and max(queued) < flush          # every allocation, zeroing and upload is queued before it


@pytest.mark.parametrize("ex", EXAMPLES, ids=[e.name for e in EXAMPLES])
def test_the_binding_takes_the_flushed_stream_as_its_last_statement_before_the_launch(ex):
    files = _project(ex)
    torch_cpp = next(text for path, text in files.items() if path.startswith("torch/"))
    lines = _function_body(torch_cpp, "_npu(const at::Tensor")
    _assert_flushed_stream_is_last_before(lines, "Launch")
    assert ".stream(false)" not in torch_cpp


# a kernel with scalar parameters binds them from the reference, which runs in a child: the heavy tier
@pytest.mark.parametrize("ex", [pytest.param(e, id=e.name, marks=[pytest.mark.heavy] if re.search(
    r": (f32|i32)[,)]", e.dsl.read_text()) else []) for e in EXAMPLES if "Workspace[" in e.dsl.read_text()]
    + [get_example("gelu")])
def test_the_direct_launch_export_takes_the_flushed_stream_last_too(ex):
    src = load_dsl_file(ex.dsl, reference=ex.reference)
    files = {s["path"]: s["content"] for s in export_direct(src)["sources"]}
    lines = _function_body(files["kernel/pybind11.cpp"], f" {src.op}(const at::Tensor")
    [flush] = [i for i, line in enumerate(lines) if ".stream(true)" in line]
    assert re.sub(r"^const \w+ launched = ", "", lines[flush + 1]).startswith(f"launch_{src.plan.entry}(")
    assert all(i < flush for i, line in enumerate(lines) if re.search(r"\bat::(zeros|empty)\(", line))
    assert ".stream(false)" not in files["kernel/pybind11.cpp"]


def test_the_timed_path_makes_no_host_to_device_copy_of_a_known_tiling():
    torch_cpp = _project(get_example("gelu"))["torch/gelu_torch.cpp"]
    lines = _function_body(torch_cpp, "gelu_npu(")
    assert not [line for line in lines if "from_blob" in line or ".to(" in line]      # only inside DeviceTiling
    upload = _function_body(torch_cpp, "at::Tensor DeviceTiling(")
    assert upload[0].startswith("static std::mutex") and "static auto *uploaded = new std::map" in upload[1]


@pytest.mark.heavy
def test_the_binding_builds_warning_free_and_on_cpu_zeroes_flushes_and_uploads_each_tiling_once(tmp_path):
    """frobenius_norm: a Workspace plus SyncAll's flags (zeroed), so every property at once."""
    torch = pytest.importorskip("torch")
    from torch.utils.cpp_extension import include_paths, library_paths
    files = _project(get_example("frobenius_norm"))
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    (tmp_path / "harness.cpp").write_text(r'''
#include "torch/frobenius_norm_torch.cpp"
#include <cstdio>
#include <cstring>
#include <vector>

static std::vector<void *> tilings;
static std::vector<bool> zeroed, flushed;

void LaunchFrobeniusNorm(uint32_t blockDim, aclrtStream, void *, void *, void *workspace, void *tiling) {
    const int64_t bytes = (1 * sizeof(float) + 31) / 32 * 32 + static_cast<int64_t>(blockDim) * 32;
    std::vector<unsigned char> none(bytes, 0);
    zeroed.push_back(std::memcmp(workspace, none.data(), bytes) == 0);
    flushed.push_back(c10_npu::flushedStreamRequests == static_cast<int>(tilings.size()) + 1 &&
                      c10_npu::rawStreamRequests == 0);
    tilings.push_back(tiling);
}

int main() {
    at::Tensor a = at::randn({2, 3, 4, 5}), b = at::randn({2, 3, 4, 7});
    frobenius_norm_npu(a);
    frobenius_norm_npu(a);
    frobenius_norm_npu(b);
    FrobeniusNormTiling expected{};
    FrobeniusNormTilingFunc(2, 3, 4, 5, expected);
    const bool same = tilings[0] == tilings[1] && tilings[2] != tilings[0];
    const bool bytes = std::memcmp(tilings[0], &expected, sizeof(expected)) == 0;
    std::printf("%d %d %d %d %d\n", same, bytes, int(zeroed[0] && zeroed[1] && zeroed[2]),
                int(flushed[0] && flushed[1] && flushed[2]), int(tilings.size()));
    return 0;
}
''')
    abi = int(torch.compiled_with_cxx11_abi())
    cmd = ["g++", "-std=c++17", "-O0", "-Wall", "-Wextra", "-Werror", f"-D_GLIBCXX_USE_CXX11_ABI={abi}",
           "-I", str(STUBS), "-I", str(tmp_path / "host")]
    cmd += [a for p in include_paths() for a in ("-isystem", p)]
    cmd += [str(tmp_path / "harness.cpp"), str(tmp_path / "host" / "frobenius_norm_tiling.cpp"),
            "-o", str(tmp_path / "run")]
    cmd += [a for p in library_paths() for a in (f"-L{p}", f"-Wl,-rpath,{p}")] + ["-ltorch", "-ltorch_cpu", "-lc10"]
    built = subprocess.run(cmd, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-3000:]
    ran = subprocess.run([str(tmp_path / "run")], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr[-2000:]
    # one upload per distinct tiling, holding the tiling function's bytes; the workspace zero at
    # the launch; and the stream asked for with stream(true) right before each launch
    assert ran.stdout.split() == ["1", "1", "1", "1", "3"], ran.stdout


if sys.platform != "linux":           # the build above links libtorch the Linux way
    pytestmark = pytest.mark.skip("Linux only")
