"""Detection of the NPU toolchain and the one-line refusal of every NPU action without it."""
from __future__ import annotations

import math

import pytest

from ascendcraft_lab.backends.cann.detect import detect, refuse_reason, toolkit_summary

NO_CANN = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent-home"}


def _one_line(text: str | None) -> str:
    assert text is not None
    assert "\n" not in text.strip() and "Traceback" not in text
    return text


def test_without_cann_each_action_is_refused_in_one_line_naming_the_toolkit(tmp_path):
    tc = detect(NO_CANN, dev_dir=tmp_path)
    for action in ("build", "run", "profile"):
        reason = _one_line(refuse_reason(action, tc))
        assert reason.startswith("cannot ")
        assert "ASCEND_HOME_PATH" in reason and "set_env.sh" in reason
    assert "NPU" in refuse_reason("run", tc) and "davinci" in refuse_reason("run", tc)
    assert "davinci" not in refuse_reason("build", tc)     # building needs no chip


def test_a_toolkit_variable_pointing_nowhere_is_named(tmp_path):
    tc = detect({"PATH": "/usr/bin:/bin", "ASCEND_HOME_PATH": str(tmp_path / "missing")}, dev_dir=tmp_path)
    assert f"ASCEND_HOME_PATH={tmp_path / 'missing'} is not a directory" in refuse_reason("build", tc)


@pytest.mark.heavy
def test_the_fake_toolkit_is_found_part_by_part(fake_toolchain):
    ft = fake_toolchain
    tc = detect(ft.env, dev_dir=ft.no_dev_dir)
    assert tc.home == ft.home and tc.home_var == "ASCEND_HOME_PATH"
    assert tc.bisheng == ft.bisheng                          # under the toolkit, not on PATH
    assert tc.asc_cmake_dir == ft.asc_dir
    assert tc.cmake == ft.root / "bin" / "cmake"
    assert tc.torch_npu == ft.torch_npu
    assert refuse_reason("build", tc) is None
    assert _one_line(refuse_reason("run", tc)) == (f"cannot run on the NPU here: no Ascend NPU visible "
                                                   f"(no {ft.no_dev_dir}/davinci<N> device)")
    assert refuse_reason("run", detect(ft.env, dev_dir=ft.dev_dir)) is None


@pytest.mark.heavy
def test_a_toolkit_without_the_cmake_package_says_so(fake_toolchain):
    ft = fake_toolchain
    (ft.asc_dir / "ASCConfig.cmake").unlink()
    reason = _one_line(refuse_reason("build", detect(ft.env, dev_dir=ft.dev_dir)))
    assert "ASCConfig.cmake" in reason and "ASC_DIR" in reason


def test_doctor_says_why_cann_is_missing(monkeypatch):
    from ascendcraft_lab.cli import doctor
    for var in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "ASC_DIR"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    check = doctor._cann()
    assert check.name == "CANN toolkit" and not check.ok and not check.required
    assert "ASCEND_HOME_PATH" in check.detail


@pytest.mark.heavy
def test_doctor_reports_the_fake_toolkit_with_its_cmake_package(fake_toolchain, monkeypatch):
    from ascendcraft_lab.cli import doctor
    for k, v in fake_toolchain.env.items():
        monkeypatch.setenv(k, v)
    check = doctor._cann()
    assert check.ok, check.detail
    assert str(fake_toolchain.bisheng) in check.detail and str(fake_toolchain.asc_dir) in check.detail
    ok, _ = toolkit_summary(detect(fake_toolchain.env))
    assert ok


needs_no_npu_here = pytest.mark.skipif(refuse_reason("run") is None, reason="this machine has the NPU toolchain")


@pytest.mark.heavy
@needs_no_npu_here
def test_check_cann_refuses_with_the_one_line_reason(gelu_session):
    from ascendcraft_lab.backends.cann import check_cann
    from ascendcraft_lab.session import SessionFolder, load_dsl
    s = SessionFolder(gelu_session)
    program = load_dsl(s.dsl_path().read_text(), str(s.dsl_path()), "Ascend910B2")
    verdict, run = check_cann(program, s.read_stage("align"), ref=None, soc="Ascend910B2")
    assert not verdict.correct and verdict.backend == "cann" and math.isinf(verdict.max_abs_err)
    assert verdict.message == refuse_reason("run") and run.status == "refused"
    assert _one_line(verdict.summary()) == verdict.message


