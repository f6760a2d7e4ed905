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


def test_jupyterlab_loads_this_checkouts_build(lab):
    """The browser tests test this checkout's extension, not another one linked into the environment."""
    from lab_driver import BUILT
    entry = lab.federated_extension("ascendcraft-lab")
    built = sorted(p.name for p in (BUILT / "static").glob("remoteEntry.*.js"))
    assert built, f"no build in {BUILT}: run extension/build.sh"
    assert entry["load"].rsplit("/", 1)[-1] in built, (entry, built)
