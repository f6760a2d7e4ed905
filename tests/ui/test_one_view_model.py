"""One view model, two renderers: the same review, step by step, through the JupyterLab extension
(in Chromium, by its own buttons and merge editor) and through the ipywidgets view (in this
process, by its buttons and editor), and at every step both show the same statuses, the same
open and closed buttons with the same tooltips, and the same status line.

The sequence walks the case the views used to disagree on (Undo of a failed step): an edit of
init whose text conflicts with what compute regenerates (compute fails, holding no edit: Undo
closed, its reason naming init's edit), then an edit of compute that breaks its checks (compute
fails holding an edit: Undo open), and back.
"""
from __future__ import annotations

import html
import json
import re

import pytest

from lab_driver import ARTIFACTS, NOTEBOOKS, NotebookPage, copy_notebooks

TUTORIAL = "01-first-kernel.ipynb"
KERNEL = "kernel/gelu_kernel.cpp"
PASSES = ("host", "init", "compute", "align")
STEP_ACTIONS = ("accept", "edit", "undo", "regenerate")
PIPELINE_ACTIONS = ("compile", "profile")
# The edits: (step, the text of a line to replace, its new text). The init edit changes the line
# compute's regeneration rewrites (a conflict); the compute edit drops a FreeTensor (a failed check).
INIT_EDIT = ("init", "// TODO(pass 3 compute): the tile loop and the stage calls for", "// my loop, not yours")
COMPUTE_EDIT = ("compute", "xuQueue.FreeTensor(xu);", "// no free here")
SEQUENCE = [
    ("open", None),
    ("accept", "host"),
    ("edit", INIT_EDIT),
    ("edit", COMPUTE_EDIT),
    ("undo", "compute"),
    ("undo", "init"),
    ("accept", "init"),
    ("accept", "compute"),
    ("accept", "align"),
]


def tutorial_cell() -> str:
    """The DSL draft of tutorial 01's `%%ascendcraft` cell (what the browser half runs)."""
    nb = json.loads((NOTEBOOKS / TUTORIAL).read_text())
    source = next("".join(c["source"]) for c in nb["cells"] if "".join(c["source"]).startswith("%%ascendcraft"))
    return source.split("\n", 1)[1]


# ----------------------------------------------------------------------------- the ipywidgets half
class WidgetDriver:
    def __init__(self, folder):
        from ascendcraft_lab.examples import get_example
        from ascendcraft_lab.notebook import LabSession
        from ascendcraft_lab.notebook.widget import PipelineView
        self.lab = LabSession.open(folder, tutorial_cell(), reference=get_example("gelu").reference)
        self.view = PipelineView(self.lab)
        self.first_selected = self.view.selected

    def do(self, action, arg) -> None:
        v = self.view
        if action == "open":
            return
        if action == "edit":
            step, old, new = arg
            v.select(step)
            assert not v.edit_button.disabled, v.edit_button.tooltip
            v.edit_button.click()
            v.edit_file.value = KERNEL        # the tab the extension's editor opens on: the kernel source
            assert old in v.editor.value
            v.editor.value = v.editor.value.replace(old, new, 1)
            v.save_edit_button.click()
            return
        v.select(arg)
        button = v.buttons[action]
        assert not button.disabled, button.tooltip
        button.click()

    def snapshot(self) -> dict:
        from ascendcraft_lab.notebook.render import STATUS_MARKS
        v = self.view
        by_mark = {mark: status for status, mark in STATUS_MARKS.items()}
        labels = {name: label for label, name in v.steps_list.options}
        steps = {}
        for name in PASSES:
            v.select(name)
            steps[name] = {"status": by_mark[labels[name].split()[0]],
                           "actions": {a: (not v.buttons[a].disabled, v.buttons[a].tooltip) for a in STEP_ACTIONS}}
        pipeline = {a: (not v.buttons[a].disabled, v.buttons[a].tooltip) for a in PIPELINE_ACTIONS}
        line = re.search(r'data-status="([a-z-]+)">(.*?)</div>', v.verdict.value, re.S)
        status = (line.group(1), html.unescape(re.sub(r"<[^>]+>", "", line.group(2)))) if line else None
        return {"steps": steps, "pipeline": pipeline, "status": status}


# ----------------------------------------------------------------------------- the extension half
SNAPSHOT_JS = r"""
() => {
  const view = document.querySelector('.acl-pipeline');
  const buttons = {};
  for (const b of view.querySelectorAll('.acl-actions button[data-action]')) {
    buttons[b.dataset.action] = [!b.disabled, b.title];
  }
  const line = view.querySelector('.acl-verdict .acl-status-line');
  return { buttons, status: line ? [line.dataset.status, line.textContent] : null,
           selected: view.querySelector('li.acl-pass[aria-selected="true"]')?.dataset.step || null };
}
"""


