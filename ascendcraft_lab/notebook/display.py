"""The one display per cell: a MIME bundle with four representations of a session.

- `application/vnd.ascendcraft.pipeline+json` — the data (payload.py), for the JupyterLab extension;
- `application/vnd.jupyter.widget-view+json` — the ipywidgets view (widget.py), live;
- `text/html` — the static page (render.py), for nbconvert and GitHub;
- `text/plain` — the summary, for terminals and logs.
A frontend shows the richest one it can render. The total stays under `MAX_OUTPUT_CHARS`.
"""
from __future__ import annotations

import json

from . import render
from .payload import MIME_TYPE, pipeline_payload

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
MAX_OUTPUT_CHARS = 4_000_000


def mimebundle(lab, *, widget: bool = True) -> dict:
    bundle = {MIME_TYPE: pipeline_payload(lab), "text/plain": lab.summary()}
    page = render.static_html(lab)
    if len(page) + len(json.dumps(bundle[MIME_TYPE])) > MAX_OUTPUT_CHARS:
        page = render.static_html(lab, limit_lines=50)
    bundle["text/html"] = page
    if widget:
        view = view_for(lab)
        if view is not None:
            bundle[WIDGET_MIME] = view.root._repr_mimebundle_()[WIDGET_MIME]
    return bundle


def view_for(lab):
    """A live ipywidgets view, or None where widgets cannot exist (no ipywidgets)."""
    try:
        from .widget import PipelineView
    except ImportError:
        return None
    return PipelineView(lab)
