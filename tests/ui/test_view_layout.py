"""The pipeline view on a laptop screen (1280 x 800) and at 1600 x 900: the code panes stack when
the view is narrow, lines wrap on request, the splitters and the height grip resize the panes
and the sizes persist, the view opens in a main-area tab of its own, and no character is drawn
as a missing-glyph box.

One notebook (tutorial 01, its `%%ascendcraft` cell run once) serves the module: each test sets
the layout it needs through the view's own controls or commands. Screenshots go to
tests/ui/artifacts/.
"""
from __future__ import annotations

import json
import time

import pytest

from lab_driver import ARTIFACTS, MISSING_GLYPHS_JS, NotebookPage, copy_notebooks

MIME = "application/vnd.ascendcraft.pipeline+json"
TUTORIAL = "01-first-kernel.ipynb"
LAPTOP = {"width": 1280, "height": 800}
DESKTOP = {"width": 1600, "height": 900}
# A DSL line of 61 characters in tutorial 01's cell: the kernel's signature.
DSL_LINE = "def gelu(x: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):"

# Where a code line is drawn and what of its pane can be seen: the text's bounding box against
# the editor's visible area (right of the sticky gutters, left of the pane's and window's edge).
LINE_BOX_JS = r"""
(line) => {
  const scroller = line.closest('.cm-scroller');
  const gutters = scroller.querySelector('.cm-gutters');
  const range = document.createRange();
  range.selectNodeContents(line);
  const r = range.getBoundingClientRect();
  const s = scroller.getBoundingClientRect();
  const pane = line.closest('.acl-pane').getBoundingClientRect();
  return {
    text: line.textContent, left: r.left, right: r.right,
    visibleLeft: gutters ? gutters.getBoundingClientRect().right : s.left,
    visibleRight: Math.min(s.left + scroller.clientWidth, pane.right, window.innerWidth),
    scrollLeft: scroller.scrollLeft, scrollWidth: scroller.scrollWidth, clientWidth: scroller.clientWidth
  };
}
"""


@pytest.fixture(scope="module")
def nb(lab, browser):
    """Tutorial 01 open at 1280 x 800 with its pipeline view live and pass 3 (compute) selected."""
    context = browser.new_context(viewport=LAPTOP)
    page = context.new_page()
    page.set_default_timeout(30_000)
    # Any uncaught error counts (closing a notebook with its tab open once raised one in
    # JupyterLab's shell); console errors only when they are the extension's.
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(f"uncaught: {exc}"))
    page.on("console", lambda msg: errors.append(msg.text)
            if msg.type == "error" and "ascendcraft" in msg.text.lower() else None)
    copy_notebooks(lab.root / "layout")
    view = NotebookPage(page, lab, f"layout/{TUTORIAL}").open()
    view.run_cells_through(view.cell_index("%%ascendcraft"))
    view.view.wait_for()
    view.wait_live()
    view.select("compute")
    view.view.locator(".acl-pane-diff .cm-mergeView").wait_for()
    yield view
    context.close()
    assert not errors, errors


def set_layout(nb: NotebookPage, layout: str, wrap: bool) -> None:
    nb.execute("ascendcraft:set-pane-layout", {"layout": layout})
    if nb.page.evaluate("() => window.jupyterapp.commands.isToggled('ascendcraft:toggle-wrap')") != wrap:
        nb.execute("ascendcraft:toggle-wrap")
    nb.view.locator(f".acl-seg[data-pane-layout='{layout}'][aria-pressed='true']").wait_for()


def arrangement(view) -> str:
    return view.locator(".acl-panes").get_attribute("data-arrangement")


def dsl_line_box(view, text: str = DSL_LINE) -> dict:
    line = view.locator(".acl-pane-dsl .cm-line", has_text=text).first
    # Into sight as a reader scrolls the notebook: the pane, not the line (no sideways scroll).
    line.evaluate("l => l.closest('.acl-pane').scrollIntoView({block: 'nearest'})")
    return line.evaluate(LINE_BOX_JS)


def assert_whole(box: dict) -> None:
    assert len(box["text"]) >= 60, box["text"]
    assert box["scrollLeft"] == 0
    assert box["left"] >= box["visibleLeft"] - 0.5, box
    assert box["right"] <= box["visibleRight"] + 0.5, f"the line is cut: {box}"


def screenshot(nb: NotebookPage, name: str, top: str = ".acl-pipeline") -> None:
    """The page, scrolled so that `top` (in the view) is at the top of the notebook."""
    nb.page.evaluate("(s) => document.querySelector(s).scrollIntoView({block: 'start'})", top)
    nb.page.wait_for_timeout(150)  # let CodeMirror draw what scrolled in
    ARTIFACTS.mkdir(exist_ok=True)
    nb.page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def settings_file(lab):
    return lab.home / "settings" / "ascendcraft-lab" / "pipeline.jupyterlab-settings"