class BrowserDriver:
    def __init__(self, nb: NotebookPage):
        self.nb = nb
        nb.run_cells_through(nb.cell_index("%%ascendcraft"))
        nb.view.wait_for()
        nb.wait_live()
        self.first_selected = nb.page.evaluate(SNAPSHOT_JS)["selected"]

    def idle(self) -> None:
        """No request in flight and no body loading: what the view shows is settled."""
        self.nb.page.wait_for_function(
            "() => !document.querySelector('.acl-pipeline .acl-progress, .acl-pipeline .acl-busy')")

    def do(self, action, arg) -> None:
        nb = self.nb
        if action == "open":
            return
        if action == "edit":
            step, old, new = arg
            nb.select(step)
            nb.button("edit").click()
            editor = nb.view.locator(".acl-editing")
            editor.locator(".cm-content").wait_for()
            self.put_cursor_on(editor, old)
            nb.page.keyboard.press("Home")          # to the end of the indentation
            nb.page.keyboard.press("Shift+End")
            nb.page.keyboard.type(new)
            assert editor.locator(".cm-activeLine").inner_text().strip() == new
            nb.view.locator("button[data-action='save-edit']").click()
            nb.view.locator(".acl-editing").wait_for(state="detached")
            self.idle()
            return
        nb.select(arg)
        button = nb.button(action)
        assert button.is_enabled(), button.get_attribute("title")
        button.click()
        self.idle()

    def put_cursor_on(self, editor, text: str, max_lines: int = 600) -> None:
        """Move the editor's cursor to the first line holding `text`, as a person would: click into
        the editor, Ctrl+Home, then down a line at a time (CodeMirror scrolls the cursor into view
        and draws only what is in view, so no line has to be found on screen first)."""
        keys = self.nb.page.keyboard
        editor.locator(".cm-line").first.click()
        keys.press("Control+Home")
        for _ in range(max_lines):
            if text in editor.locator(".cm-activeLine").inner_text():
                return
            keys.press("ArrowDown")
        raise AssertionError(f"no line holding {text!r} in the first {max_lines} lines of the editor")

    def snapshot(self, expected: dict) -> dict:
        """The view's states, once its pass list shows the statuses the widget half reached."""
        nb = self.nb
        for name, step in expected["steps"].items():
            nb.wait_status(name, step["status"])
        self.idle()
        steps = {}
        for name in PASSES:
            nb.select(name)
            seen = nb.page.evaluate(SNAPSHOT_JS)
            steps[name] = {"status": nb.pass_item(name).get_attribute("data-status"),
                           "actions": {a: tuple(seen["buttons"][a]) for a in STEP_ACTIONS}}
        seen = nb.page.evaluate(SNAPSHOT_JS)
        return {"steps": steps, "pipeline": {a: tuple(seen["buttons"][a]) for a in PIPELINE_ACTIONS},
                "status": tuple(seen["status"]) if seen["status"] else None}


@pytest.fixture
def notebook(lab, page):
    copy_notebooks(lab.root / "one-view-model")
    return NotebookPage(page, lab, f"one-view-model/{TUTORIAL}").open()


def test_the_extension_and_the_widget_show_the_same_states_at_every_step(notebook, tmp_path):
    widget = WidgetDriver(tmp_path / "gelu")
    browser = BrowserDriver(notebook)
    assert browser.first_selected == widget.first_selected == "host"
    seen = []
    for action, arg in SEQUENCE:
        widget.do(action, arg)
        browser.do(action, arg)
        want = widget.snapshot()
        got = browser.snapshot(want)
        seen.append((action, want))
        assert got == want, f"after {action} {arg}: the extension shows\n{got}\nthe widget\n{want}"

    # The walk met each case of the Undo-of-a-failed-step policy, as the view model decides it.
    conflict = seen[2][1]["steps"]["compute"]
    assert conflict["status"] == "failed" and not conflict["actions"]["undo"][0]
    assert "undo your edit of pass 2 (init)" in conflict["actions"]["undo"][1]
    broken = seen[3][1]["steps"]["compute"]
    assert broken["status"] == "failed" and broken["actions"]["undo"] == (
        True, "drop your edit of pass 3 (compute): its generated output comes back and later steps are re-derived")
    ready = seen[-1][1]
    assert ready["pipeline"]["compile"][0] and ready["status"][0] == "ready"
    ARTIFACTS.mkdir(exist_ok=True)
    notebook.view.screenshot(path=str(ARTIFACTS / "one-view-model.png"))
