"""Driving a real JupyterLab in a real browser: the server (started by `ascendcraft lab` on a free
loopback port with a token, in a temp copy of notebooks/) and a page helper for a notebook.

Plumbing (opening a notebook, running the cells before the one under test, restarting the
kernel) goes through JupyterLab's own commands (`window.jupyterapp`, exposed with
--LabApp.expose_app_in_browser); what the tests are about is done as a person would, with clicks
and keys on the pipeline view.
"""
from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILT = REPO / "ascendcraft_lab" / "labextension"      # extension/build.sh's output in this checkout
NOTEBOOKS = REPO / "notebooks"
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
CHROMIUM = os.environ.get("ASCENDCRAFT_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LabServer:
    """`ascendcraft lab` on 127.0.0.1:<free port>, serving `root`, with its own config and runtime dirs."""

    def __init__(self, root: Path, home: Path):
        self.root = root
        self.home = home
        self.port = free_port()
        self.token = secrets.token_hex(16)
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = home / "jupyterlab.log"
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 90.0) -> "LabServer":
        env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "ASCENDCRAFT_WORKDIR"))}
        env.update(JUPYTER_CONFIG_DIR=str(self.home / "config"), JUPYTER_RUNTIME_DIR=str(self.home / "runtime"),
                   JUPYTERLAB_SETTINGS_DIR=str(self.home / "settings"),
                   JUPYTERLAB_WORKSPACES_DIR=str(self.home / "workspaces"), PYTHONUNBUFFERED="1")
        # This checkout's build comes first (JupyterLab takes the first extension of a name it finds),
        # whatever another checkout sharing the environment linked into its labextensions.
        from ascendcraft_lab.notebook.lab_cli import checkout_labextensions
        cmd = [sys.executable, "-m", "ascendcraft_lab.notebook.lab_cli", "--notebooks", str(self.root),
               f"--LabApp.extra_labextensions_path={checkout_labextensions(BUILT)}",
               "--no-browser", f"--port={self.port}", "--ServerApp.port_retries=0", "--ServerApp.ip=127.0.0.1",
               f"--IdentityProvider.token={self.token}", "--LabApp.expose_app_in_browser=True",
               "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
        # No news or update prompts over the view (and nothing fetched from outside).
        settings = self.home / "settings" / "@jupyterlab" / "apputils-extension"
        settings.mkdir(parents=True, exist_ok=True)
        (settings / "notification.jupyterlab-settings").write_text(
            json.dumps({"fetchNews": "false", "checkForUpdates": False}))
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(cmd, cwd=self.root, env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"JupyterLab exited with {self.proc.returncode}:\n"
                                   f"{self.log_path.read_text()[-4000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/api/status?token={self.token}", timeout=2) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.3)
        raise RuntimeError(f"JupyterLab did not answer on {self.url} within {timeout:.0f} s:\n"
                           f"{self.log_path.read_text()[-4000:]}")

    def labextensions(self) -> list[str]:
        req = urllib.request.Request(f"{self.url}/lab/api/extensions?token={self.token}")
        with urllib.request.urlopen(req, timeout=10) as r:
            return [e["name"] for e in json.load(r)]

    def federated_extension(self, name: str) -> dict:
        """What the page loads for extension `name` (its entry in the page config's federated_extensions)."""
        with urllib.request.urlopen(f"{self.url}/lab?token={self.token}", timeout=20) as r:
            page = r.read().decode()
        config = re.search(r'<script id="jupyter-config-data" type="application/json">(.*?)</script>', page, re.S)
        assert config, "the JupyterLab page has no jupyter-config-data"
        found = [e for e in json.loads(config.group(1))["federated_extensions"] if e["name"] == name]
        assert found, f"JupyterLab does not load {name}"
        return found[0]

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)     # the server and the kernels it started
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        if getattr(self, "log", None):
            self.log.close()


def copy_notebooks(dest: Path) -> Path:
    """A fresh copy of the tutorials (without any session folders) at `dest`."""
    shutil.copytree(NOTEBOOKS, dest, ignore=shutil.ignore_patterns("ascendcraft-sessions", ".ipynb_checkpoints"))
    return dest


