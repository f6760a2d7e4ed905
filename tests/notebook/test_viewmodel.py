"""The view model (notebook/viewmodel.py): what each step's and the pipeline's buttons may do, and
why not, decided once — and rendered alike by the payload (the extension), the ipywidgets view
and the static HTML. (The extension half is driven in a browser in tests/ui/test_one_view_model.py.)
"""
from __future__ import annotations

import html
import re

import pytest

from ascendcraft_lab.notebook import LabError, LabSession
from ascendcraft_lab.notebook.payload import pipeline_payload
from ascendcraft_lab.notebook.render import static_html
from ascendcraft_lab.notebook.viewmodel import PIPELINE_ACTIONS, STEP_ACTIONS, view_model
from ascendcraft_lab.notebook.widget import PipelineView

KERNEL = "kernel/gelu_kernel.cpp"
HOST = "host/gelu_tiling.cpp"
TODO = "// TODO(pass 3 compute)"


def conflicting_init_edit(lab) -> None:
    """Edit init where compute's regeneration writes: compute fails with a conflict, holding no edit."""
    lab.edit("init", {KERNEL: lab.text(KERNEL, "init").replace(TODO, "// my loop, not yours")})


def breaking_compute_edit(lab) -> None:
    """Edit compute so that its checks fail (a tensor is never freed): compute fails holding the edit."""
    lab.edit("compute", {KERNEL: lab.text(KERNEL, "compute").replace("xuQueue.FreeTensor(xu);", "// no free", 1)})


@pytest.mark.heavy
def test_a_fresh_session_opens_accept_and_closes_undo_and_compile_saying_why(lab):
    vm = view_model(lab)
    assert [s.name for s in vm.steps] == ["host", "init", "compute", "align"]
    assert vm.review_next == "host" and vm.status.state == "review"
    host = vm.step("host")
    assert host.status == "pending" and host.label == "to review"
    assert host.actions["accept"].enabled and host.actions["accept"].title == "accept pass 1 (host) as generated"
    assert not host.actions["undo"].enabled
    assert host.actions["undo"].title == "nothing to undo: pass 1 (host) is neither accepted nor edited"
    compile_ = vm.actions["compile"]
    assert not compile_.enabled
    assert compile_.why_not == "accept or edit every step first (to review: host, init, compute, align)"
    assert vm.status.text == f"to compile & verify, {compile_.why_not}"


@pytest.mark.heavy
def test_undo_of_a_failed_step_is_open_exactly_when_the_step_holds_an_edit(lab):
    lab.accept("host")
    conflicting_init_edit(lab)
    compute = view_model(lab).step("compute")
    assert compute.status == "failed" and not compute.actions["undo"].enabled
    assert compute.actions["undo"].why_not.startswith("nothing to undo: pass 3 (compute) holds no edit of yours; "
                                                      "resolve its conflict at kernel/gelu_kernel.cpp:")
    assert compute.actions["undo"].why_not.endswith("or undo your edit of pass 2 (init)")
    with pytest.raises(LabError):           # closed in every view because the session refuses it
        lab.undo("compute")

    breaking_compute_edit(lab)
    vm = view_model(lab)
    compute = vm.step("compute")
    assert compute.status == "failed" and compute.actions["undo"].enabled
    assert compute.actions["undo"].does.startswith("drop your edit of pass 3 (compute)")
    align = vm.step("align")                # fails by compute's errors, which count again at every later step
    assert align.status == "failed" and not align.actions["undo"].enabled
    assert align.actions["accept"].why_not == ("a failed step cannot be accepted: pass 3 (compute) failed before it: "
                                               "mend that step first")
    assert vm.status.state == "failed" and vm.review_next == "compute"

    lab.undo("compute")                     # open, so the session takes it: the conflict is back
    assert view_model(lab).step("compute").conflicts and lab.step("compute").status == "failed"


@pytest.mark.heavy
def test_what_each_status_opens(lab):
    lab.accept("host")
    lab.edit("init", {KERNEL: lab.text(KERNEL, "init").replace("using namespace AscendC;",
                                                                "using namespace AscendC;  // mine")})
    vm = view_model(lab)
    opened = {s.name: {a for a in STEP_ACTIONS if s.actions[a].enabled} for s in vm.steps}
    assert opened["host"] == {"edit", "undo", "regenerate"}          # accepted
    assert opened["init"] == {"edit", "undo", "regenerate"}          # edited
    assert opened["compute"] == {"accept", "edit", "regenerate"}     # pending
    assert vm.step("host").actions["undo"].does == "withdraw the acceptance of pass 1 (host): it goes back to review"
    assert vm.step("init").actions["regenerate"].does.endswith("dropping your edit of it")
    assert "deterministic" in vm.step("compute").actions["regenerate"].does


