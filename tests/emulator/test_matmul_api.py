"""The high-level Matmul API: host tiling (MultiCoreMatmulTiling) -> TCubeTiling -> kernel Matmul,
as MultiKernelBench's matmul operators use it, checked against numpy; and a mixed cube + vector
kernel (the Matmul leaves its blocks in UB for a vector epilogue)."""
from __future__ import annotations

import os
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

from ascendcraft_lab.backends.emulator import runner
from ascendcraft_lab.backends.emulator.runner import Arg, bf16_to_float32, float32_to_bf16, pack_tiling

from emulator_helpers import KERNELS, marked_line, run

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

HOST = Path(__file__).parent / "host"
RNG = np.random.default_rng(20)
DTYPES = {"half": 0, "bfloat16": 1, "float": 2, "int8": 3}
# TCubeTiling's fields are int32 in the order of acemu/cube_tiling.h; the tests read a few.
USED_CORE_NUM, SINGLE_CORE_N, BASE_M, BASE_N = 0, 6, 8, 9


@pytest.fixture(scope="module")
def tiling_gen():
    comp = runner.compile_sources([HOST / "mm_tiling_gen.cpp"], host=True)
    assert comp.ok, comp.stderr
    return comp.binary


def host_tiling(gen, m, n, k, dtype, trans_b=False, bias=False, dim=8, base=None) -> bytes:
    args = [str(gen), str(m), str(n), str(k), str(DTYPES[dtype]), str(int(trans_b)), str(int(bias)), str(dim),
            *map(str, base or ())]
    r = subprocess.run(args, capture_output=True, env={**os.environ, **runner.soc_env("Ascend910B2")}, timeout=60)
    assert r.returncode == 0, r.stderr.decode()
    return r.stdout


def field(cube: bytes, index: int) -> int:
    return struct.unpack_from("<i", cube, 4 * index)[0]


def operands(dtype, m, n, k, trans_b):
    shape_b = (n, k) if trans_b else (k, n)
    if dtype == "int8":
        a, b = RNG.integers(-128, 128, (m, k), dtype=np.int8), RNG.integers(-128, 128, shape_b, dtype=np.int8)
        return a, b, a.astype(np.int64), b.astype(np.int64)
    if dtype == "bfloat16":
        a, b = float32_to_bf16(RNG.standard_normal((m, k))), float32_to_bf16(RNG.standard_normal(shape_b))
        return a, b, bf16_to_float32(a).astype(np.float64), bf16_to_float32(b).astype(np.float64)
    np_dtype = np.float16 if dtype == "half" else np.float32
    a, b = RNG.standard_normal((m, k)).astype(np_dtype), RNG.standard_normal(shape_b).astype(np_dtype)
    return a, b, a.astype(np.float64), b.astype(np.float64)


def run_matmul_api(cube: bytes, dtype, a, b, bias, m, n, trans_b):
    out_dtype = "int32" if dtype == "int8" else "float32"
    head = pack_tiling([("uint32", DTYPES[dtype]), ("uint32", int(trans_b))])
    blocks = (field(cube, USED_CORE_NUM) + 1) // 2  # a mixed kernel: two vector cores per block
    return run("matmul_api", blocks, [Arg.input(a), Arg.input(b), Arg.input(bias), Arg.output(out_dtype, (m, n)),
                                      Arg.workspace(1024), Arg.tiling(head + cube)])


@pytest.mark.parametrize("dtype,m,n,k,trans_b,with_bias,dim", [
    ("half", 256, 384, 192, False, True, 8),      # whole blocks over 8 vector cores
    ("half", 100, 70, 50, False, False, 4),       # tails in M, N and K
    ("float", 64, 80, 96, True, True, 3),         # float, B as [N, K] (a Linear weight)
    ("bfloat16", 96, 128, 64, True, False, 2),
    ("int8", 48, 64, 160, False, True, 2),
])
def test_host_tiling_drives_the_kernel_matmul(tiling_gen, dtype, m, n, k, trans_b, with_bias, dim):
    cube = host_tiling(tiling_gen, m, n, k, dtype, trans_b, with_bias, dim)
    assert 1 <= field(cube, USED_CORE_NUM) <= dim
    a, b, fa, fb = operands(dtype, m, n, k, trans_b)
    bias = (RNG.integers(-1000, 1000, n).astype(np.int32) if dtype == "int8"
            else RNG.standard_normal(n).astype(np.float32))
    report = run_matmul_api(cube, dtype, a, b, bias, m, n, trans_b)
    assert report.status == "ok", report.summary()
    ref = fa @ (fb.T if trans_b else fb) + (bias if with_bias else 0)
    if dtype == "int8":
        np.testing.assert_array_equal(report.outputs[3], ref.astype(np.int32))
    else:
        np.testing.assert_allclose(report.outputs[3], ref, rtol=1e-5, atol=1e-4)


def test_a_tiling_too_big_for_l0c_is_reported_at_regist(tiling_gen):
    m = n = k = 256
    cube = bytearray(host_tiling(tiling_gen, m, n, k, "half", dim=1))
    struct.pack_into("<ii", cube, 4 * BASE_M, 256, 256)  # a 256 x 256 float block is 256 KiB; L0C has 128 KiB
    a, b, _, _ = operands("half", m, n, k, False)
    report = run_matmul_api(bytes(cube), "half", a, b, np.zeros(n, np.float32), m, n, False)
    assert {f["kind"] for f in report.findings} == {"l0-overflow"}, report.summary()
    assert all("REGIST_MATMUL_OBJ" == f["api"] for f in report.findings)