@pytest.mark.heavy
@needs_no_npu_here
@pytest.mark.parametrize("command, flags", [("build_main", []), ("profile_main", ["--npu"])])
def test_the_npu_commands_refuse_in_one_line(command, flags, gelu_session, capsys):
    from ascendcraft_lab.cli import npu as cli
    code = getattr(cli, command)([str(gelu_session), *flags])
    err = capsys.readouterr().err
    assert code == 2
    assert _one_line(err).startswith(f"ascendcraft {command.removesuffix('_main')}: cannot ")


@pytest.mark.heavy
@needs_no_npu_here
def test_check_on_the_npu_backend_refuses_before_any_work(gelu_session, capsys):
    from ascendcraft_lab.cli.check import main
    assert main([str(gelu_session), "--backend", "cann"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: cannot ") and refuse_reason("run") in err


def _set_version(ft, text: str | None) -> None:
    import platform
    info = ft.home / f"{platform.machine()}-linux" / "ascend_toolkit_install.info"
    if text is None:
        info.unlink()
    else:
        info.write_text(f"package_name=Ascend-cann-toolkit\nversion={text}\n")


@pytest.mark.heavy
def test_doctor_names_the_toolkits_cann_version(fake_toolchain):
    ok, detail = toolkit_summary(detect(fake_toolchain.env))
    assert ok and "CANN 9.0.0" in detail


@pytest.mark.heavy
def test_a_toolkit_older_than_find_package_asc_refuses_the_build_and_points_at_the_exports(fake_toolchain):
    _set_version(fake_toolchain, "8.5.0")
    tc = detect(fake_toolchain.env, dev_dir=fake_toolchain.dev_dir)
    reason = _one_line(refuse_reason("build", tc))
    assert "CANN 8.5.0 is older than 9.0.0, the first whose samples build ASC and C++ sources into one CMake" in reason
    assert "ascendcraft export --format mkb|mkb-direct" in reason and "MultiKernelBench" in reason
    ok, detail = toolkit_summary(tc)
    assert not ok and "8.5.0" in detail


@pytest.mark.heavy
def test_an_unknown_toolkit_version_is_said_and_does_not_refuse(fake_toolchain):
    _set_version(fake_toolchain, None)
    tc = detect(fake_toolchain.env)
    assert tc.version is None and refuse_reason("build", tc) is None
    assert "CANN version unknown" in toolkit_summary(tc)[1] and "9.0.0 or newer" in toolkit_summary(tc)[1]


@pytest.mark.parametrize("version, older", [("8.0.RC2", True), ("8.3.RC1.alpha002", True), ("8.3.RC1", True),
                                            ("8.5.0", True), ("9.0.0-beta.1", True), ("9.0.0", False),
                                            ("9.1.0", False), ("not a version", False)])
def test_cann_versions_compare_release_candidates_before_releases(version, older):
    from ascendcraft_lab.backends.cann.detect import cann_older_than_required
    assert cann_older_than_required(version) is older


def test_doctor_says_exactly_what_each_npu_action_lacks_on_a_machine_without_cann(tmp_path):
    """No toolkit, no torch_npu double, no device: root causes only (not the toolkit's bisheng or package)."""
    from ascendcraft_lab.cli import doctor
    tc = detect({"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}, dev_dir=tmp_path)
    lacks = [p for p in ("toolkit", "torch_npu") if not tc.has(p)] + (["cmake"] if not tc.has("cmake") else [])
    check = doctor._npu_path(tc)
    assert not check.ok and check.detail.startswith("build needs a CANN toolkit")
    assert ("torch_npu" in check.detail) == ("torch_npu" in lacks)
    assert check.detail.endswith("| check --backend cann and profile need also an NPU")
    assert "bisheng" not in check.detail and "CMake package" not in check.detail
    assert doctor._npu(tc).detail == f"no Ascend NPU visible (no {tmp_path / 'davinci<N>'} device)"


@pytest.mark.heavy
def test_doctor_says_a_complete_toolkit_lacks_only_the_npu(fake_toolchain):
    from ascendcraft_lab.cli import doctor
    check = doctor._npu_path(detect(fake_toolchain.env, dev_dir=fake_toolchain.no_dev_dir))
    assert (check.ok, check.detail) == (False, "build: ready | check --backend cann and profile need an NPU")
    ready = doctor._npu_path(detect(fake_toolchain.env, dev_dir=fake_toolchain.dev_dir))
    assert ready.ok and ready.detail == "build, check --backend cann and profile can run here"