def saved_setting(lab, key: str, timeout: float = 10.0):
    """The value of `key` in the user's settings file, once the view has written it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        path = settings_file(lab)
        if path.exists():
            text = "\n".join(l for l in path.read_text().splitlines() if not l.lstrip().startswith("//"))
            value = json.loads(text or "{}").get(key)
            if value is not None:
                return value
        time.sleep(0.1)
    raise AssertionError(f"{key} was not saved in {settings_file(lab)}")


def test_on_a_laptop_the_panes_stack_and_a_60_character_dsl_line_is_whole(nb):
    nb.page.set_viewport_size(LAPTOP)
    set_layout(nb, "auto", wrap=False)
    assert arrangement(nb.view) == "stacked"
    # Stacked, every pane has the view's full width.
    widths = nb.view.locator(".acl-pane").evaluate_all("ps => ps.map(p => p.getBoundingClientRect().width)")
    assert min(widths) == max(widths) and widths[0] > 700, widths
    assert_whole(dsl_line_box(nb.view))
    screenshot(nb, "view-1280x800-stacked")
    screenshot(nb, "view-1280x800-stacked-diff", ".acl-pane-diff")


def test_wrapped_lines_fit_even_in_narrow_columns(nb):
    nb.page.set_viewport_size(LAPTOP)
    set_layout(nb, "columns", wrap=False)
    assert arrangement(nb.view) == "columns"
    cut = dsl_line_box(nb.view)
    assert cut["right"] > cut["visibleRight"] + 1, "without wrapping the line runs past its narrow pane"
    nb.view.locator("button.acl-wrap").click()
    nb.view.locator("button.acl-wrap[aria-pressed='true']").wait_for()
    assert_whole(dsl_line_box(nb.view))
    for pane in ("dsl", "diff", "final"):
        scrollers = nb.view.locator(f".acl-pane-{pane} .cm-scroller")
        for i in range(scrollers.count()):
            w = scrollers.nth(i).evaluate("s => [s.scrollWidth, s.clientWidth]")
            assert w[0] <= w[1], f"{pane} pane still scrolls sideways: {w}"
    screenshot(nb, "view-1280x800-columns-wrapped", ".acl-toolbar")


def test_dragging_a_splitter_widens_a_pane_and_the_width_is_kept_in_the_settings(nb, lab):
    nb.page.set_viewport_size(LAPTOP)
    set_layout(nb, "columns", wrap=True)
    dsl = nb.view.locator(".acl-pane-dsl")
    before = dsl.bounding_box()["width"]
    box = nb.view.locator(".acl-splitter").first.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    mouse = nb.page.mouse
    mouse.move(x, y)
    mouse.down()
    mouse.move(x + 60, y, steps=3)
    mouse.move(x + 120, y, steps=3)
    mouse.up()
    after = dsl.bounding_box()["width"]
    assert abs(after - before - 120) <= 2, (before, after)
    widths = saved_setting(lab, "columnWidths")
    assert len(widths) == 3 and widths[0] > 0.25 and abs(sum(widths) - 1) < 0.01, widths
    # A double click restores the default widths.
    nb.view.locator(".acl-splitter").first.dblclick()
    nb.page.wait_for_function("() => Math.abs(document.querySelector('.acl-pane-dsl').getBoundingClientRect().width"
                              " - %f) <= 2" % before)


def test_the_height_grip_sets_the_pane_height_and_it_is_kept_in_the_settings(nb, lab):
    nb.page.set_viewport_size(LAPTOP)
    set_layout(nb, "columns", wrap=True)
    code = nb.view.locator(".acl-pane-final .acl-code")
    before = code.bounding_box()["height"]
    grip = nb.view.locator(".acl-height-grip")
    grip.scroll_into_view_if_needed()
    box = grip.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    nb.page.mouse.move(x, y)
    nb.page.mouse.down()
    nb.page.mouse.move(x, y + 100, steps=4)
    nb.page.mouse.up()
    assert abs(code.bounding_box()["height"] - before - 100) <= 2
    assert saved_setting(lab, "paneHeight") == 520
    grip.dblclick()
    nb.page.wait_for_function("() => document.querySelector('.acl-pane-final .acl-code').getBoundingClientRect()"
                              ".height < %f" % (before + 50))


def test_no_character_of_the_view_is_a_missing_glyph_box(nb):
    nb.page.set_viewport_size(LAPTOP)
    set_layout(nb, "stacked", wrap=False)
    page = nb.page
    # The check itself: an unassigned code point is a box, a letter is not.
    page.evaluate("() => { const d = document.createElement('div'); d.id = 'acl-probe'; d.textContent = 'A\u0379'; "
                  "document.body.append(d); }")
    probe = page.locator("#acl-probe").evaluate(MISSING_GLYPHS_JS)
    page.evaluate("() => document.getElementById('acl-probe').remove()")
    assert [m[0] for m in probe] == ["\u0379"], probe
    # The "N unchanged lines" markers between the changes of the compute step.
    markers = nb.view.locator(".acl-pane-diff .cm-collapsedLines")
    assert markers.count() > 0
    assert "unchanged lines" in markers.first.inner_text()
    assert markers.first.evaluate(MISSING_GLYPHS_JS) == []
    # Nor anywhere else in the view, in any pass.
    for step in ("host", "compute"):
        nb.select(step)
        nb.view.locator(".acl-pane-diff .cm-content").first.wait_for()
        assert nb.view.evaluate(MISSING_GLYPHS_JS) == [], step
    nb.select("compute")


def test_at_1600x900_the_panes_stack_and_show_whole_dsl_lines(nb):
    nb.page.set_viewport_size(DESKTOP)
    set_layout(nb, "auto", wrap=False)
    nb.view.locator(".acl-panes[data-arrangement='stacked']").wait_for()
    assert_whole(dsl_line_box(nb.view))
    screenshot(nb, "view-1600x900-stacked")
    nb.page.set_viewport_size(LAPTOP)


def test_open_in_tab_shows_the_pipeline_live_in_the_main_area(nb):
    page = nb.page
    page.set_viewport_size(LAPTOP)
    set_layout(nb, "auto", wrap=False)
    folder = cell_payload(nb)["session"]["folder"]
    nb.execute("ascendcraft:open-in-tab", {"session": folder})
    tab = page.locator(".jp-MainAreaWidget.acl-pipeline-tab .acl-pipeline")
    tab.locator(".acl-link[data-link='live']").wait_for()
    assert page.evaluate("() => window.jupyterapp.shell.currentWidget.title.label") == "gelu · pipeline"
    # It opens on the step the cell showed, laid out for its own width.
    tab.locator("li.acl-pass[data-step='compute'][aria-selected='true']").wait_for()
    tab.locator(".acl-pane-diff .cm-mergeView").wait_for()
    assert tab.locator(".acl-open-tab").count() == 0
    assert_whole(dsl_line_box(tab))
    top = "() => document.querySelectorAll('.acl-in-tab, .acl-in-tab > .acl-main').forEach(e => e.scrollTop = 0)"
    page.evaluate(top)
    page.wait_for_timeout(150)
    page.screenshot(path=str(ARTIFACTS / "tab-1280x800.png"))
    # Wide enough, the tab keeps the passes and the explanation in a column beside the panes.
    page.set_viewport_size(DESKTOP)
    page.wait_for_selector(".acl-in-tab.acl-wide")
    page.evaluate(top)
    assert_whole(dsl_line_box(tab))
    page.wait_for_timeout(150)
    page.screenshot(path=str(ARTIFACTS / "tab-1600x900.png"))
    page.set_viewport_size(LAPTOP)

    # Opening it again shows the same tab.
    nb.execute("ascendcraft:open-in-tab", {"session": folder})
    assert page.locator(".acl-pipeline-tab").count() == 1

    # An action in the tab goes to the kernel: the cell's view follows, and the cell's output keeps it.
    tab.locator("li.acl-pass[data-step='host']").click()
    tab.locator("button[data-action='accept']").click()
    tab.locator("li.acl-pass[data-step='host'][data-status='accepted']").wait_for(timeout=60_000)
    cell_view = page.locator(".jp-Notebook .acl-pipeline")
    cell_view.locator("li.acl-pass[data-step='host'][data-status='accepted']").wait_for(state="attached")
    deadline = time.monotonic() + 30
    while cell_payload(nb)["passes"][0]["status"] != "accepted":
        assert time.monotonic() < deadline, "the cell's output did not get the accepted step"
        page.wait_for_timeout(100)

    # Closing the notebook closes its pipeline tab.
    page.evaluate("() => { const nb = [...window.jupyterapp.shell.widgets('main')].find(w => w.context); "
                  "nb.context.model.dirty = false; nb.close(); }")
    page.locator(".acl-pipeline-tab").wait_for(state="detached")


def cell_payload(nb: NotebookPage) -> dict:
    """The pipeline MIME data in the notebook's `%%ascendcraft` cell output (what saving stores)."""
    return nb.page.evaluate(
        """(mime) => { const nb = [...window.jupyterapp.shell.widgets('main')].find(w => w.context).content;
            const cell = nb.widgets.find(c => c.model.type === 'code' && c.outputArea.model.length
                                             && c.outputArea.model.get(0).data[mime]);
            return cell.outputArea.model.get(0).data[mime]; }""", MIME)
