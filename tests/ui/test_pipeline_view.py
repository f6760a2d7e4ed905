"""The pipeline view in a real JupyterLab: tutorial 01's `%%ascendcraft` cell, reviewed and
verified through the view's own controls, and the same review surviving a kernel restart.

Each test works in its own copy of notebooks/ (its own session folders) on one server.
"""
from __future__ import annotations

import time

import nbformat
import pytest

from lab_driver import ARTIFACTS, NotebookPage, copy_notebooks

MIME = "application/vnd.ascendcraft.pipeline+json"

TUTORIAL = "01-first-kernel.ipynb"
KERNEL_FILE = "kernel/gelu_kernel.cpp"
EDITED_LINE = "no Tanh in the basic vector API"
MARK = " (reviewed in the browser)"
COMPILE_TIMEOUT = 240_000


@pytest.fixture
def notebook(lab, page, request):
    folder = request.node.name.replace("[", "_").replace("]", "")
    copy_notebooks(lab.root / folder)
    nb = NotebookPage(page, lab, f"{folder}/{TUTORIAL}").open()
    nb.folder = lab.root / folder
    return nb


def run_magic_cell(nb: NotebookPage) -> None:
    index = nb.cell_index("%%ascendcraft")
    assert index > 0, "tutorial 01 has a %%ascendcraft cell"
    nb.run_cells_through(index)
    nb.view.wait_for()
    nb.wait_live()


def edit_compute_and_save(nb: NotebookPage) -> None:
    """Edit one line of the compute step in the merge editor, accept a chunk, save the edit."""
    nb.select("compute")
    nb.button("edit").click()
    editor = nb.view.locator(".acl-editing")
    editor.locator(".cm-content").wait_for()
    # Per-chunk review: accepting a chunk marks it reviewed without changing the text.
    chunks = editor.locator(".cm-chunkButtons button[name='accept']")
    chunks.first.wait_for()
    before = chunks.count()
    chunks.first.click()
    assert editor.locator(".cm-chunkButtons button[name='accept']").count() < before or before == 1
    # Scroll (as a person would) to the line to change; CodeMirror only draws what is in view.
    line = editor.locator(".cm-line", has_text=EDITED_LINE)
    scroller = editor.locator(".cm-scroller")
    for _ in range(60):
        if line.count():
            break
        scroller.evaluate("e => { e.scrollTop += 240; }")
        nb.page.wait_for_timeout(50)
    line.first.click()
    nb.page.keyboard.press("End")
    nb.page.keyboard.type(MARK)
    assert MARK.strip() in editor.locator(".cm-line", has_text=EDITED_LINE).first.inner_text()
    nb.view.locator("button[data-action='save-edit']").click()
    nb.wait_status("compute", "edited")
    assert not nb.view.locator(".acl-editing").count(), "the editor closes once the edit is saved"


def compile_and_verify(nb: NotebookPage) -> str:
    compile_button = nb.button("compile")
    assert compile_button.is_enabled(), compile_button.get_attribute("title")
    compile_button.click()
    nb.view.locator(".acl-verdict[data-state='correct']").wait_for(timeout=COMPILE_TIMEOUT)
    return nb.view.locator(".acl-verdict").inner_text()


