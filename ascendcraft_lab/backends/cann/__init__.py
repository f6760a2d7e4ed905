"""The CANN / NPU backend: build the AscendC project with CANN, run and time it on an Ascend
NPU against PyTorch, profile it, and mirror the custom op in Python for machines without one.

NOT YET RUN ON HARDWARE by the project. Everything is written against CANN's and torch_npu's
documentation; what does not need the chip (detection and refusal, the build commands, error
mapping, the profile parser, the fake op) is tested on CPU with test doubles.

Modules: `detect` (what is installed, the toolkit's version; `refuse_reason(action)` gives the
one-line refusal), `build` (CMake configure + build, preflight of the CMakeLists and the
translation units, lint of patterns working projects avoid, compiler errors -> DSL lines), `run`
(the correctness/timing check, with the project's or MultiKernelBench's draws; `check_cann`), `device`
(the core count and SoC
name through ACL), `fake` (torch.library mirror with a fake kernel, checked by
`torch.library.opcheck`), `profile` (torch_npu.profiler and `kernel_details.csv`), `signature`
(the op's schema and argument binding), `cli`.

Sources (documentation and samples' documented behaviour only; no Huawei impl/include code):
- CANN "Compilation Using CMake" (hiascend.com, CANN 8.5/9.0 programug atlas_ascendc_10_00039):
  `find_package(ASC)` then `project(... LANGUAGES ASC CXX)`, `.cpp` kernels marked
  `LANGUAGE ASC`, `--npu-arch=dav-2201`;
- asc-devkit sample READMEs and CMakeLists (examples/.../00_pytorch/torch_library,
  README_en.md; the basic API samples' READMEs): `cmake -DCMAKE_ASC_ARCHITECTURES=dav-2201 ..`,
  `set(CMAKE_ASC_ARCHITECTURES ... CACHE STRING)` before `find_package(ASC REQUIRED)`, torch via
  `torch.utils.cmake_prefix_path`, torch_npu's include/ and lib/, `torch.ops.load_library`,
  `-DCMAKE_ASC_RUN_MODE=npu|cpu|sim`; CANN >= 9.1 for that sample;
- CANN runtime sample 4_custom_kernel_launch/CMakeLists.txt: `ascendc_library` belongs to
  `include(${ASCENDC_CMAKE_DIR}/ascendc.cmake)` with `SOC_VERSION`;
- AscendC API reference, GET_TILING_DATA and REGISTER_TILING_DEFAULT pages: "the kernel launch
  project is not supported"; RuntimeAttrs GetFloat/GetInt, GetAttrPointer pages;
- public build scripts locating `ASCConfig.cmake` under `$ASCEND_HOME_PATH/<arch>-linux/lib64/cmake`
  (or `ascendc_kernel_cmake`), passed as `ASC_DIR` / `CMAKE_PREFIX_PATH`; bisheng under
  `compiler/ccec_compiler/bin` (CANN's set_env.sh puts it on PATH);
- Ascend PyTorch Profiler user guide (Ascend/pytorch docs) and torch_npu.profiler.AiCMetrics /
  _ExperimentalConfig pages: `aic_metrics=PipeUtilization`, `profiler_level=Level1`,
  `tensorboard_trace_handler`, ASCEND_PROFILER_OUTPUT/kernel_details.csv; CANN 6.3 profiling
  page (atlasprofiling_16_0272) for kernel_details.csv's columns (Step Id, Name, Type,
  Accelerator Core, Start Time(us), Duration(us), Wait Time(us), Block Dim, ...); CANN
  op_summary page for the aic_/aiv_ prefixed ratio columns on Atlas A2;
- MultiKernelBench (wzzll123/MultiKernelBench): utils/correctness.py (seeded Model/ModelNew
  construction, several input sets, allclose at 1e-4), utils/performance.py (NPU events,
  warm-ups, timed trials), backends/ascendc_direct_launch_backend.py (ascendc.cmake build,
  `${ASCEND_CANN_PACKAGE_PATH}/lib64` and `/include`) and prompts/*.json/.py (export formats),
  backends/ascendc_backend.py ("torch_npu.npu.get_device_name(device) causes crash");
- CANN 8.3.RC1 guide "通过CMake编译" (atlas_ascendc_10_00039): the first with find_package(ASC); asc-devkit
  04_compile/00_basic_compile README: ASC + C++ in one target for Atlas A2 / A3 from CANN 9.0.0;
- ACL aclrtGetHardwareSyncAddr (the cross-core sync base a MIX kernel sets with SetSyncBaseAddr; CATLASS
  hosts read it with rtGetC2cCtrlAddr); asc-devkit matmul_leakyrelu_basic_api (GetBlockIdx() / 2 on a
  vector core of a MIX launch);
  CANN's CMake guide and asc-devkit examples/01_simd_cpp_api/02_features/04_compile
  (00_basic_compile: kernel and <<<>>> in one .asc, LINKER_LANGUAGE ASC,
  -I${ASCEND_HOME_PATH}/include; 01_separate_compile: whole-program mode by default, `-dc`);
- torch_npu csrc/core/npu/NPUStream.cpp: `stream(true)` calls `stream()`, which empties the task
  queue (MakeSureQueueEmpty); `stream(false)` returns the raw stream;
- ACL API reference aclGetDeviceCapability / aclDeviceInfo (ACL_DEVICE_INFO_VECTOR_CORE_NUM),
  aclrtGetSocName; vllm-ascend / sgl-kernel-npu read the AIV count with the former.
"""
from __future__ import annotations

from .detect import Toolchain, detect, refuse_reason

__all__ = ["Toolchain", "detect", "refuse_reason", "check_cann"]


def check_cann(program, bundle, ref, soc=None, **kwargs):
    """`ascendcraft check --backend cann` (see run.check_cann): (Verdict, NpuRun)."""
    from .run import check_cann as _check
    return _check(program, bundle, ref, soc, **kwargs)
