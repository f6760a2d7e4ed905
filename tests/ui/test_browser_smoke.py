"""The browser itself: Debian's Chromium starts headless through Playwright and renders a page.

If this fails, every other UI test would fail for the same reason; the fixture says why loudly.
"""


def test_chromium_starts_and_renders_a_page(browser):
    page = browser.new_page()
    try:
        page.set_content("<main><h1>AscendCraft</h1><p id=v></p></main>")
        page.evaluate("document.getElementById('v').textContent = navigator.userAgent")
        assert page.inner_text("h1") == "AscendCraft"
        assert "Chrome" in page.inner_text("#v")
    finally:
        page.close()
    assert browser.version.split(".")[0].isdigit()


def test_jupyterlab_serves_the_pipeline_extension(lab):
    assert "ascendcraft-lab" in lab.labextensions()