def test_matmul_blocks_in_ub_feed_a_vector_epilogue(tiling_gen):
    m, n, k, alpha = 128, 256, 64, 0.1
    cube = host_tiling(tiling_gen, m, n, k, "half", bias=True, dim=4, base=(64, 128))
    assert (field(cube, BASE_M), field(cube, BASE_N)) == (64, 128)
    a, b, fa, fb = operands("half", m, n, k, False)
    bias = RNG.standard_normal(n).astype(np.float32)
    head = pack_tiling([("float", alpha), ("uint32", 0)])
    blocks = (field(cube, USED_CORE_NUM) + 1) // 2
    report = run("matmul_leakyrelu", blocks, [Arg.input(a), Arg.input(b), Arg.input(bias),
                                              Arg.output("float32", (m, n)), Arg.workspace(1024),
                                              Arg.tiling(head + cube)])
    assert report.status == "ok", report.summary()
    y = fa @ fb + bias
    np.testing.assert_allclose(report.outputs[3], np.where(y > 0, y, np.float32(alpha) * y), rtol=1e-5, atol=1e-4)


def test_no_set_tail_makes_the_edge_cores_read_and_write_past_their_parts(tiling_gen):
    m, n, k = 100, 100, 48
    cube = host_tiling(tiling_gen, m, n, k, "half", dim=4)
    assert n % field(cube, SINGLE_CORE_N) != 0  # the last column of parts is a tail
    line, kind = marked_line("bug_matmul_no_tail")
    a, b, _, _ = operands("half", m, n, k, False)
    head = pack_tiling([("uint32", 0), ("uint32", 0)])
    report = run("bug_matmul_no_tail", (field(cube, USED_CORE_NUM) + 1) // 2,
                 [Arg.input(a), Arg.input(b), Arg.input(np.zeros(n, np.float32)), Arg.output("float32", (m, n)),
                  Arg.workspace(1024), Arg.tiling(head + cube)])
    where = {(f["file"], f["line"]) for f in report.findings}
    assert where == {(str(KERNELS / "bug_matmul_no_tail.cpp"), line)}, report.summary()
    assert {kind, "gm-out-of-bounds"} <= {f["kind"] for f in report.findings}, report.summary()


def test_an_op_projects_tiling_struct_holds_the_host_tiling(tmp_path):
    # The msopgen / MultiKernelBench host form: TCubeTiling as a field of the operator's tiling data.
    src = tmp_path / "matmul_tiling.cpp"
    src.write_text(
        '#include "kernel_operator.h"\n'
        '#include "tiling/tiling_api.h"\n'
        "namespace optiling {\n"
        "BEGIN_TILING_DATA_DEF(MatmulCustomTilingData)\n"
        "TILING_DATA_FIELD_DEF(int32_t, localMemSize);\n"
        "TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, cubeTilingData);\n"
        "END_TILING_DATA_DEF;\n"
        "}\n"
        "int make(uint8_t* buf, size_t cap) {\n"
        "    matmul_tiling::MultiCoreMatmulTiling tiling;\n"
        "    tiling.SetDim(2);\n"
        "    tiling.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, "
        "matmul_tiling::DataType::DT_FLOAT16);\n"
        "    tiling.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, "
        "matmul_tiling::DataType::DT_FLOAT16);\n"
        "    tiling.SetCType(matmul_tiling::TPosition::LCM, matmul_tiling::CubeFormat::ND, "
        "matmul_tiling::DataType::DT_FLOAT);\n"
        "    tiling.SetShape(1024, 640, 256);\n"
        "    tiling.SetOrgShape(1024, 640, 256);\n"
        "    tiling.SetFixSplit(128, 128, -1);\n"
        "    tiling.SetBias(true);\n"
        "    tiling.SetBufferSpace(-1, -1, -1);\n"
        "    optiling::MatmulCustomTilingData data;\n"
        "    if (tiling.GetTiling(data.cubeTilingData) == -1) return -1;\n"
        "    data.set_localMemSize(0);\n"
        "    data.SaveToBuffer(buf, cap);\n"
        "    return data.cubeTilingData.get_usedCoreNum();\n"
        "}\n")
    result = runner.compile_sources([src])
    assert result.ok, result.stderr


def run_gemv(tiling_gen, rows):
    k, n = 256, 64
    cube = host_tiling(tiling_gen, 1, n, k, "half", dim=1)
    x = RNG.standard_normal((1, k)).astype(np.float16)
    w = RNG.standard_normal((k, n)).astype(np.float16)
    report = run("prod/matmul_gemv", 1, [Arg.input(x), Arg.input(w), Arg.output("float32", (1, n)), Arg.workspace(1024),
                                         Arg.tiling(pack_tiling([("int32", rows)]) + cube)])
    return report, x.astype(np.float64) @ w.astype(np.float64)


def test_gemv_a_vector_times_a_matrix(tiling_gen):
    report, ref = run_gemv(tiling_gen, 1)
    assert report.status == "ok", report.summary()
    np.testing.assert_allclose(report.outputs[2], ref, rtol=1e-3, atol=1e-3)


def test_gemv_with_more_than_one_row_is_a_cube_param_finding(tiling_gen):
    report, _ = run_gemv(tiling_gen, 2)
    kinds = {f["kind"] for f in report.findings}
    assert "cube-param" in kinds and "GEMV" in next(f["message"] for f in report.findings if f["kind"] == "cube-param")
