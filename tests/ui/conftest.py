"""Browser tests of the JupyterLab extension (extension/): a real JupyterLab, a real Chromium.

Collected only when ASCENDCRAFT_UI=1 (tests/ui/run_ui_tests.sh sets it after building the
extension), so a plain `pytest` of the library does not start browsers. The browser is
Debian's chromium through Playwright's `executable_path` (no browser download); if it does not
start, the tests fail loudly rather than skip.
"""
from __future__ import annotations

import os

import pytest

from lab_driver import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, LabServer

if os.environ.get("ASCENDCRAFT_UI") != "1":
    collect_ignore_glob = ["test_*.py"]


@pytest.fixture(scope="session")
def playwright():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(playwright):
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"no Chromium at {CHROMIUM}: install it with `apt-get install -y chromium` "
                    "(tests/ui/run_ui_tests.sh does) or set ASCENDCRAFT_CHROMIUM", pytrace=False)
    try:
        b = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, timeout=60_000)
    except Exception as exc:  # noqa: BLE001 - say what failed, loudly
        pytest.fail(f"Chromium at {CHROMIUM} did not start: {exc}", pytrace=False)
    yield b
    b.close()


@pytest.fixture(scope="session")
def lab(tmp_path_factory):
    root = tmp_path_factory.mktemp("lab-root")
    home = tmp_path_factory.mktemp("lab-home")
    server = LabServer(root, home).start()
    yield server
    server.stop()


@pytest.fixture
def page(browser, request):
    context = browser.new_context(viewport={"width": 1600, "height": 1300})
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.on("console", lambda msg: errors.append(msg.text)
          if msg.type == "error" and "ascendcraft" in msg.text.lower() else None)
    yield pg
    ARTIFACTS.mkdir(exist_ok=True)
    if request.node.rep_call.failed if hasattr(request.node, "rep_call") else False:
        pg.screenshot(path=str(ARTIFACTS / f"{request.node.name}-failure.png"), full_page=True)
    context.close()
    assert not [e for e in errors if "acl" in e or "ascendcraft" in e.lower()], errors


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, f"rep_{rep.when}", rep)
