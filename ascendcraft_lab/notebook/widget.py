"""`PipelineView`: the ipywidgets view of a `LabSession` (JupyterLab without the extension, VS Code, Notebook 7).

Layout: a pass list (status, `+N -M`, time; up/down keys move between steps) beside what the
selected pass did and why; Accept / Edit / Undo / Regenerate / Compile & verify / Profile; three
panes — the DSL draft | the selected step's diff | the final AscendC (a tab per file, rendered
when opened) — every line coloured by the DSL line it came from; a "DSL line" picker that
outlines one line's relatives in all three panes; "show all lines" lifts the pane cap.

It renders the view model (viewmodel.py), as the JupyterLab extension and the static HTML do:
the list's statuses, which buttons are open and their tooltips (what a button does, or why it
is closed) are the model's, never decided here. Buttons call the LabSession; a `LabError`
lands in the message area, never as a traceback. The view refreshes whenever the session
changes, whoever changed it.
"""
from __future__ import annotations

import html
from contextlib import contextmanager

import ipywidgets as w

from . import render
from ..session import Session as LabSession, SessionError as LabError
from .profile import profile
from .viewmodel import PIPELINE_ACTIONS, STEP_ACTIONS, ViewModel, view_model

PANE_HEIGHT = "460px"
HARD_LINES = 5000


