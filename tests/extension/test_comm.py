"""The kernel side of the JupyterLab extension: the `ascendcraft.pipeline` comm (notebook/comm.py).

Requests go through `PipelineChannel` with a stand-in comm, as the extension's would; the
replies are what the browser gets. (The browser half is tested in tests/ui/.)
"""
from __future__ import annotations

import json

import jsonschema
import pytest

from ascendcraft_lab.examples import get_example
from ascendcraft_lab.notebook import LabSession
from ascendcraft_lab.notebook import comm as pipeline_comm
from ascendcraft_lab.notebook import lab as pipeline_lab
from ascendcraft_lab.notebook.comm import PipelineChannel, find_session, lazy_payload, register_comm_target
from ascendcraft_lab.notebook.payload import load_schema, pipeline_payload
from ascendcraft_lab.session.npu import npu_refusal

KERNEL = "kernel/gelu_kernel.cpp"


class FakeComm:
    def __init__(self):
        self.sent: list[dict] = []
        self.on_msg_cb = self.on_close_cb = None

    def on_msg(self, cb):
        self.on_msg_cb = cb

    def on_close(self, cb):
        self.on_close_cb = cb

    def send(self, data):
        self.sent.append(json.loads(json.dumps(data)))     # what goes over the wire is JSON

    def receive(self, data):
        self.on_msg_cb({"content": {"data": data}})
        return self.sent[-1]


@pytest.fixture
def lab(tmp_path):
    ex = get_example("gelu")
    return LabSession.open(tmp_path / "sessions" / "gelu", ex.dsl.read_text(), reference=ex.reference)


@pytest.fixture
def channel(lab):
    pipeline_lab._RESUMED.clear()
    comm = FakeComm()
    PipelineChannel(comm, user_ns={"Out": {1: lab}})
    return comm


def ask(comm, lab, action, **kw):
    return comm.receive({"id": 1, "action": action, "session": str(lab.folder.path), **kw})


@pytest.mark.heavy
def test_state_replies_with_the_payload_minus_the_pass_bodies(channel, lab):
    reply = ask(channel, lab, "state")
    assert reply["ok"] and reply["id"] == 1
    doc = reply["payload"]
    jsonschema.Draft202012Validator(load_schema()).validate(doc)
    bodies = [f[side] for p in doc["passes"] for f in p["files"] for side in ("before", "after") if f[side]]
    assert bodies and all(b["omitted"] and b["text"] == "" for b in bodies)
    assert doc["dsl"]["text"] == lab.dsl and doc["final"]["files"][0]["body"]["text"]


@pytest.mark.heavy
def test_fetch_body_returns_one_step_file_with_its_source_map(channel, lab):
    full = next(f for f in pipeline_payload(lab)["passes"][2]["files"] if f["path"] == KERNEL)
    after = ask(channel, lab, "fetch_body", step="compute", path=KERNEL, side="after")["body"]
    before = ask(channel, lab, "fetch_body", step="compute", path=KERNEL, side="before")["body"]
    assert after["text"] == full["after"]["text"] and after["dsl_lines"] == full["after"]["dsl_lines"]
    assert before["text"] == full["before"]["text"]
    assert ask(channel, lab, "fetch_body", path=KERNEL, side="final")["body"]["text"] == lab.text(KERNEL)
    missing = ask(channel, lab, "fetch_body", step="host", path=KERNEL, side="before")["body"]
    assert missing["missing"] is True


@pytest.mark.heavy
def test_accept_edit_undo_act_on_the_session_the_notebook_holds(channel, lab):
    assert ask(channel, lab, "accept", step="host")["payload"]["passes"][0]["status"] == "accepted"
    assert lab.step("host").status == "accepted"          # the same LabSession as the cell's `lab`
    text = lab.text(KERNEL, "compute").replace("using namespace AscendC;", "using namespace AscendC;  // edited")
    reply = ask(channel, lab, "edit", step="compute", files={KERNEL: text})
    assert reply["ok"], reply.get("error")
    assert reply["payload"]["passes"][2]["status"] == "edited"
    assert "// edited" in lab.text(KERNEL)
    assert ask(channel, lab, "undo", step="compute")["payload"]["passes"][2]["status"] == "pending"


@pytest.mark.heavy
def test_a_user_error_is_one_paragraph_not_a_traceback(channel, lab):
    reply = ask(channel, lab, "compile")
    assert reply == {"id": 1, "ok": False, "error": reply["error"]}
    assert reply["error"].startswith("error: compile & verify needs every step accepted or edited")
    assert "Traceback" not in reply["error"]
    assert "unknown action" in ask(channel, lab, "explode")["error"]
    assert "not a session folder" in channel.receive({"id": 2, "action": "state", "session": "/nonexistent/x"})["error"]


@pytest.mark.heavy
def test_compile_sends_progress_then_the_verdict(channel, lab):
    lab.accept_all()
    reply = ask(channel, lab, "compile")
    assert reply["ok"], reply.get("error")
    assert reply["payload"]["verdict"]["correct"] is True
    progress = [m for m in channel.sent if m.get("event") == "progress"]
    assert progress and progress[0]["id"] == 1