def test_review_edit_and_verify_tutorial_01(notebook):
    nb = notebook
    t0 = time.monotonic()
    run_magic_cell(nb)

    # The four passes, all waiting for review.
    assert nb.statuses() == {"host": "pending", "init": "pending", "compute": "pending", "align": "pending"}
    assert not nb.button("compile").is_enabled(), "nothing compiles before every step is reviewed"

    # The compute pass's diff: a merge view of the kernel file, its new lines coloured by DSL line.
    nb.select("compute")
    diff = nb.view.locator(".acl-pane-diff")
    diff.locator(".cm-mergeView").wait_for()
    assert diff.locator(f".acl-tab[data-path='{KERNEL_FILE}'][aria-selected='true']").count() == 1
    assert diff.locator(".cm-merge-b .cm-changedLine").count() > 0
    assert diff.locator(".cm-merge-b .cm-line[data-dsl][style*='background']").count() > 0
    assert "Process walks the tiles" in nb.view.locator(".acl-explain").inner_text()

    # Hovering a DSL line outlines the C++ lines it produced in the other panes.
    dsl_line = nb.view.locator(".acl-pane-dsl .cm-line[data-dsl='11']")
    dsl_line.hover()
    nb.view.locator(".acl-pane-final .cm-line.acl-related").first.wait_for()

    # Keyboard: up/down in the pass list moves between steps.
    nb.pass_item("compute").focus()
    nb.page.keyboard.press("ArrowUp")
    nb.view.locator("li.acl-pass[data-step='init'][aria-selected='true']").wait_for()
    nb.page.keyboard.press("ArrowDown")
    nb.view.locator("li.acl-pass[data-step='compute'][aria-selected='true']").wait_for()

    nb.accept("host")
    nb.accept("init")
    edit_compute_and_save(nb)
    nb.accept("align")
    assert nb.statuses() == {"host": "accepted", "init": "accepted", "compute": "edited", "align": "accepted"}

    verdict = compile_and_verify(nb)
    assert "verified" in verdict and "gelu" in verdict
    # The edit went through the align pass's three-way merge into the final project.
    project = nb.folder / "ascendcraft-sessions" / "gelu" / "ascendc" / KERNEL_FILE
    assert MARK in project.read_text()

    # The output now holds the reviewed session: saved, the notebook shows it without a kernel.
    nb.page.wait_for_function(
        """(mime) => { const nb = window.jupyterapp.shell.currentWidget.content;
            return nb.widgets.some(c => c.model.type === 'code' && c.outputArea.model.length
                && c.outputArea.model.get(0).data[mime]?.verdict?.correct === true); }""", arg=MIME)
    nb.page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    nb.page.wait_for_function("() => !window.jupyterapp.shell.currentWidget.context.model.dirty")
    saved = nbformat.read(nb.folder / TUTORIAL, as_version=4)
    doc = next(o["data"][MIME] for c in saved.cells if c.cell_type == "code" for o in c.get("outputs", [])
               if MIME in o.get("data", {}))
    statuses = [p["status"] for p in doc["passes"]]
    assert doc["verdict"]["correct"] and statuses == ["accepted", "accepted", "edited", "accepted"]

    nb.select("compute")
    nb.view.locator(".acl-pane-diff .cm-mergeView").wait_for()
    ARTIFACTS.mkdir(exist_ok=True)
    nb.view.screenshot(path=str(ARTIFACTS / "pipeline-view.png"))
    nb.page.screenshot(path=str(ARTIFACTS / "jupyterlab.png"))
    print(f"review flow took {time.monotonic() - t0:.1f} s")


def test_the_review_survives_a_kernel_restart(notebook):
    nb = notebook
    run_magic_cell(nb)
    nb.accept("host")
    nb.accept("init")
    edit_compute_and_save(nb)
    nb.accept("align")

    nb.restart_kernel()
    # The comm goes with the old kernel; the view reconnects to the new one on its own ...
    nb.view.locator(".acl-link:not([data-link='live'])").wait_for(timeout=30_000)
    nb.wait_live(timeout=90_000)
    # ... and reloads the session from its folder (the new kernel never ran the cell).
    assert nb.page.evaluate(
        "() => window.jupyterapp.shell.currentWidget.content.widgets.filter(c => c.model.executionCount).length") >= 1
    nb.wait_status("compute", "edited")
    assert nb.statuses() == {"host": "accepted", "init": "accepted", "compute": "edited", "align": "accepted"}

    nb.select("compute")
    nb.view.locator(".acl-pane-diff .cm-mergeView").wait_for()
    verdict = compile_and_verify(nb)
    assert "verified" in verdict

    # Without a kernel the view stays, read-only.
    nb.shutdown_kernel()
    nb.view.locator(".acl-link[data-link='no-kernel']").wait_for(timeout=30_000)
    assert not nb.button("accept").is_enabled() and not nb.button("compile").is_enabled()
    assert nb.view.locator(".acl-pane-final .cm-content").count() == 1
    assert "read-only" in nb.view.locator(".acl-messages").inner_text()