@pytest.mark.heavy
def test_passes_that_did_not_run_say_why(folder, gelu_dsl, gelu_ref):
    lab = LabSession.open(folder, gelu_dsl, reference=gelu_ref, until="init")
    vm = view_model(lab)
    compute = vm.step("compute")
    assert compute.status == "not-run" and compute.label == "not run" and not compute.unchanged
    assert all(not compute.actions[a].enabled for a in STEP_ACTIONS)
    assert compute.actions["edit"].why_not == "pass 3 (compute) has not run: the session stops after `init` (--until)"
    assert vm.status.state == "incomplete" and not vm.actions["compile"].enabled
    assert "--until" in vm.actions["profile"].why_not


def test_a_pass_that_cannot_lower_the_draft_offers_no_edit_and_says_to_change_the_draft(folder, gelu_dsl):
    # Ascend310P has no DataCopyPad: the align pass cannot lower a tail it cannot prove aligned.
    lab = LabSession.open(folder, gelu_dsl, soc="Ascend310P")
    align = view_model(lab).step("align")
    assert align.status == "failed" and not align.files
    assert not align.actions["edit"].enabled and not align.actions["undo"].enabled
    assert align.actions["accept"].why_not == ("a failed step cannot be accepted: change the DSL draft "
                                               "(the pass could not lower it, so it made no output to edit)")


@pytest.mark.heavy
def test_the_payload_carries_the_view_model(lab):
    lab.accept("host")
    doc, vm = pipeline_payload(lab), view_model(lab).to_json()
    assert doc["actions"] == vm["actions"] and doc["status"] == vm["status"] and doc["review_next"] == "init"
    for sent, model in zip(doc["passes"], vm["passes"]):
        assert sent["actions"] == model["actions"] and sent["label"] == model["label"]
        assert [f["path"] for f in sent["files"]] == [f["path"] for f in model["files"]]


def widget_buttons(view: PipelineView, step: str) -> dict:
    view.select(step)
    return {a: (not view.buttons[a].disabled, view.buttons[a].tooltip) for a in STEP_ACTIONS + PIPELINE_ACTIONS}


@pytest.mark.heavy
def test_the_widget_shows_the_view_models_buttons_and_status_line(lab):
    lab.accept("host")
    conflicting_init_edit(lab)
    breaking_compute_edit(lab)
    view = PipelineView(lab)
    vm = view_model(lab)
    assert view.selected == vm.review_next == "compute"
    for s in vm.steps:
        want = {a: (s.actions[a].enabled, s.actions[a].title) for a in STEP_ACTIONS}
        want.update({a: (vm.actions[a].enabled, vm.actions[a].title) for a in PIPELINE_ACTIONS})
        assert widget_buttons(view, s.name) == want
    assert widget_buttons(view, "compute")["undo"][0], "the widget no longer refuses to undo a failed edited step"
    view.undo_button.click()
    assert lab.step("compute").status == "failed" and not widget_buttons(view, "compute")["undo"][0]
    line = re.search(r'data-status="failed">(.*?)</div>', view.verdict.value, re.S)
    assert html.unescape(re.sub(r"<[^>]+>", "", line.group(1))) == view_model(lab).status.text


@pytest.mark.heavy
def test_the_static_page_lists_the_view_models_statuses_and_status_line(folder, gelu_dsl, gelu_ref):
    lab = LabSession.open(folder, gelu_dsl, reference=gelu_ref, until="compute")
    lab.accept("host")
    page = static_html(lab)
    vm = view_model(lab)
    for s in vm.steps:
        assert html.escape(s.label) in page
    assert html.escape(vm.step("align").actions["accept"].why_not) in page
    assert f'data-status="{vm.status.state}"' in page and "(--until)" in page


@pytest.mark.heavy
def test_the_status_line_follows_the_last_run(lab):
    lab.accept_all()
    assert view_model(lab).status.state == "ready"
    lab.compile_and_verify()
    vm = view_model(lab)
    assert vm.status.state == "verified" and vm.status.text.startswith("verified on the emulator")
    lab.undo("align")
    vm = view_model(lab)
    assert vm.status.state == "review"
    assert vm.status.text.startswith("the steps changed since the last run; to compile & verify, accept or edit")