class NotebookPage:
    """One notebook open in JupyterLab, and the pipeline view of its `%%ascendcraft` cell."""

    def __init__(self, page, server: LabServer, path: str):
        self.page = page
        self.server = server
        self.path = path

    # ------------------------------------------------------------------ plumbing via JupyterLab commands
    def open(self) -> "NotebookPage":
        self.page.goto(f"{self.server.url}/lab/tree/{self.path}?token={self.server.token}&reset")
        self.page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell", timeout=60_000)
        self.page.wait_for_function(
            """(path) => { const w = window.jupyterapp.shell.currentWidget;
                return w && w.context && w.context.path === path && w.sessionContext.session
                       && w.sessionContext.session.kernel && w.sessionContext.session.kernel.status === 'idle'; }""",
            arg=self.path, timeout=90_000)
        return self

    def kernel_status(self) -> str:
        return self.page.evaluate("""() => {
            const k = window.jupyterapp.shell.currentWidget.sessionContext.session?.kernel;
            return k ? k.status : 'none';
        }""")

    def cell_index(self, prefix: str) -> int:
        return self.page.evaluate(
            """(prefix) => window.jupyterapp.shell.currentWidget.content.widgets
                   .findIndex(c => c.model.sharedModel.getSource().startsWith(prefix))""", prefix)

    def run_cells_through(self, index: int) -> None:
        """Run cells 0..index in order, each to completion (JupyterLab's notebook:run-cell)."""
        self.page.evaluate(
            """async (last) => { const app = window.jupyterapp; const nb = app.shell.currentWidget.content;
                for (let i = 0; i <= last; i++) { nb.activeCellIndex = i;
                    await app.commands.execute('notebook:run-cell'); } }""", index)

    def restart_kernel(self) -> None:
        """Kernel > Restart Kernel…, confirming the dialog as a person would."""
        self.page.evaluate("() => { void window.jupyterapp.commands.execute('kernelmenu:restart'); }")
        self.page.locator(".jp-Dialog button.jp-mod-accept").click()

    def execute(self, command: str, args: dict | None = None) -> None:
        """Run a JupyterLab command (as the command palette or a keyboard shortcut would)."""
        self.page.evaluate("async ([id, args]) => { await window.jupyterapp.commands.execute(id, args); }",
                           [command, args or {}])

    def shutdown_kernel(self) -> None:
        """Shut the notebook's kernel down (its session context, as Kernel > Shut Down Kernel does)."""
        self.page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.shutdown()")

    # ------------------------------------------------------------------ the pipeline view
    @property
    def view(self):
        return self.page.locator(".acl-pipeline").first

    def pass_item(self, name: str):
        return self.view.locator(f"li.acl-pass[data-step='{name}']")

    def button(self, action: str):
        return self.view.locator(f"button[data-action='{action}']")

    def wait_live(self, timeout: float = 60_000) -> None:
        self.view.locator(".acl-link[data-link='live']").wait_for(timeout=timeout)

    def select(self, name: str) -> None:
        self.pass_item(name).click()
        self.page.wait_for_function(
            """(name) => document.querySelector(`.acl-pipeline li.acl-pass[data-step='${name}']`)
                          ?.getAttribute('aria-selected') === 'true'""", arg=name)

    def wait_status(self, name: str, status: str, timeout: float = 60_000) -> None:
        self.view.locator(f"li.acl-pass[data-step='{name}'][data-status='{status}']").wait_for(timeout=timeout)

    def statuses(self) -> dict:
        return self.page.evaluate(
            """() => Object.fromEntries([...document.querySelectorAll('.acl-pipeline li.acl-pass')]
                   .map(li => [li.dataset.step, li.dataset.status]))""")

    def accept(self, name: str) -> None:
        self.select(name)
        self.button("accept").click()
        self.wait_status(name, "accepted")

    def error_text(self) -> str:
        loc = self.view.locator(".acl-message.acl-error")
        return loc.inner_text() if loc.count() else ""


# Which characters under `root` the browser draws as a missing-glyph box ("tofu"): every
# character of the rendered text and of ::before/::after content, drawn on a canvas in the font
# of its element, and compared with an unassigned code point (U+0378), which no font has: the
# same ink means the same missing glyph. Returns [char, code point, font, element class].
MISSING_GLYPHS_JS = r"""
(root) => {
  const canvas = document.createElement('canvas');
  canvas.width = 64;
  canvas.height = 40;
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  const ink = (ch, font) => {
    ctx.clearRect(0, 0, 64, 40);
    ctx.font = font;
    ctx.fillText(ch, 8, 28);
    const d = ctx.getImageData(0, 0, 64, 40).data;
    let h = 0;
    for (let i = 3; i < d.length; i += 4) h = (Math.imul(h, 31) + d[i]) | 0;
    return h;
  };
  const fontOf = cs => `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
  const chars = new Map(); // font -> Map(char -> where)
  const add = (text, font, where) => {
    if (!chars.has(font)) chars.set(font, new Map());
    for (const ch of text) if (ch.trim()) chars.get(font).set(ch, where);
  };
  const el = typeof root === 'string' ? document.querySelector(root) : root;
  const rendered = e => e.getClientRects().length > 0;
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const parent = n.parentElement;
    if (parent && rendered(parent)) add(n.data, fontOf(getComputedStyle(parent)), parent.className);
  }
  for (const e of [el, ...el.querySelectorAll('*')]) {
    if (!rendered(e)) continue;
    for (const pseudo of ['::before', '::after']) {
      const cs = getComputedStyle(e, pseudo);
      for (const m of (cs.content || '').matchAll(/"((?:[^"\\]|\\.)*)"/g)) {
        add(m[1].replace(/\\(.)/g, '$1'), fontOf(cs), `${e.className}${pseudo}`);
      }
    }
  }
  const missing = [];
  for (const [font, set] of chars) {
    const tofu = ink('\u0378', font);
    for (const [ch, where] of set) {
      if (ink(ch, font) === tofu) missing.push([ch, 'U+' + ch.codePointAt(0).toString(16).toUpperCase(), font, where]);
    }
  }
  return missing;
}
"""