def test_a_saved_notebook_without_a_kernel_shows_the_pipeline_read_only(lab, page, tmp_path):
    from ascendcraft_lab.examples import get_example
    from ascendcraft_lab.notebook import LabSession
    from ascendcraft_lab.notebook.display import mimebundle

    folder = lab.root / "saved"
    ex = get_example("gelu")
    session = LabSession.open(folder / "ascendcraft-sessions" / "gelu", ex.dsl.read_text(), reference=ex.reference)
    session.accept("host")
    saved = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("%%ascendcraft gelu\n", execution_count=1)
    cell.outputs = [nbformat.v4.new_output("execute_result", data=mimebundle(session, widget=False), execution_count=1)]
    saved.cells = [cell]
    # A kernel this server does not have: JupyterLab asks which to start; the reader picks none.
    saved.metadata["kernelspec"] = {"name": "ascendcraft-gone", "display_name": "gone", "language": "python"}
    nbformat.write(saved, folder / "saved.ipynb")

    page.goto(f"{lab.url}/lab/tree/saved/saved.ipynb?token={lab.token}&reset")
    page.locator(".jp-Dialog button", has_text="No Kernel").click(timeout=90_000)   # slow on a loaded machine
    nb = NotebookPage(page, lab, "saved/saved.ipynb")
    nb.view.wait_for()
    assert nb.view.locator(".acl-link").get_attribute("data-link") != "live"
    assert "read-only" in nb.view.locator(".acl-messages").inner_text()
    assert nb.statuses() == {"host": "accepted", "init": "pending", "compute": "pending", "align": "pending"}
    for action in ("accept", "edit", "undo", "regenerate", "compile", "profile"):
        assert not nb.button(action).is_enabled(), action
    # Everything to read is there, from the MIME data alone: the steps' diffs and the project.
    nb.select("compute")
    nb.view.locator(".acl-pane-diff .cm-mergeView").wait_for()
    assert nb.view.locator(".acl-pane-diff .cm-merge-b .cm-changedLine").count() > 0
    assert "KernelGelu" in nb.view.locator(".acl-pane-final .cm-content").inner_text()


def test_profile_offline_shows_the_estimated_profile_and_pipe_timelines(notebook):
    nb = notebook
    run_magic_cell(nb)
    for step in ("host", "init", "compute", "align"):
        nb.accept(step)
    profile = nb.button("profile")
    assert profile.is_enabled(), profile.get_attribute("title")
    profile.click()
    info = nb.view.locator(".acl-info")
    info.wait_for(timeout=COMPILE_TIMEOUT)
    text = info.inner_text()
    assert text.startswith("ESTIMATED profile of gelu") and "x ESTIMATED" in text and "bound pipe" in text
    # The pipe timeline is an SVG in the dock: a row per pipe of each block shown, boxes in each.
    panel = nb.view.locator(".acl-dock-panel[data-panel='timeline']")
    svg = panel.locator("svg.acl-timeline")
    svg.wait_for()
    assert "ESTIMATED pipe timeline" in panel.inner_text()
    rows = svg.locator("g.acl-timeline-row")
    pipes = [(rows.nth(i).get_attribute("data-block"), rows.nth(i).get_attribute("data-pipe"))
             for i in range(rows.count())]
    assert [p for b, p in pipes if b == "0"][:3] == ["MTE2", "V", "MTE3"]
    assert len({b for b, _ in pipes}) >= 2 and len(set(pipes)) == len(pipes)
    for i in range(rows.count()):
        assert rows.nth(i).locator("rect.acl-timeline-span").count() > 0, pipes[i]
    # Zoom: + doubles the drawing (the box scrolls), Ctrl + wheel zooms too, Fit goes back.
    width = float(svg.get_attribute("width"))
    panel.locator("button[title='zoom in']").click()
    assert float(svg.get_attribute("width")) > 1.9 * (width - 104)
    svg.hover()
    nb.page.keyboard.down("Control")
    nb.page.mouse.wheel(0, -100)
    nb.page.keyboard.up("Control")
    panel.locator(".acl-timeline-level", has_text="4x").wait_for()
    panel.locator("button[title='the whole run in the view']").click()
    assert float(svg.get_attribute("width")) == width
    ARTIFACTS.mkdir(exist_ok=True)
    nb.page.set_viewport_size({"width": 1280, "height": 800})
    panel.scroll_into_view_if_needed()
    nb.page.wait_for_timeout(300)
    nb.page.screenshot(path=str(ARTIFACTS / "profile-timeline-1280x800.png"))
    nb.view.screenshot(path=str(ARTIFACTS / "profile-estimate.png"))
