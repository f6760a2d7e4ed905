"""A kernel-launch sample's CPU-debug host program (ICPU_RUN_KF, GmAlloc, ReadFile / WriteFile) builds
and runs unchanged: `ascendcraft emulate --program main.cpp add_custom.cpp --run-in DIR`."""
from __future__ import annotations
import pytest

import time
from pathlib import Path

import numpy as np

from ascendcraft_lab.backends.emulator.cli import main

from emulator_helpers import KERNELS

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

SAMPLE = KERNELS / "programs" / "add_cpu_debug"


def test_a_samples_cpu_debug_main_runs_unchanged(tmp_path):
    (tmp_path / "input").mkdir()
    (tmp_path / "output").mkdir()
    rng = np.random.default_rng(3)
    x, y = (rng.random(8 * 2048) * 4).astype(np.float16), (rng.random(8 * 2048) * 4).astype(np.float16)
    x.tofile(tmp_path / "input" / "input_x.bin")
    y.tofile(tmp_path / "input" / "input_y.bin")
    code = main(["--program", str(SAMPLE / "main.cpp"), str(SAMPLE / "add_custom.cpp"), "--run-in", str(tmp_path)])
    assert code == 0
    np.testing.assert_array_equal(np.fromfile(tmp_path / "output" / "output_z.bin", np.float16), x + y)


def test_a_program_that_does_not_compile_says_where(tmp_path, capsys):
    bad = tmp_path / "main.cpp"
    bad.write_text('#include "tikicpulib.h"\nint main() { AscendC::GmAlloc(); }\n')
    assert main(["--program", str(bad)]) == 1
    err = capsys.readouterr().err
    assert f"{bad}:2: error:" in err


def test_a_host_program_writes_its_pipe_trace_where_acemu_trace_says(tmp_path, monkeypatch):
    from ascendcraft_lab.perf import trace as tr
    (tmp_path / "input").mkdir()
    (tmp_path / "output").mkdir()
    x = np.ones(8 * 2048, np.float16)
    x.tofile(tmp_path / "input" / "input_x.bin")
    x.tofile(tmp_path / "input" / "input_y.bin")
    monkeypatch.setenv("ACEMU_TRACE", str(tmp_path / "program.trace"))
    assert main(["--program", str(SAMPLE / "main.cpp"), str(SAMPLE / "add_custom.cpp"), "--run-in", str(tmp_path)]) == 0
    (launch,) = tr.read_trace(tmp_path / "program.trace")
    work = [e for b in launch.blocks for e in b.events if e.kind == tr.INSTR]
    assert len(launch.blocks) == launch.block_dim and {tr.PIPES[e.pipe] for e in work} == {"MTE2", "V", "MTE3"}
    assert sum(e.a for e in work if tr.PIPES[e.pipe] == "MTE2") == 2 * x.nbytes


def test_what_a_program_forks_is_stopped_when_it_exits(tmp_path):
    prog = tmp_path / "main.cpp"
    prog.write_text('#include <cstdio>\n#include <unistd.h>\n'
                    'int main() {\n  pid_t pid = fork();\n  if (pid == 0) { sleep(600); return 0; }\n'
                    '  FILE* f = fopen("child.pid", "w"); fprintf(f, "%d", (int)pid); fclose(f);\n  return 0;\n}\n')
    assert main(["--program", str(prog), "--run-in", str(tmp_path)]) == 0
    pid = int((tmp_path / "child.pid").read_text())
    for _ in range(100):                      # a SIGKILLed process may take a moment to go
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            state = "gone"
        if state in ("gone", "Z"):
            break
        time.sleep(0.05)
    assert state in ("gone", "Z"), f"the program's child {pid} is still running ({state})"


SERVING = KERNELS / "programs" / "serving_launch"


def test_a_serving_stacks_launcher_with_typed_kernels_and_pasted_names_runs_unchanged(tmp_path):
    # kernels typed `__gm__ T*` with scalars, declared and launched by macros that paste their names
    code = main(["--program", str(SERVING / "main.cpp"), str(SERVING / "scale_kernel.cpp"), "--run-in", str(tmp_path)])
    assert code == 0
    x = (np.arange(4 * 256) % 97 - 48)
    np.testing.assert_array_equal(np.fromfile(tmp_path / "out_fp32.bin", np.float32), x.astype(np.float32) * 1.5)
    np.testing.assert_array_equal(np.fromfile(tmp_path / "out_int32.bin", np.int32), x.astype(np.int32) * 3)


def test_a_launch_with_the_wrong_number_of_arguments_does_not_compile(tmp_path, capsys):
    kernel = tmp_path / "k.cpp"
    kernel.write_text('#include "kernel_operator.h"\n'
                      'extern "C" __global__ __aicore__ void k(__gm__ float* x, uint32_t n) { (void)x; (void)n; }\n'
                      'int main() { float* x = nullptr; k<<<1, nullptr, nullptr>>>(x); return 0; }\n')
    assert main(["--program", str(kernel)]) == 1
    assert "different number of arguments" in capsys.readouterr().err


HOG_PROGRAM = """#include <cstdio>
#include <vector>
int main() {
    std::vector<char*> keep;
    for (int i = 0; i < 1000; ++i) keep.push_back(new char[64 << 20]);   // 64 GB, 64 MiB at a time
    std::printf("allocated %zu blocks\\n", keep.size());
    return 0;
}
"""
HOG_KERNEL = """#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void hog(GM_ADDR x) {
    for (int i = 0; i < 1000; ++i) { volatile char* p = new char[64 << 20]; p[0] = 1; }
    (void)x;
}
"""


def test_a_program_that_allocates_without_end_fails_its_allocation_at_the_memory_limit(tmp_path, monkeypatch,
                                                                                        capsys):
    # no cgroup needed: the limit is an rlimit on the program's address space (procs.child_memory)
    monkeypatch.setenv("ASCENDCRAFT_CHILD_MEMORY", "1G")
    (tmp_path / "hog.cpp").write_text(HOG_PROGRAM)
    assert main(["--program", str(tmp_path / "hog.cpp")]) == 134            # 128 + SIGABRT, not the OOM killer's
    err = capsys.readouterr().err
    assert "the program was killed by SIGABRT; it could map at most 1.0 GiB (ASCENDCRAFT_CHILD_MEMORY=1G)" in err


def test_a_kernel_that_allocates_without_end_is_said_to_have_run_out_of_memory(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ASCENDCRAFT_CHILD_MEMORY", "1G")
    (tmp_path / "hog.cpp").write_text(HOG_KERNEL)
    assert main([str(tmp_path / "hog.cpp"), "--entry", "hog", "--block-dim", "1", "--arg", "ws:32",
                 "--out-dir", str(tmp_path / "out")]) == 1
    out = capsys.readouterr().out
    assert "status: crash - the kernel ran out of memory: it may map at most 1.0 GiB" in out, out
