"""Source spans, `DslError`, and the one diagnostic format every finding is printed in.

The format is rustc-style and shared with later C++ findings mapped back to DSL lines:

    error: <what is wrong>
     --> kernel.dsl.py:7:9
      |
    7 |         tile = ub_elems(f32, live=40)
      |         ^^^^
      = help: <what would be right>

These messages are also what the LLM engine feeds back to the model, so each says in one
sentence what is wrong and, in `help`, what would be right.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Span:
    """A source range: 1-based line and column; `end_col` is exclusive (also 1-based)."""

    line: int
    col: int
    end_line: int
    end_col: int

    @staticmethod
    def point(line: int, col: int = 1) -> "Span":
        return Span(line, col, line, col + 1)

    def __str__(self) -> str:
        return f"{self.line}:{self.col}"


NO_SPAN = Span(0, 0, 0, 0)


def format_diagnostic(path: str | None, source: str | None, span: Span | None, message: str,
                      help: str | None = None, *, severity: str = "error") -> str:
    """Render one finding: header, location, the source line with carets, and a help line.

    Works without a span (only the header and help) or without source (no snippet), so C++
    findings that map to no DSL line use the same format.
    """
    out = [f"{severity}: {message}"]
    where = path or "<dsl>"
    lines = source.splitlines() if source else []
    if span is not None and span.line > 0:
        out.append(f" --> {where}:{span.line}:{max(span.col, 1)}")
        if 0 < span.line <= len(lines):
            text = lines[span.line - 1].expandtabs(4)
            gutter = " " * len(str(span.line))
            start = max(span.col, 1)
            end = span.end_col if span.end_line == span.line else len(text) + 1
            end = max(min(end, len(text) + 1), start + 1)
            out.append(f"{gutter} |")
            out.append(f"{span.line} | {text}")
            out.append(f"{gutter} | {' ' * (start - 1)}{'^' * (end - start)}")
            if help:
                out.append(f"{gutter} = help: {help}")
            return "\n".join(out)
    elif path:
        out.append(f" --> {where}")
    if help:
        out.append(f"  = help: {help}")
    return "\n".join(out)


class DslError(Exception):
    """A rejected DSL draft: where (span), what is wrong (message) and what would be right (help).

    `str(err)` is the full diagnostic; `err.message` the bare sentence. `path`/`source` may be
    attached later by whoever knows them (`with_source`), so deep code only needs the span.
    """

    def __init__(self, message: str, span: Span | None = None, help: str | None = None,
                 path: str | None = None, source: str | None = None, rule: str = ""):
        super().__init__(message)
        self.rule = rule            # the verifier's rule it breaks (dsl/rules.py), "" for other errors
        self.message = message
        self.span = span
        self.help = help
        self.path = path
        self.source = source

    def with_source(self, path: str | None, source: str | None) -> "DslError":
        if self.path is None:
            self.path = path
        if self.source is None:
            self.source = source
        return self

    @property
    def line(self) -> int:
        return self.span.line if self.span else 0

    @property
    def col(self) -> int:
        return self.span.col if self.span else 0

    def render(self) -> str:
        return format_diagnostic(self.path, self.source, self.span, self.message, self.help)

    def one_line(self) -> str:
        """`file:line:col: message` for logs and test ids."""
        loc = f"{self.path or '<dsl>'}:{self.line}:{self.col}" if self.span else (self.path or "<dsl>")
        return f"{loc}: {self.message}"

    def __str__(self) -> str:
        return self.render()


def human_bytes(n: int) -> str:
    """`188160` -> `183.75 KiB`; exact figures because budgets are compared to the byte."""
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            value = n / size
            text = f"{value:.2f}".rstrip("0").rstrip(".")
            return f"{text} {unit}"
    return f"{n} B"
