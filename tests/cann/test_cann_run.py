"""The NPU run's device checks and result reporting, against the fake libascendcl.so (conftest):
the core count read through ACL, the one-line refusal, results printed before optional device
queries, and both tolerances in the verdict."""
from __future__ import annotations

import ctypes
import json

import numpy as np
import pytest

from ascendcraft_lab.backends.cann import device, run
from ascendcraft_lab.soc import get_soc


@pytest.fixture
def acl(fake_acl_library, monkeypatch):
    monkeypatch.delenv("ASCENDCRAFT_CORE_CHECK", raising=False)
    return ctypes.CDLL(str(fake_acl_library))


def _one_line(text: str) -> str:
    assert "\n" not in text
    return text


@pytest.mark.heavy
def test_the_core_count_is_read_through_acl_as_the_socs_kind_of_core(acl, monkeypatch):
    monkeypatch.setenv("FAKE_ACL_VECTOR_CORES", "48")
    monkeypatch.setenv("FAKE_ACL_AI_CORES", "8")
    assert device.kernel_cores(get_soc("Ascend910B2"), library=acl) == 48      # separate vector cores (AIV)
    assert device.kernel_cores(get_soc("Ascend310P"), library=acl) == 8        # vector and cube share an AI core


@pytest.mark.heavy
def test_a_device_with_the_socs_core_count_passes_and_is_recorded(acl, monkeypatch):
    monkeypatch.setenv("FAKE_ACL_VECTOR_CORES", "48")
    cores, refusal = run.device_preflight("Ascend910B2", library=acl)
    assert refusal is None and cores == {"expected": 48, "found": 48, "checked": True}


@pytest.mark.heavy
def test_a_session_for_another_core_count_is_refused_in_one_line_naming_the_soc_to_lower_for(acl, monkeypatch):
    monkeypatch.setenv("FAKE_ACL_VECTOR_CORES", "40")                        # a 910B3 running a 910B2 session
    cores, refusal = run.device_preflight("Ascend910B2", library=acl)
    assert cores["found"] == 40
    assert _one_line(refusal).startswith("the session was lowered for Ascend910B2 (48 vector cores) "
                                         "but the device reports 40")
    assert "would hang" in refusal and "--soc Ascend910B3" in refusal and "ASCENDCRAFT_CORE_CHECK=0" in refusal


@pytest.mark.heavy
def test_the_core_check_can_be_switched_off_and_still_records_the_count(acl, monkeypatch):
    monkeypatch.setenv("FAKE_ACL_VECTOR_CORES", "40")
    cores, refusal = run.device_preflight("Ascend910B2", library=acl, env={"ASCENDCRAFT_CORE_CHECK": "0"})
    assert refusal is None and cores == {"expected": 48, "found": 40, "checked": False}


@pytest.mark.heavy
def test_a_failing_acl_query_is_recorded_and_refuses_nothing(acl, monkeypatch):
    monkeypatch.delenv("FAKE_ACL_VECTOR_CORES", raising=False)
    cores, refusal = run.device_preflight("Ascend910B2", library=acl)
    assert refusal is None and cores["found"] is None
    assert cores["error"] == "aclGetDeviceCapability(0, ACL_DEVICE_INFO_VECTOR_CORE_NUM) failed with aclError 107001"


@pytest.mark.heavy
def test_the_toolkits_libascendcl_is_the_one_loaded(fake_toolchain, monkeypatch):
    monkeypatch.setenv("FAKE_ACL_SOC_NAME", "Ascend910B2")
    lib = device.acl_library(fake_toolchain.home)
    assert device.soc_name(library=lib) == "Ascend910B2"


def test_the_child_prints_its_results_before_the_optional_device_query(monkeypatch, capsys, tmp_path):
    result = {"status": "ok", "trials": [{"trial": 0, "outputs": 1}], "custom_ms": 0.1, "eager_ms": 0.2,
              "custom_std_ms": 0.0, "eager_std_ms": 0.0, "cores": {"expected": 48, "found": 48, "checked": True}}
    printed_before_query = []

    def query():
        printed_before_query.append(capsys.readouterr().out)
        return {"device": "Ascend910B2"}

    monkeypatch.setattr(run, "refuse_reason", lambda action: None)
    monkeypatch.setattr(run, "measure", lambda *a, **k: dict(result))
    monkeypatch.setattr(run, "device_name", query)
    assert run.child_main(["--library", "lib.so", "--reference", "ref.py", "--entry", "gelu", "--soc", "Ascend910B2",
                           "--out", str(tmp_path)]) == 0
    [before] = printed_before_query
    assert json.loads(before) == result                  # the whole result, already out
    assert json.loads(capsys.readouterr().out) == {"device": "Ascend910B2"}


