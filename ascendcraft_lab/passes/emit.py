"""Emitter: writes C++ text line by line, remembering which DSL line each line implements.

Generators call `line(text, dsl=span_line)` or open a `block(...)`; indentation is managed
here so generated code is consistently formatted (4 spaces, K&R braces).
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator


class Emitter:
    def __init__(self, indent: str = "    "):
        self._lines: list[str] = []
        self._map: list[int] = []
        self._depth = 0
        self._indent = indent
        self._dsl = 0

    def line(self, text: str = "", dsl: int | None = None) -> None:
        for part in text.split("\n"):
            self._lines.append(f"{self._indent * self._depth}{part}" if part else "")
            self._map.append(self._dsl if dsl is None else dsl)

    def lines(self, text: str, dsl: int | None = None) -> None:
        for part in text.splitlines():
            self.line(part, dsl)

    def label(self, text: str, dsl: int | None = None) -> None:
        """A line one level out, such as `public:` inside a class."""
        self._depth -= 1
        try:
            self.line(text, dsl)
        finally:
            self._depth += 1

    def blank(self) -> None:
        if not self.ends_blank():
            self.line("", 0)

    def ends_blank(self) -> bool:
        """True when nothing or a blank line was written last (a blank would double it)."""
        return not self._lines or self._lines[-1] == ""

    @contextmanager
    def dsl(self, line: int) -> Iterator[None]:
        """Attribute every line emitted inside to DSL line `line`."""
        saved, self._dsl = self._dsl, line
        try:
            yield
        finally:
            self._dsl = saved

    @contextmanager
    def block(self, head: str, tail: str = "}", dsl: int | None = None) -> Iterator[None]:
        self.line(head + " {", dsl)
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
            self.line(tail, dsl)

    @contextmanager
    def indented(self) -> Iterator[None]:
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1

    def text(self) -> str:
        return "\n".join(self._lines) + "\n"

    def source_map(self) -> tuple[int, ...]:
        return tuple(self._map)
