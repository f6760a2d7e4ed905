"""Generated projects built by the real CMake against a CANN-shaped double (cmake_double.py): every ASC
source reaches bisheng with the SoC's --npu-arch, and every source of every dtype variant finds its
includes with the folders CMake hands it (g++ -M stands in for the compilers' preprocessors)."""
from __future__ import annotations

import dataclasses
import shutil

import pytest

from ascendcraft_lab.backends.cann.build import build_project
from ascendcraft_lab.backends.cann.detect import detect
from ascendcraft_lab.dsl.parser import parse
from ascendcraft_lab.dsl.verifier import verify
from ascendcraft_lab.engines.rule import render
from ascendcraft_lab.examples import CASE_EXAMPLES, get_example
from ascendcraft_lab.passes.bundle import Bundle, write_bundle
from ascendcraft_lab.passes.manager import LowerOptions
from ascendcraft_lab.passes.variants import variant_files
from ascendcraft_lab.soc import get_soc

from cmake_double import make_toolkit

pytestmark = [pytest.mark.heavy,
              pytest.mark.skipif(shutil.which("cmake") is None or shutil.which("g++") is None,
                                 reason="needs cmake and g++")]

# elementwise (vector only), cube + vector (MIX), dtype-generic (three variants in one library)
EXAMPLES = {"gelu": get_example("gelu"), "linear_relu": get_example("linear_relu"), "rms_norm_cases": CASE_EXAMPLES[0]}


def _project(example, soc: str) -> Bundle:
    """The project `ascendcraft lower` writes: the rule engine's bundle and its dtype variants."""
    options = LowerOptions(soc=soc)
    program = verify(parse(example.dsl.read_text(), example.dsl.name), soc)
    bundle = render(program, options, 4)
    files = dict(bundle.files)
    for variant in variant_files(program, options).values():
        files.update(variant.files)
    return Bundle(files)


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    """Each example's project built once with the real cmake, for Ascend910B2: (result, toolkit, project)."""
    out = {}
    for name, example in EXAMPLES.items():
        root = tmp_path_factory.mktemp(f"cmake-{name}")
        kit = make_toolkit(root / "toolkit")
        project = root / "ascendc"
        write_bundle(project, _project(example, "Ascend910B2"))
        env = kit.env(project)
        toolchain = dataclasses.replace(detect(env, dev_dir=root), torch_npu=kit.torch_npu)
        result = build_project(project, root / "build", soc="Ascend910B2", toolchain=toolchain, env=env, jobs=2,
                               timeout=600)
        out[name] = (result, kit, project)
    return out


@pytest.mark.parametrize("name", EXAMPLES)
def test_the_real_cmake_builds_the_generated_project(builds, name):
    result, _, _ = builds[name]
    assert result.ok, f"{result.message}\n{result.log}"


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_asc_source_reaches_bisheng_with_the_socs_npu_arch_and_no_cxx_source_does(builds, name):
    result, kit, project = builds[name]
    arch = get_soc("Ascend910B2").arch
    asc = kit.compiles("bisheng")
    assert asc, f"bisheng compiled nothing: {result.message}\n{result.log}"
    for source, argv in asc.items():
        assert f"--npu-arch={arch}" in argv, (source, argv)
    for source, argv in kit.compiles("c++").items():
        assert not any(a.startswith("--npu-arch") for a in argv), (source, argv)
    launches = {str(p.resolve()) for p in project.rglob("*_launch.cpp")}
    assert set(asc) == launches                       # the launch files, and only they, are ASC


def test_every_variant_of_a_dtype_generic_kernel_finds_its_tiling_header(builds):
    """The bf16 and f16 kernels include their own <entry>_tiling.h from variants/<dtype>/host."""
    result, kit, project = builds["rms_norm_cases"]
    compiled = set(kit.compiles("bisheng")) | set(kit.compiles("c++"))
    for dtype in ("f16", "bf16"):
        launch = project / "variants" / dtype / "host" / f"rms_norm_cases_{dtype}_launch.cpp"
        assert str(launch.resolve()) in compiled
    assert result.ok, result.log


def test_the_cube_and_vector_launch_reads_the_sync_base_before_the_kernel_sets_it(builds):
    """The MIX kernel's launch queries the sync base and passes it as the entry's last argument; the
    entry sets it before Init and Process, so before any cross-core flag."""
    _, _, project = builds["linear_relu"]
    launch = (project / "host" / "linear_relu_launch.cpp").read_text()
    query = launch.index("aclrtGetHardwareSyncAddr(&syncBase)")
    call = launch.index("linear_relu<<<")
    assert query < call and launch[call:].split(";")[0].endswith(", static_cast<GM_ADDR>(syncBase))")
    kernel = (project / "kernel" / "linear_relu_kernel.cpp").read_text()
    entry = kernel[kernel.index('extern "C" __global__ __aicore__ void linear_relu('):]
    assert entry.split(")", 1)[0].endswith("GM_ADDR syncBase")
    body = entry[entry.index("{"):]
    assert body.index("SetSyncBaseAddr(reinterpret_cast<uint64_t>(syncBase));") < body.index("op.Init(")
    assert "CrossCoreWaitFlag" not in body[:body.index("SetSyncBaseAddr")]
