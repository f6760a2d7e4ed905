"""The bench's executors without a cluster: what `--executor ray` says when it cannot run, how an
op's node paths are put back, and that an op lost with its node is run again by `--resume`."""
from __future__ import annotations

import json
import sys

import pytest

from ascendcraft_lab.bench.cli import _previous_run, finished_ops, main as bench_main
from ascendcraft_lab.bench.ray_executor import _moved

REF = '''import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(4, 8)]


def get_init_inputs():
    return []
'''


def _suite(tmp_path):
    folder = tmp_path / "suite" / "activation"
    folder.mkdir(parents=True)
    (folder / "relu.py").write_text(REF)
    return tmp_path / "suite"


def test_without_ray_the_ray_executor_says_how_to_install_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)          # `import ray` fails as on a machine without it
    out = tmp_path / "out"
    rc = bench_main([str(_suite(tmp_path)), "-o", str(out), "--executor", "ray"])
    err = capsys.readouterr().err
    assert rc == 2 and "pip install 'ascendcraft-lab[ray]'" in err and "Traceback" not in err
    assert not (out / "results.json").exists()             # nothing written that looks like a run


def test_address_is_refused_without_the_ray_executor(tmp_path, capsys):
    rc = bench_main([str(_suite(tmp_path)), "-o", str(tmp_path / "out"), "--address", "auto"])
    assert rc == 2 and "--address is for --executor ray" in capsys.readouterr().err


def test_node_paths_in_a_result_and_its_log_become_this_machines():
    moves = [("/tmp/acbench-ray-9-x/op", "/home/me/out/ops/activation/relu"),
             ("/tmp/acbench-ray-9-x/reference", "/home/me/suite/activation")]
    result = {"path": "/tmp/acbench-ray-9-x/reference/relu.py", "shapes": {"reference": {
        "error": "see /tmp/acbench-ray-9-x/op/reference/ascendc", "seeds": [{"seed": 0}]}}, "n": 3}
    assert _moved(result, moves) == {"path": "/home/me/suite/activation/relu.py", "shapes": {"reference": {
        "error": "see /home/me/out/ops/activation/relu/reference/ascendc", "seeds": [{"seed": 0}]}}, "n": 3}


def test_resume_runs_the_ops_lost_with_their_node_again(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    config = {"suite": "s", "draft": "drafter"}
    lost = {"category": "activation", "op": "a", "lost": ["NodeDiedError: ...", "NodeDiedError: ..."],
            "shapes": {"reference": {"compiled": False, "correct": False, "stage": "lost"}}}
    done = {"category": "activation", "op": "b", "shapes": {"reference": {"compiled": True, "correct": True}}}
    (out / "results.json").write_text(json.dumps({"results": [lost, done], "meta": {"config": config}}))
    previous, why = _previous_run(out, config)
    assert why == "" and list(finished_ops(previous)) == ["activation/b"]


@pytest.mark.heavy
def test_an_op_stopped_at_the_time_limit_is_a_timeout_not_a_crash(tmp_path, capsys):
    out = tmp_path / "out"
    # the worker cannot even import the pipeline in 0.3 s: stopped by --timeout
    assert bench_main([str(_suite(tmp_path)), "-o", str(out), "--timeout", "0.3", "--seeds", "1", "--no-timing",
                       "--shapes", "reference"]) == 0
    (relu,) = json.loads((out / "results.json").read_text())["results"]
    shape = relu["shapes"]["reference"]
    assert shape["stage"] == "timeout" and "did not finish within 0.3 s (--timeout)" in shape["error"]
    assert "FAIL(timeout)" in capsys.readouterr().err
    assert "activation/relu (reference): timeout:" in (out / "report.md").read_text()


def test_a_second_bench_into_the_same_folder_is_refused_while_the_first_runs(tmp_path, capsys):
    import fcntl
    import os
    out = tmp_path / "out"
    out.mkdir()
    (out / "results.json").write_text('{"state": "running"}')          # the first run's
    fd = os.open(out / ".bench.lock", os.O_RDWR | os.O_CREAT)             # held as a running bench holds it
    os.write(fd, b"pid 4242, started 12:00:00")
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        rc = bench_main([str(_suite(tmp_path)), "-o", str(out), "--seeds", "1", "--no-timing"])
    finally:
        os.close(fd)
    err = capsys.readouterr().err
    assert rc == 2 and f"-o {out} is in use by another bench (pid 4242, started 12:00:00)" in err
    assert (out / "results.json").read_text() == '{"state": "running"}'
