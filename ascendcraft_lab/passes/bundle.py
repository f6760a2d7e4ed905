"""Bundle: the AscendC project as it stands after a pass, `{relative path: text}`.

A bundle carries a source map beside its text: for every line of every file, the DSL line
that caused it (0 for boilerplate). The map is data about the text, so an edited bundle
gets its map carried over by `remap` (unchanged lines keep theirs, new lines have none).
"""
from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Iterator, Mapping

from ..atomic import write_json, write_text

SourceMap = Mapping[str, tuple[int, ...]]


@dataclass(frozen=True)
class Bundle:
    files: Mapping[str, str]
    source_map: SourceMap = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "files", MappingProxyType(dict(sorted(self.files.items()))))
        full = {p: tuple(self.source_map.get(p, ())) for p in self.files}
        for path, text in self.files.items():
            n = len(text.splitlines())
            lines = full[path]
            full[path] = lines[:n] + (0,) * (n - len(lines))
        object.__setattr__(self, "source_map", MappingProxyType(full))

    def __getitem__(self, path: str) -> str:
        return self.files[path]

    def __iter__(self) -> Iterator[str]:
        return iter(self.files)

    def dsl_line(self, path: str, line: int) -> int:
        """DSL line behind C++ line `line` (1-based) of `path`; 0 when boilerplate."""
        lines = self.source_map.get(path, ())
        return lines[line - 1] if 0 < line <= len(lines) else 0

    def with_files(self, files: Mapping[str, str]) -> "Bundle":
        """The same project with some files replaced; maps follow the text by `remap`."""
        merged = {**self.files, **files}
        return Bundle(merged, {p: remap(self.files.get(p, ""), self.source_map.get(p, ()), t)
                               for p, t in merged.items()})


def remap(old_text: str, old_map: tuple[int, ...], new_text: str) -> tuple[int, ...]:
    """Carry a source map from `old_text` to `new_text`: equal lines keep their DSL line, and
    a rewritten line keeps the DSL line of the line it replaced (an edit of a copy is still
    about the same load); inserted lines map to nothing."""
    old, new = old_text.splitlines(), new_text.splitlines()
    result = [0] * len(new)
    at = lambda i: old_map[i] if i < len(old_map) else 0  # noqa: E731
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            result[j1:j2] = [at(i) for i in range(i1, i2)]
        elif tag == "replace":
            result[j1:j2] = [at(min(i1 + (j - j1), i2 - 1)) for j in range(j1, j2)]
    return tuple(result)


@dataclass(frozen=True)
class FileDiff:
    path: str
    added: int
    removed: int
    text: str  # unified diff

    @property
    def stat(self) -> str:
        return f"+{self.added} -{self.removed}"


def diff(before: Bundle | None, after: Bundle, context: int = 3) -> list[FileDiff]:
    """Per-file diff from `before` (None: empty project) to `after`; unchanged files omitted."""
    result = []
    prev = before.files if before else {}
    for path in sorted(set(prev) | set(after.files)):
        a, b = prev.get(path, ""), after.files.get(path, "")
        if a == b:
            continue
        lines = list(difflib.unified_diff(a.splitlines(), b.splitlines(), f"a/{path}", f"b/{path}", n=context,
                                          lineterm=""))
        added = sum(1 for l in lines[2:] if l.startswith("+"))
        removed = sum(1 for l in lines[2:] if l.startswith("-"))
        result.append(FileDiff(path, added, removed, "\n".join(lines)))
    return result


def diff_stat(diffs: list[FileDiff]) -> str:
    return f"+{sum(d.added for d in diffs)} -{sum(d.removed for d in diffs)}"


def write_bundle(root: Path, bundle: Bundle) -> None:
    """Write a bundle's files under `root`, removing files the bundle no longer has."""
    root.mkdir(parents=True, exist_ok=True)
    wanted = {root / p for p in bundle.files}
    for old in [p for p in root.rglob("*") if p.is_file() and p not in wanted and p.name != ".sourcemap.json"]:
        old.unlink()
    for path, text in bundle.files.items():
        write_text(root / path, text)
    write_json(root / ".sourcemap.json", {p: list(m) for p, m in bundle.source_map.items()})


def read_bundle(root: Path) -> Bundle:
    files = {p.relative_to(root).as_posix(): p.read_text() for p in sorted(root.rglob("*"))
             if p.is_file() and p.name != ".sourcemap.json"}
    map_file = root / ".sourcemap.json"
    maps = json.loads(map_file.read_text()) if map_file.exists() else {}
    return Bundle(files, {p: tuple(m) for p, m in maps.items()})