@pytest.mark.heavy
def test_a_change_made_in_a_cell_is_pushed_to_the_view(channel, lab):
    ask(channel, lab, "state")
    sent = len(channel.sent)
    lab.accept("init")                                      # a cell calling the session directly
    event = channel.sent[sent]
    assert event["event"] == "changed" and event["session"] == str(lab.folder.path)
    assert event["payload"]["passes"][1]["status"] == "accepted"
    ask(channel, lab, "accept", step="host")                # our own request: answered, not pushed
    assert [m.get("event") for m in channel.sent[sent + 1:]] == [None]


@pytest.mark.heavy
def test_after_a_restart_the_session_is_resumed_from_its_folder(lab):
    lab.accept("host")
    pipeline_lab._RESUMED.clear()
    comm = FakeComm()
    PipelineChannel(comm, user_ns={})                       # a fresh kernel: nothing in the namespace
    reply = comm.receive({"id": 5, "action": "state", "session": str(lab.folder.path)})
    assert reply["ok"] and reply["payload"]["passes"][0]["status"] == "accepted"
    resumed = find_session(lab.folder.path, {})
    assert resumed is not lab and resumed is find_session(lab.folder.path, {})


@pytest.mark.heavy
def test_the_newest_displayed_session_wins(lab, tmp_path):
    older = LabSession.resume(lab.folder.path)
    assert find_session(lab.folder.path, {"Out": {1: older, 2: lab}}) is lab
    pipeline_lab.remember(older)
    try:
        assert find_session(lab.folder.path, {"Out": {2: lab}}) is older
    finally:
        pipeline_lab._DISPLAYED.clear()


@pytest.mark.heavy
def test_lazy_payload_is_the_payload_with_pass_bodies_left_out(lab):
    full, lazy = pipeline_payload(lab), lazy_payload(lab)
    for p_full, p_lazy in zip(full["passes"], lazy["passes"]):
        assert [f["path"] for f in p_full["files"]] == [f["path"] for f in p_lazy["files"]]
        for f in p_lazy["files"]:
            assert all(f[s] is None or (f[s]["omitted"] and f[s]["lines"] >= 0) for s in ("before", "after"))
    assert lazy["verdict"] == full["verdict"] and lazy["dsl"] == full["dsl"]


def test_the_comm_target_registers_once_in_a_kernel_and_not_elsewhere():
    class Manager:
        def __init__(self):
            self.targets = {}

        def register_target(self, name, fn):
            self.targets[name] = fn

    class Shell:
        kernel = type("K", (), {"comm_manager": Manager()})()

    shell = Shell()
    assert register_comm_target(shell) and register_comm_target(shell)
    assert list(shell.kernel.comm_manager.targets) == ["ascendcraft.pipeline"]
    assert register_comm_target(object()) is False


@pytest.mark.heavy
def test_the_bundle_is_what_the_cell_displays_minus_the_live_widget(channel, lab):
    ask(channel, lab, "accept", step="host")
    bundle = ask(channel, lab, "bundle")["bundle"]
    assert set(bundle) == {"application/vnd.ascendcraft.pipeline+json", "text/html", "text/plain"}
    doc = bundle["application/vnd.ascendcraft.pipeline+json"]
    assert doc["passes"][0]["status"] == "accepted" and not doc["passes"][1]["files"][0]["after"]["omitted"]


@pytest.mark.heavy
def test_regenerate_reruns_a_pass_and_says_the_rule_engine_is_deterministic(channel, lab):
    ask(channel, lab, "accept", step="init")
    doc = ask(channel, lab, "regenerate", step="init")["payload"]
    assert doc["passes"][1]["status"] == "pending"
    assert any("deterministic" in n for n in doc["notes"])


@pytest.mark.heavy
def test_profile_needs_every_step_reviewed_as_compile_does(channel, lab):
    reply = ask(channel, lab, "profile")
    assert not reply["ok"] and "every step accepted or edited" in reply["error"]


@pytest.mark.heavy
def test_profile_offline_replies_with_the_estimated_profile_and_its_pipe_timelines(channel, lab):
    lab.accept_all()
    reply = ask(channel, lab, "profile")
    assert reply["ok"], reply.get("error")
    text = reply["profile"]
    assert text.startswith("ESTIMATED profile of gelu") and "x ESTIMATED" in text
    # issue 40, item 7: a compact summary (no row per block, alike blocks one phrase), the bound
    # pipe named, what to try next
    lines = text.splitlines()
    assert len(lines) <= 12, text
    assert len(set(lines)) == len(lines), text
    assert "  bound by   " in text and "  try next   " in text and "  roofline   at " in text
    assert "per block (busy fraction" not in text
    # the timelines travel as data (the extension draws them): a row per pipe of each first block
    timeline = reply["timeline"]
    assert timeline["estimate"] and 1 <= len(timeline["blocks"]) <= 3
    block = timeline["blocks"][0]
    assert block["label"] == "0" and [p["pipe"] for p in block["pipes"]][:3] == ["MTE2", "V", "MTE3"]
    for p in block["pipes"]:
        assert all(0 <= start < end <= timeline["end"] for start, end, _api, _line in p["spans"])
    if npu_refusal("profile"):
        assert "measured profile: not here" in text
