"""The static HTML fallback (notebook/render.py: what nbconvert, GitHub and a JupyterLab without
the extension show) in Chromium, in a notebook output column of a 1280 x 800 laptop: every pane
wraps its lines, so nothing is cut off or needs sideways scrolling, and no glyph is missing.
"""
from __future__ import annotations

from lab_driver import ARTIFACTS, MISSING_GLYPHS_JS

# The output area of a notebook in JupyterLab at 1280 x 800 with the file browser open.
OUTPUT_WIDTH = 850


def test_the_static_page_fits_a_laptop_notebook_column(browser, tmp_path):
    from ascendcraft_lab.examples import get_example
    from ascendcraft_lab.notebook import LabSession
    from ascendcraft_lab.notebook.render import static_html

    ex = get_example("gelu")
    lab = LabSession.open(tmp_path / "gelu", ex.dsl.read_text(), reference=ex.reference)
    lab.accept("host")
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        page.set_content(f'<body style="margin:0"><div id="out" style="width:{OUTPUT_WIDTH}px">'
                         f'{static_html(lab)}</div></body>')
        page.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = true)")
        out = page.locator("#out")
        assert "KernelGelu" in out.inner_text(), "the steps' C++ is on the page"
        wide = page.evaluate("""() => [...document.querySelectorAll('#out *')]
            .filter(e => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'visible')
            .map(e => `${e.tagName} ${e.scrollWidth} > ${e.clientWidth}: ${e.textContent.slice(0, 60)}`)""")
        assert wide == [], wide
        assert page.evaluate("() => document.getElementById('out').scrollWidth") <= OUTPUT_WIDTH
        assert out.evaluate(MISSING_GLYPHS_JS) == []
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "static-html-850px.png"))
    finally:
        page.close()