class PipelineView:
    def __init__(self, lab: LabSession):
        self.lab = lab
        self.model: ViewModel = view_model(lab)
        self.selected = self.model.review_next or self.model.steps[0].name
        self.header = w.HTML()
        self.steps_list = w.Select(options=[], rows=5, layout=w.Layout(width="264px"),
                                   style={"description_width": "0px"})
        self.explain = w.HTML(layout=w.Layout(flex="1 1 auto", padding="0 0 0 10px", overflow="hidden"))
        self.accept_button = w.Button(description="Accept", icon="check",
                                      tooltip="accept the selected step as generated")
        self.edit_button = w.Button(description="Edit", icon="pencil", tooltip="edit the selected step's output")
        self.undo_button = w.Button(description="Undo", icon="undo", tooltip="drop the edit or the acceptance")
        self.regenerate_button = w.Button(description="Regenerate", icon="refresh", tooltip="run the pass again")
        self.compile_button = w.Button(description="Compile & verify", icon="play", button_style="primary",
                                       tooltip="compile on the emulator and compare with PyTorch",
                                       layout=w.Layout(width="auto"))
        self.profile_button = w.Button(description="Profile", icon="tachometer", tooltip="the ESTIMATED profile",
                                       layout=w.Layout(width="auto"))
        for b in (self.accept_button, self.edit_button, self.undo_button, self.regenerate_button):
            b.layout = w.Layout(width="128px")
        self.buttons = {"accept": self.accept_button, "edit": self.edit_button, "undo": self.undo_button,
                        "regenerate": self.regenerate_button, "compile": self.compile_button,
                        "profile": self.profile_button}
        # the editor (hidden until Edit)
        self.edit_file = w.Dropdown(description="file", layout=w.Layout(width="420px"))
        self.editor = w.Textarea(layout=w.Layout(width="100%", height="360px"))
        self.save_edit_button = w.Button(description="Save edit", icon="save", button_style="success")
        self.cancel_edit_button = w.Button(description="Cancel")
        self.edit_box = w.VBox([w.HBox([self.edit_file, self.save_edit_button, self.cancel_edit_button]), self.editor],
                               layout=w.Layout(display="none"))
        # the three panes
        self.dsl_pane = w.HTML(layout=w.Layout(width="32%", overflow="hidden", margin="0 4px 0 0"))
        self.diff_pane = w.HTML(layout=w.Layout(width="34%", overflow="hidden", margin="0 4px 0 0"))
        self.final_tabs = w.Tab(layout=w.Layout(width="34%", overflow="hidden"))
        self.focus = w.Dropdown(description="DSL line", options=[("all lines", 0)], value=0,
                                layout=w.Layout(width="420px"))
        self.show_all = w.ToggleButton(description="show all lines", value=False,
                                       tooltip=f"lift the {render.DEFAULT_LINES}-line cap of the panes")
        self.message = w.HTML()
        self.verdict = w.HTML()
        self.root = w.VBox([
            self.header,
            w.HBox([w.VBox([self.steps_list,
                            w.HBox([self.accept_button, self.edit_button]),
                            w.HBox([self.undo_button, self.regenerate_button]),
                            w.HBox([self.compile_button, self.profile_button])],
                           layout=w.Layout(flex="0 0 270px", min_width="270px")),
                    self.explain]),
            self.edit_box,
            w.HBox([self.focus, self.show_all]),
            w.HBox([self.dsl_pane, self.diff_pane, self.final_tabs], layout=w.Layout(width="100%")),
            self.message, self.verdict,
        ])
        self._final_paths: list[str] = []
        self._refreshing = False
        self._busy = False
        self.steps_list.observe(self._on_select, names="value")
        self.final_tabs.observe(lambda _: self._render_tab(), names="selected_index")
        self.focus.observe(lambda _: self._render_panes(), names="value")
        self.show_all.observe(lambda _: self._render_panes(), names="value")
        self.edit_file.observe(lambda _: self._load_editor(), names="value")
        self.accept_button.on_click(lambda _: self._act(lambda s: self.lab.accept(s), "accepted"))
        self.undo_button.on_click(lambda _: self._act(lambda s: self.lab.undo(s), "undone"))
        self.regenerate_button.on_click(lambda _: self._act(lambda s: self.lab.regenerate(s), "regenerated"))
        self.edit_button.on_click(lambda _: self.open_editor())
        self.save_edit_button.on_click(lambda _: self.save_edit())
        self.cancel_edit_button.on_click(lambda _: self.close_editor())
        self.compile_button.on_click(lambda _: self.compile())
        self.profile_button.on_click(lambda _: self.profile())
        lab.on_change(lambda _: self.refresh())
        self.refresh()

    # ------------------------------------------------------------------ rendering
    def refresh(self) -> None:
        """Re-read the session: pass list, explanation, panes, tabs and verdict."""
        lab = self.lab
        self.model = view_model(lab)
        self._refreshing = True
        try:
            self.header.value = render.header_html(lab)
            options = [(self._label(s), s.name) for s in self.model.steps]
            self.steps_list.options = options
            self.steps_list.rows = max(len(options), 2)
            if self.selected not in [v for _, v in options]:
                self.selected = options[0][1] if options else None
            self.steps_list.value = self.selected
            used = sorted(render.used_dsl_lines(lab))
            src = lab.dsl.splitlines()
            focus = [("all lines", 0)] + [(f"{n}: {src[n - 1].strip()[:60]}", n) for n in used if n <= len(src)]
            keep = self.focus.value if self.focus.value in [v for _, v in focus] else 0
            self.focus.options = focus
            self.focus.value = keep
            final = lab.final
            paths = list(final.files) if final is not None else []
            if paths != self._final_paths:
                self._final_paths = paths
                self.final_tabs.children = [w.HTML() for _ in paths]
                self.final_tabs.titles = tuple(_tab_title(p, getattr(lab.program, "kernel", None)) for p in paths)
                kernel = next((i for i, p in enumerate(paths) if p.startswith("kernel/")), 0)
                self.final_tabs.selected_index = kernel if paths else None
        finally:
            self._refreshing = False
        self._render_panes()
        self.verdict.value = render.verdict_html(lab, self.model)

    def _label(self, s) -> str:
        """One line of the pass list: mark, number, name, status, `+N -M`, time (a StepView)."""
        if s.status == "not-run":
            return f"{render.STATUS_MARKS[s.status]} {s.number} {s.name:<8} {s.label}"
        label = (f"{render.STATUS_MARKS[s.status]} {s.number} {s.name:<8} {s.label:<9} {s.stat:>10}  "
                 f"{s.seconds * 1000:5.1f} ms")
        if s.report:   # the LLM engine made this step: how many tries and tokens it took
            r = s.report
            label += f"  {s.engine} {r['attempts']} tries, {r['tokens_in'] + r['tokens_out']} tok"
        return label

    @property
    def step(self):
        """The selected step's StepState, or None when none is selected or it did not run."""
        ran = {s.name: s for s in self.lab.steps}
        return ran.get(self.selected) if self.selected else None

    def _render_actions(self) -> None:
        """Every button open or closed, with its tooltip, as the view model says."""
        selected = self.model.step(self.selected) if self.selected else None
        for name in STEP_ACTIONS + PIPELINE_ACTIONS:
            action = self.model.actions[name] if name in PIPELINE_ACTIONS else (
                selected.actions[name] if selected is not None else None)
            button = self.buttons[name]
            button.disabled = action is None or not action.enabled or self._busy
            button.tooltip = "select a pass" if action is None else action.title

    def _limit(self) -> int:
        return HARD_LINES if self.show_all.value else render.DEFAULT_LINES

    def _render_panes(self) -> None:
        if self._refreshing:
            return
        lab, focus, limit = self.lab, self.focus.value or 0, self._limit()
        self.dsl_pane.value = _titled("DSL draft", render.dsl_pane(lab, focus=focus, limit_lines=limit,
                                                                  expandable=False, max_height=PANE_HEIGHT))
        step = self.step
        if step is None:
            view = self.model.step(self.selected) if self.selected else None
            self.diff_pane.value = _titled("diff", render.not_run_html(view) if view is not None else "")
            self.explain.value = render.explain_html(lab, view) if view is not None else ""
        else:
            diffs = render.step_diff_panes(lab, step, focus=focus, limit_lines=limit, expandable=False)
            self.diff_pane.value = _titled(f"pass {step.number} · {step.name}: diff",
                                           f'<div style="max-height:{PANE_HEIGHT};overflow:auto">{diffs}</div>')
            self.explain.value = render.explain_html(lab, self.model.step(step.name))
        self._render_actions()
        for child in self.final_tabs.children:
            child.value = ""
        self._render_tab()

    def _render_tab(self) -> None:
        """Render only the open tab: the others stay empty until selected (bodies are sent lazily)."""
        i = self.final_tabs.selected_index
        final = self.lab.final
        if final is None or i is None or i >= len(self._final_paths):
            return
        path = self._final_paths[i]
        self.final_tabs.children[i].value = _titled(
            path, render.file_pane(self.lab, final, path, focus=self.focus.value or 0, limit_lines=self._limit(),
                                   expandable=False, max_height=PANE_HEIGHT))

    # ------------------------------------------------------------------ actions
    def _on_select(self, change) -> None:
        if self._refreshing or change["new"] is None:
            return
        self.selected = change["new"]
        self.close_editor()
        self._render_panes()

    def select(self, name: str) -> None:
        self.steps_list.value = name

    def _say(self, text: str, kind: str = "info") -> None:
        color = {"info": "#1b5e20", "error": "#b71c1c", "progress": "#1565c0"}[kind]
        self.message.value = (f'<pre style="{render.MONO};color:{color};white-space:pre-wrap;margin:2px 0">'
                              f"{html.escape(text)}</pre>" if text else "")

    def _act(self, fn, done: str) -> None:
        name = self.selected
        try:
            fn(name)
        except LabError as exc:
            self._say(str(exc), "error")
            return
        self._say(f"pass {self.lab.step(name).number} ({name}) {done}")

    def open_editor(self) -> None:
        """The editor over the files the step changed (the view model's list, as the extension's)."""
        step = self.step
        if step is None or not self.model.step(step.name).actions["edit"].enabled:
            return
        paths = [f.path for f in self.model.step(step.name).files]
        self.edit_file.options = paths
        self.edit_file.value = paths[0]
        self._load_editor()
        self.edit_box.layout.display = "flex"

    def _load_editor(self) -> None:
        step = self.step
        if step is not None and self.edit_file.value in step.bundle.files:
            self.editor.value = step.bundle.files[self.edit_file.value]

    def close_editor(self) -> None:
        self.edit_box.layout.display = "none"

    def save_edit(self) -> None:
        name, path = self.selected, self.edit_file.value
        try:
            self.lab.edit(name, {path: self.editor.value})
        except LabError as exc:
            self._say(str(exc), "error")
            return
        self.close_editor()
        later = [s for s in self.lab.steps if s.number > self.lab.step(name).number]
        conflicts = [c for s in later for c in s.conflicts]
        if conflicts:
            c = conflicts[0]
            self._say(f"edit saved; {len(conflicts)} conflict(s) with regenerated later steps, first at "
                      f"{c.path}:{c.line} — both sides are kept between markers: edit that step to resolve", "error")
        else:
            names = ", ".join(s.name for s in later) or "none"
            self._say(f"edit of {path} saved; later steps re-derived and merged ({names})")

    def compile(self) -> None:
        self._say("compiling on the emulator and comparing with PyTorch…", "progress")
        with self._running():
            try:
                result = self.lab.compile_and_verify(progress=lambda m: self._say(m, "progress"))
            except LabError as exc:
                self._say(str(exc), "error")
                return
        self._say(result.message, "info" if result.correct else "error")

    def profile(self) -> None:
        """The ESTIMATED profile (and the measured one on an NPU host) in the message area."""
        self._say("profiling: running the kernel traced on the emulator…", "progress")
        with self._running():
            try:
                text, _timeline = profile(self.lab)
            except LabError as exc:
                self._say(str(exc), "error")
                return
        self._say(text)

    @contextmanager
    def _running(self):
        """Every button closed while a long action runs (one at a time, as in the extension)."""
        self._busy = True
        self._render_actions()
        try:
            yield
        finally:
            self._busy = False
            self._render_actions()

    def _repr_mimebundle_(self, **kwargs):
        return self.root._repr_mimebundle_(**kwargs)


def _tab_title(path: str, kernel) -> str:
    """`host/gelu_tiling.cpp` -> `tiling.cpp`: six tabs must fit a third of the width."""
    name = path.rsplit("/", 1)[-1]
    prefix = f"{kernel.name}_" if kernel is not None else ""
    return name[len(prefix):] if prefix and name.startswith(prefix) and len(name) > len(prefix) else name


def _titled(title: str, body: str) -> str:
    return f'<div style="font-weight:bold;margin:2px 0">{html.escape(title)}</div>{body}'
