"""The ipywidgets view: its buttons and editor drive the LabSession, and it redraws after every change."""
from __future__ import annotations
import pytest

from ascendcraft_lab.notebook.widget import PipelineView

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy

KERNEL = "kernel/gelu_kernel.cpp"


def test_the_view_lists_the_passes_and_shows_the_selected_diff(lab):
    view = PipelineView(lab)
    assert [v for _, v in view.steps_list.options] == ["host", "init", "compute", "align"]
    view.select("init")
    assert "InitBuffer" in view.diff_pane.value and "pass 2 · init" in view.diff_pane.value
    assert "carves the Unified Buffer" in view.explain.value
    assert view.compile_button.disabled
    tab = view.final_tabs.selected_index
    assert view._final_paths[tab] == KERNEL and "DataCopyPad" in view.final_tabs.children[tab].value
    others = [c.value for i, c in enumerate(view.final_tabs.children) if i != tab]
    assert others and all(v == "" for v in others)          # other tabs render when opened


def test_accept_button_accepts_the_selected_step(lab):
    view = PipelineView(lab)
    view.select("compute")
    view.accept_button.click()
    assert lab.step("compute").status == "accepted"
    assert "✓ 3 compute" in dict((v, l) for l, v in view.steps_list.options)["compute"]
    view.undo_button.click()
    assert lab.step("compute").status == "pending"


def test_edit_saves_through_the_editor_and_rederives_later_steps(lab):
    view = PipelineView(lab)
    view.select("init")
    view.edit_button.click()
    assert view.edit_box.layout.display == "flex" and view.edit_file.value == KERNEL
    view.editor.value = view.editor.value.replace("using namespace AscendC;",
                                                  "using namespace AscendC;  // from the widget")
    view.save_edit_button.click()
    assert lab.step("init").status == "edited"
    assert "// from the widget" in lab.text(KERNEL, "align")
    assert "saved" in view.message.value and view.edit_box.layout.display == "none"


def test_a_conflicting_edit_is_announced_in_the_view(lab):
    view = PipelineView(lab)
    view.select("init")
    view.edit_button.click()
    view.editor.value = view.editor.value.replace("// TODO(pass 3 compute)", "// my loop, not yours")
    view.save_edit_button.click()
    assert "conflict" in view.message.value
    assert lab.step("compute").status == "failed"
    view.select("compute")
    assert "conflict in kernel/gelu_kernel.cpp" in view.explain.value


def test_compile_button_shows_the_verdict(lab):
    view = PipelineView(lab)
    view.compile_button.click()                      # not reviewed yet: a message, no exception
    assert "needs every step accepted or edited" in view.message.value
    lab.accept_all()                                 # a change made outside the view redraws it
    assert not view.compile_button.disabled
    view.compile_button.click()
    assert lab.result is not None and lab.result.correct
    assert "✓ verified" in view.verdict.value and "correct: `gelu`" in view.message.value


def test_focus_on_a_dsl_line_dims_the_others_and_show_all_lifts_the_cap(lab):
    view = PipelineView(lab)
    load_line = next(i for i, l in enumerate(lab.dsl.splitlines(), 1) if "load(x[r, c])" in l)
    view.focus.value = load_line
    assert "opacity:0.35" in view.dsl_pane.value and "outline:1px solid" in view.dsl_pane.value
    view.show_all.value = True
    assert view._limit() > 200


@pytest.mark.heavy      # runs the kernel traced on the emulator (a C++ compile)
def test_profile_button_shows_the_estimated_profile_once_every_step_is_reviewed(lab):
    view = PipelineView(lab)
    assert view.profile_button.disabled and "accept or edit every step" in view.profile_button.tooltip
    lab.accept_all()
    assert not view.profile_button.disabled and "ESTIMATED" in view.profile_button.tooltip
    view.profile_button.click()
    assert "ESTIMATED profile of gelu" in view.message.value and not view.profile_button.disabled