def test_a_refused_child_asks_the_device_nothing_more(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(run, "refuse_reason", lambda action: None)
    monkeypatch.setattr(run, "measure", lambda *a, **k: {"status": "refused", "message": "lowered for another SoC"})
    monkeypatch.setattr(run, "device_name", lambda: pytest.fail("queried the device after a refusal"))
    assert run.child_main(["--library", "l.so", "--reference", "r.py", "--entry", "gelu", "--out", str(tmp_path)]) == 2
    assert json.loads(capsys.readouterr().out)["status"] == "refused"


def test_a_child_that_dies_in_the_device_query_keeps_its_results():
    result = {"status": "ok", "custom_ms": 0.1}
    stdout = "[W compiler] torch_npu noise\n" + json.dumps(result) + "\n"
    data = run.parse_child_output(stdout, "Segmentation fault (core dumped)", -11)
    assert data["status"] == "ok" and data["custom_ms"] == 0.1
    assert "the optional device query after the results failed (exit -11: Segmentation fault" in data["device_note"]
    assert run.parse_child_output(stdout + json.dumps({"device": "Ascend910B2"}) + "\n", "", 0) == \
        {**result, "device": "Ascend910B2"}
    assert run.parse_child_output("", "Illegal instruction", -4)["status"] == "crash"


@pytest.mark.heavy
def test_the_verdict_reports_the_projects_tolerance_and_multikernelbenchs(gelu_session, fake_toolchain, monkeypatch):
    """An f16 output 5e-3 off: inside the project's 1e-2, outside MultiKernelBench's 1e-4."""
    from ascendcraft_lab.backends.cann.build import BuildResult
    from ascendcraft_lab.backends.cann.detect import detect
    from ascendcraft_lab.session import load_dsl
    from ascendcraft_lab.session import SessionFolder
    s = SessionFolder(gelu_session)
    program = load_dsl(s.dsl_path().read_text().replace("f32", "f16"), "gelu.dsl.py", "Ascend910B2")
    want = np.linspace(-2, 2, 64, dtype=np.float32).reshape(4, 16)
    got = want + np.float32(5e-3)
    sig_out = program.outputs[0].name
    monkeypatch.setattr("ascendcraft_lab.backends.cann.build.build_project",
                        lambda *a, **k: BuildResult("ok", "built", library="lib.so"))
    monkeypatch.setattr(run, "run_on_npu", lambda *a, **k: run.NpuRun(
        "ok", "ran on the NPU", {sig_out: got}, [], {"custom_ms": 1.0, "eager_ms": 2.0, "speedup": 2.0}, {}, {},
        "Ascend910B2", {"expected": 48, "found": 48, "checked": True}, {},
        [[(program.outputs[0], got, want)] for _ in range(5)]))
    verdict, npu = run.check_cann(program, s.read_stage("align"), ref=None, soc="Ascend910B2",
                                  toolchain=detect(fake_toolchain.env, dev_dir=fake_toolchain.dev_dir),
                                  workdir=gelu_session.parent / "cann-work")
    assert verdict.correct and (verdict.rtol, verdict.atol) == (1e-2, 1e-2)
    assert npu.mkb == {"correct": False, "atol": 1e-4, "rtol": 1e-4, "failed_input_sets": [0, 1, 2, 3, 4]}
    assert "MultiKernelBench's 0.0001 tolerance: fails" in verdict.message
    assert "the project's draws (input set t after manual_seed(0 + t))" in verdict.message and npu.draws == "project"
    assert npu.to_json()["mkb"]["correct"] is False and npu.to_json()["cores"]["found"] == 48


def test_multikernelbenchs_allclose_is_relative_to_the_new_output():
    want = np.array([1.0, 100.0])
    assert run.mkb_allclose(want + np.array([1.5e-4, 0.0]), want)            # 1e-4 + 1e-4 * 1.00015
    assert not run.mkb_allclose(want + np.array([2.1e-4, 0.0]), want)
    assert not run.mkb_allclose(np.array([np.nan, 100.0]), np.array([np.nan, 100.0]))   # NaN is never close
    assert not run.mkb_allclose(want[:1], want)


@pytest.mark.heavy
def test_the_chips_soc_name_selects_its_table_entry_and_refuses_another_parts_session(acl, monkeypatch):
    monkeypatch.setenv("FAKE_ACL_VECTOR_CORES", "40")
    monkeypatch.setenv("FAKE_ACL_SOC_NAME", "Ascend910B4")
    cores, refusal = run.device_preflight("Ascend910B2", library=acl)
    assert cores["soc_name"] == "Ascend910B4"
    assert _one_line(refusal).startswith("the session was lowered for Ascend910B2 but the device is Ascend910B4 "
                                         "(40 vector cores, 20 cube cores)")
    assert "--soc Ascend910B4" in refusal


@pytest.mark.heavy
def test_a_part_with_the_same_kernel_facts_runs_the_session(acl, monkeypatch):
    monkeypatch.setenv("FAKE_ACL_VECTOR_CORES", "48")
    for name in ("Ascend910B1", "Ascend910_9392"):          # 910B2's cores and memories, another name
        monkeypatch.setenv("FAKE_ACL_SOC_NAME", name)
        cores, refusal = run.device_preflight("Ascend910B2", library=acl)
        assert refusal is None and cores["soc_name"] == name


@pytest.mark.heavy
def test_an_unknown_part_is_checked_by_its_core_count_only(acl, monkeypatch):
    monkeypatch.setenv("FAKE_ACL_VECTOR_CORES", "48")
    monkeypatch.setenv("FAKE_ACL_SOC_NAME", "Ascend910_9381")
    cores, refusal = run.device_preflight("Ascend910B2", library=acl)
    assert refusal is None and cores == {"expected": 48, "found": 48, "checked": True, "soc_name": "Ascend910_9381"}


def test_a_session_holding_exported_submissions_is_checked_with_multikernelbenchs_draws(tmp_path):
    from ascendcraft_lab.cli.check import npu_draws_for
    assert npu_draws_for(tmp_path) == "project"
    (tmp_path / "export").mkdir()
    (tmp_path / "export" / "notes.txt").write_text("")
    assert npu_draws_for(tmp_path) == "project"
    (tmp_path / "export" / "gelu.mkb-direct.json").write_text("{}")
    assert npu_draws_for(tmp_path) == "mkb"


@pytest.mark.heavy
def test_draws_without_the_npu_backend_is_refused_in_one_line(gelu_session, capsys):
    from ascendcraft_lab.cli.check import main
    assert main([str(gelu_session), "--draws", "mkb"]) == 2
    assert capsys.readouterr().err == ("ascendcraft check: --draws chooses the NPU check's inputs; use it with "
                                       "--backend cann\n")