def set_ub_bytes(lab, step: str, value: int) -> None:
    text = lab.text(HOST, step)
    old = next(ln for ln in text.splitlines() if "constexpr int64_t UB_BYTES = " in ln)
    lab.edit(step, {HOST: text.replace(old, re.sub(r"= \d+;", f"= {value};", old))})


def ub_bytes_shown(doc: dict, step: str) -> set[str]:
    """UB_BYTES as the payload (what the extension draws) shows it in a step's host file and in the final project."""
    step_doc = next(p for p in doc["passes"] if p["name"] == step)
    texts = [f["after"]["text"] for f in step_doc["files"] if f["path"] == HOST]
    texts += [f["body"]["text"] for f in doc["final"]["files"] if f["path"] == HOST]
    return {m for t in texts for m in re.findall(r"UB_BYTES = (\d+);", t)}


@pytest.mark.heavy
def test_a_later_edit_of_the_host_step_is_kept_after_an_edit_of_compute(lab):
    """Issue 40, item 1: edit compute, then change UB_BYTES in the host step. Every view shows the
    changed value at every later step and in the final project (compute's edit no longer sets it back)."""
    lab.accept("host")
    lab.edit("compute", {KERNEL: lab.text(KERNEL, "compute").replace("using namespace AscendC;",
                                                                      "using namespace AscendC;  // mine")})
    set_ub_bytes(lab, "host", 65536)
    doc = pipeline_payload(lab)
    vm = view_model(lab)
    assert vm.step("compute").status == "edited" and not vm.step("compute").conflicts
    assert not any("not in this edited step" in n for n in vm.step("compute").notes)
    assert "UB_BYTES = 65536;" in lab.text(HOST) and "// mine" in lab.text(KERNEL)
    for step in ("init", "compute", "align"):
        assert "UB_BYTES = 65536;" in lab.text(HOST, step), step
    # host's file is shown where host changed it (pass 1) and in the final project: the kept value
    assert ub_bytes_shown(doc, "host") == {"65536"}
    lab.accept_all()
    assert lab.ready and view_model(lab).actions["compile"].enabled


@pytest.mark.heavy
def test_a_later_edit_that_overlaps_an_edited_step_is_a_conflict_shown_on_that_step(lab):
    lab.accept("host")
    set_ub_bytes(lab, "compute", 100000)
    set_ub_bytes(lab, "host", 65536)
    vm = view_model(lab)
    compute = vm.step("compute")
    assert compute.status == "failed" and compute.conflicts
    assert compute.actions["undo"].enabled                       # the way back: drop the compute edit
    assert "your edit of this step against your edit of pass 1 (host)" in compute.actions["accept"].why_not
    assert vm.status.state == "failed" and not vm.actions["compile"].enabled
    doc = pipeline_payload(lab)
    shown = next(p for p in doc["passes"] if p["name"] == "compute")
    assert shown["status"] == "failed" and shown["conflicts"][0]["path"] == HOST
    assert "<<<<<<< your edit" in lab.text(HOST, "compute")


def test_a_finding_is_labelled_with_the_step_it_is_shown_at(folder, gelu_dsl):
    """Issue 40, item 6: the compute edit's error, found again at align by compute's check, is
    labelled align there (saying whose check it is), not compute."""
    lab = LabSession.open(folder, gelu_dsl)
    breaking_compute_edit(lab)
    vm = view_model(lab)
    (at_compute,) = vm.step("compute").findings
    (at_align,) = vm.step("align").findings
    assert at_compute["text"].startswith("error: [compute/queue-balance] tensor allocated from `xuQueue`")
    assert at_align["text"].startswith("error: [align/queue-balance, pass 3 (compute)'s check, run again on this "
                                       "step] tensor allocated from `xuQueue`")
    assert at_align["pass_name"] == "compute"          # the data keeps whose check it is


def test_the_profile_button_promises_an_estimate_not_npu_timing(folder, gelu_dsl):
    """Issue 40, item 7: the Profile tooltip says ESTIMATED and what it shows; no NPU timing."""
    lab = LabSession.open(folder, gelu_dsl, until="host")
    does = view_model(lab).actions["profile"].does
    assert does.startswith("ESTIMATED kernel time") and "not a measurement" in does
    assert "NPU" not in does and "bounds it" in does and "what to try next" in does
