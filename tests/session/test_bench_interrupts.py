"""`ascendcraft bench`: Ctrl-C stops at once with a partial results.json, `--resume` finishes the
same run, no stale results sit beside new ones, and bad option values are refused."""
from __future__ import annotations

import json
import signal

import pytest

from session_helpers import Sandbox

RELU = '''import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)


batch_size = 4
dim = 1000


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
'''
ARGS = ("--seeds", "1", "--jobs", "1", "--no-timing", "--shapes", "reference")


@pytest.fixture
def suite(tmp_path):
    folder = tmp_path / "suite" / "activation"
    folder.mkdir(parents=True)
    (folder / "a_relu.py").write_text(RELU)
    (folder / "b_slow.py").write_text("import time\ntime.sleep(600)\n" + RELU)
    return tmp_path / "suite"


def results(out):
    return json.loads((out / "results.json").read_text())


@pytest.mark.heavy
def test_ctrl_c_stops_the_run_writes_partial_results_and_resume_finishes_it(suite, tmp_path):
    box = Sandbox(tmp_path)
    out = tmp_path / "out"

    def first_op_done():
        try:
            return len(results(out)["results"]) == 1
        except (OSError, ValueError):
            return False
    child = box.run("bench", suite, "-o", out, *ARGS, signal_after=(120, signal.SIGINT), when=first_op_done)
    assert child.rc == 130 and "continue with --resume" in child.out
    doc = results(out)
    assert doc["state"] == "interrupted" and doc["interrupted"] is True
    assert [r["op"] for r in doc["results"]] == ["a_relu"] and doc["pending"] == ["activation/b_slow"]
    assert box.processes() == [] and box.temporaries() == []

    (suite / "activation" / "b_slow.py").write_text(RELU)          # the user fixes the slow op, then resumes
    child = box.run("bench", suite, "-o", out, *ARGS, "--resume")
    assert child.rc == 0, child.out
    done = results(out)
    assert done["state"] == "complete" and done["pending"] == []
    assert [r["op"] for r in done["results"]] == ["a_relu", "b_slow"]
    assert done["results"][0] == doc["results"][0]                 # the finished op was not run again


@pytest.mark.heavy
def test_a_new_run_replaces_an_older_results_json_at_once(suite, tmp_path, cli):
    out = tmp_path / "out"
    out.mkdir()
    (out / "results.json").write_text(json.dumps({"results": [{"op": "from an older run"}]}))
    (suite / "activation" / "b_slow.py").unlink()
    assert cli("bench", suite, "-o", out, *ARGS)[0] == 0
    assert [r["op"] for r in results(out)["results"]] == ["a_relu"]


def test_resume_refuses_a_run_made_with_other_settings(suite, tmp_path, cli):
    out = tmp_path / "out"
    out.mkdir()
    (out / "results.json").write_text(json.dumps({"results": [], "meta": {"config": {"seeds": [0, 1, 2]}}}))
    rc, text = cli("bench", suite, "-o", out, *ARGS, "--resume")
    assert rc == 2 and "other settings" in text


@pytest.mark.parametrize("option, value", [("--seeds", "0"), ("--timeout", "0"), ("--jobs", "0"), ("--timeout", "inf")])
def test_bad_option_values_are_refused(suite, tmp_path, option, value, capsys):
    from ascendcraft_lab.cli import main
    with pytest.raises(SystemExit) as refused:          # argparse's usage error
        main(["bench", str(suite), option, value, "-o", str(tmp_path / "out")])
    assert refused.value.code == 2 and f"argument {option}" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_only_with_no_match_names_the_suites_ops(suite, tmp_path, cli):
    rc, text = cli("bench", suite, "--only", "nosuchop", "-o", tmp_path / "out")
    assert rc == 2 and "no op of" in text and "activation/a_relu" in text


def test_an_output_that_is_a_file_is_refused(suite, tmp_path, cli):
    (tmp_path / "afile").write_text("x")
    rc, text = cli("bench", suite, "-o", tmp_path / "afile")
    assert rc == 2 and "is a file" in text and (tmp_path / "afile").read_text() == "x"


def test_a_reference_that_is_not_utf8_is_one_failed_op(tmp_path):
    from ascendcraft_lab.bench.suite import discover
    folder = tmp_path / "suite" / "activation"
    folder.mkdir(parents=True)
    (folder / "bad.py").write_bytes(b"# caf\xe9\n" + RELU.encode())
    [op] = discover(tmp_path / "suite")
    assert op.op == "bad" and op.error == ""        # the reference loader reports it, naming the byte
