"""Reading a recorded torch_npu `kernel_details.csv` into the profile view."""
from __future__ import annotations

from pathlib import Path

import pytest

from ascendcraft_lab.backends.cann.profile import parse_kernel_details, parse_records

# data/kernel_details.csv is recorded in the documented layout: the base columns, then what
# aic_metrics=PipeUtilization adds for a vector (AIV) kernel on Atlas A2. Two launches of our kernel
# around an unrelated aclnn op.
KERNEL_DETAILS = (Path(__file__).parent / "data" / "kernel_details.csv").read_text()


def test_a_recorded_profile_becomes_time_block_dim_and_pipe_utilisation():
    report = parse_kernel_details(KERNEL_DETAILS, "gelu")
    assert report.launches == 2
    assert report.kernel_time_us == pytest.approx(40.2)
    assert report.block_dim == 16
    assert report.pipe_utilisation == pytest.approx({"aiv_vec": 0.50, "aiv_scalar": 0.105, "aiv_mte2": 0.80,
                                                     "aiv_mte3": 0.25})
    assert report.bottleneck == "aiv_mte2"
    assert report.all_names == ["gelu_0", "aclnnMul_MulAiCore_Mul"]


def test_the_text_chart_has_one_bar_per_pipe_scaled_to_its_ratio():
    text = parse_kernel_details(KERNEL_DETAILS, "gelu").text(width=20)
    lines = text.splitlines()
    assert lines[0] == "gelu: 2 launch(es), 40.20 us per launch, block dim 16"
    mte2 = next(l for l in lines if l.lstrip().startswith("mte2 (vector core)"))
    assert mte2.count("#") == 16 and mte2.endswith(" 80.0%")
    assert lines[-1] == "  busiest: mte2 (vector core) (GM -> UB/L1 copy-in)"


def test_the_html_chart_renders_bar_widths(tmp_path):
    html = parse_kernel_details(KERNEL_DETAILS, "gelu")._repr_html_()
    assert "width:80.0%" in html and "width:50.0%" in html and "<b>gelu</b>" in html


def test_versions_without_prefixes_and_with_block_num_parse_too(tmp_path):
    csv_path = tmp_path / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv"
    csv_path.parent.mkdir()
    csv_path.write_text("Device_id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Num,"
                        "vec_ratio,mte2_ratio,mte3_ratio,scalar_ratio\n"
                        "0,gelu,gelu,AI_CORE,10,12.5,0,8,0.4,N/A,0.2,0.1\n")
    report = parse_kernel_details(tmp_path, "gelu")                # a folder holding the CSV
    assert (report.kernel_time_us, report.block_dim) == (12.5, 8)
    assert report.pipe_utilisation == {"vec": 0.4, "scalar": 0.1, "mte3": 0.2}   # N/A left out


def test_a_kernel_missing_from_the_profile_is_named_with_what_is_there():
    with pytest.raises(ValueError, match="no launch of `softmax` in the profile \\(kernels: gelu_0, aclnnMul"):
        parse_kernel_details(KERNEL_DETAILS, "softmax")


def test_a_csv_that_is_not_kernel_details_is_rejected():
    with pytest.raises(ValueError, match="not a kernel_details.csv"):
        parse_records("a,b\n1,2\n")


def test_profile_command_shows_a_recorded_csv(tmp_path, capsys):
    from ascendcraft_lab.cli.npu import profile_main
    src = tmp_path / "kernel_details.csv"
    src.write_text(KERNEL_DETAILS)
    assert profile_main(["--csv", str(src), "--kernel", "gelu", "--html", str(tmp_path / "p.html")]) == 0
    assert "mte2 (vector core)" in capsys.readouterr().out
    assert "width:80.0%" in (tmp_path / "p.html").read_text()



@pytest.mark.parametrize("data, offset", [(bytes(range(256)) * 2, 0), (b"Name,Type\ngelu\xff,k\n", 14),
                                          (b"Name,Duration(us)\ngelu,1\0\n", 24)], ids=["random", "latin1", "nul"])
def test_profile_csv_of_a_binary_file_says_it_is_not_csv_text_and_where(data, offset, tmp_path, capsys):
    from ascendcraft_lab.cli.npu import profile_main
    (tmp_path / "bin.csv").write_bytes(data)
    assert profile_main(["--csv", str(tmp_path / "bin.csv")]) == 2
    err = capsys.readouterr().err
    assert f"bin.csv is not a CSV text file (byte 0x{data[offset]:02x} at offset {offset})" in err
    assert "columns" not in err and len(err.splitlines()) == 1


