"""The notebook workbench: `%%ascendcraft`, step-through review, edit/accept, the pipeline display.

    lab          LabSession: the session layer's Session (accept, edit, undo, regenerate,
                 compile_and_verify) displayed as the pipeline view; the live session per folder
    magic        %%ascendcraft and %ascendcraft_config (traitlets settings), load_ipython_extension
    display      the one MIME bundle per cell: pipeline JSON, ipywidgets view, HTML, plain text
    viewmodel    the steps, their states and what each button may do (and why not): one model
                 that the payload, the ipywidgets view and the static HTML all render
    payload      application/vnd.ascendcraft.pipeline+json (schema.json, docs/pipeline-mime.md)
    widget       PipelineView, the ipywidgets view
    profile      the Profile action (ESTIMATED offline, measured on an NPU host), for every view
    render       highlighted panes coloured by DSL line, diffs, the static HTML page
    lexer        AscendCLexer (pygments)
"""
from ..session import CheckResult, StepState
from .lab import LabError, LabSession


def load_ipython_extension(ip):
    from .magic import load_ipython_extension as load
    load(ip)


def unload_ipython_extension(ip):
    from .magic import unload_ipython_extension as unload
    unload(ip)


__all__ = ["LabSession", "LabError", "StepState", "CheckResult", "load_ipython_extension", "unload_ipython_extension"]