def test_profile_csv_with_a_utf8_bom_reads_its_columns(tmp_path):
    (tmp_path / "k.csv").write_bytes(b"\xef\xbb\xbf" + KERNEL_DETAILS.encode())
    assert parse_kernel_details(tmp_path / "k.csv", "gelu").kernel_time_us == \
        parse_kernel_details(KERNEL_DETAILS, "gelu").kernel_time_us

# ----------------------------------------------------------------------------- the measured run (test doubles)

_CHILD = r'''#!{python}
"""Test double of the profiled child: {behaviour}"""
import json, os, sys, time
from pathlib import Path
argv = sys.argv[1:]
out = Path(argv[argv.index("--out") + 1])
if "{behaviour}" == "hangs":
    time.sleep(600)
# torch_npu names its folders <host>_<pid>_<time>_ascend_pt: the older run's name sorts last here
older = out / "worker_99999_20990101_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv"
newer = out / "worker_10000_20000101_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv"
for path, kernel in ((older, "stale_kernel"), (newer, "gelu_0")):
    path.parent.mkdir(parents=True)
    path.write_text("Name,Type,Accelerator Core,Duration(us),Block Dim\n" + kernel + ",k,AI_VECTOR_CORE,10.5,16\n")
os.utime(older, ns=(10**18, 10**18))
os.utime(newer, ns=(2 * 10**18, 2 * 10**18))
print(json.dumps({{"status": "ok"}}), flush=True)
'''


def _child(tmp_path, behaviour: str) -> str:
    import stat
    import sys
    script = tmp_path / f"child-{behaviour}"
    script.write_text(_CHILD.format(python=sys.executable, behaviour=behaviour))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


@pytest.mark.heavy
def test_a_hung_profiled_run_is_stopped_at_the_timeout_and_said_in_one_line(fake_toolchain, tmp_path):
    from ascendcraft_lab.backends.cann.detect import detect
    from ascendcraft_lab.backends.cann.profile import ProfileError, profile_on_npu
    tc = detect(fake_toolchain.env, dev_dir=fake_toolchain.dev_dir)
    with pytest.raises(ProfileError, match=r"did not finish in 2 s and was stopped"):
        profile_on_npu("lib.so", "ref.py", "gelu", tmp_path / "out", timeout=2, toolchain=tc,
                       python=_child(tmp_path, "hangs"))
    assert not (tmp_path / "out" / "kernel_details.csv").exists()


@pytest.mark.heavy
def test_the_profile_read_is_the_newest_one_the_run_wrote_in_its_private_folder(fake_toolchain, tmp_path):
    from ascendcraft_lab.backends.cann.detect import detect
    from ascendcraft_lab.backends.cann.profile import profile_on_npu
    out = tmp_path / "session-profile"
    out.mkdir()
    (out / "kernel_details.csv").write_text("Name,Duration(us)\ngelu_0,999\n")    # an earlier run's, never read
    tc = detect(fake_toolchain.env, dev_dir=fake_toolchain.dev_dir)
    report = profile_on_npu("lib.so", "ref.py", "gelu", out, timeout=120, toolchain=tc,
                            python=_child(tmp_path, "writes"))
    assert (report.kernel_time_us, report.block_dim) == (10.5, 16)
    assert "stale_kernel" not in (out / "kernel_details.csv").read_text()
    assert sorted(p.name for p in out.iterdir()) == ["kernel_details.csv"]     # the run's own folder stayed private


def test_a_folder_of_profiles_is_read_newest_first_not_by_name(tmp_path):
    import os
    from ascendcraft_lab.backends.cann.profile import newest_kernel_details
    paths = {}
    for name, when in (("b_99_ascend_pt", 1), ("a_10_ascend_pt", 2)):
        path = tmp_path / name / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv"
        path.parent.mkdir(parents=True)
        path.write_text(KERNEL_DETAILS)
        os.utime(path, ns=(when * 10**18, when * 10**18))
        paths[name] = path
    assert newest_kernel_details(tmp_path) == paths["a_10_ascend_pt"]
