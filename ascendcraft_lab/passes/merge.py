"""Three-way merge of an edited step with the next generated step.

base = the generated step k, ours = step k as the user edited it, theirs = the generated
step k+1. Non-overlapping changes combine; an overlap becomes a `Conflict` that keeps both
sides (the merged text holds git-style markers), so an edit is never silently lost.
"""
from __future__ import annotations

from dataclasses import dataclass

import merge3

from .bundle import Bundle, remap


@dataclass(frozen=True)
class Conflict:
    path: str
    line: int            # 1-based line of the `<<<<<<<` marker in the merged text
    ours: tuple[str, ...]
    theirs: tuple[str, ...]
    base: tuple[str, ...]


@dataclass(frozen=True)
class MergeResult:
    bundle: Bundle
    conflicts: tuple[Conflict, ...]

    @property
    def clean(self) -> bool:
        return not self.conflicts


def _merge_text(path: str, base: str, ours: str, theirs: str) -> tuple[str, list[Conflict]]:
    b, o, t = (s.splitlines(keepends=True) for s in (base, ours, theirs))
    out: list[str] = []
    conflicts: list[Conflict] = []
    for region in merge3.Merge3(b, o, t).merge_regions():
        kind = region[0]
        if kind == "unchanged":
            out.extend(b[region[1]:region[2]])
        elif kind in ("a", "same"):
            out.extend(o[region[1]:region[2]])
        elif kind == "b":
            out.extend(t[region[1]:region[2]])
        else:  # conflict: (kind, base lo, base hi, ours lo, ours hi, theirs lo, theirs hi)
            _, zb, ze, ab, ae, bb, be = region
            conflicts.append(Conflict(path, len(out) + 1, tuple(o[ab:ae]), tuple(t[bb:be]), tuple(b[zb:ze])))
            out.append("<<<<<<< your edit\n")
            out.extend(_terminated(o[ab:ae]))
            out.append("=======\n")
            out.extend(_terminated(t[bb:be]))
            out.append(">>>>>>> regenerated\n")
    return "".join(out), conflicts


def _terminated(lines: list[str]) -> list[str]:
    return [l if l.endswith("\n") else l + "\n" for l in lines]


def merge_bundles(base: Bundle, ours: Bundle, theirs: Bundle) -> MergeResult:
    """Merge per file; source map lines follow `theirs` where its text survives."""
    files: dict[str, str] = {}
    maps: dict[str, tuple[int, ...]] = {}
    conflicts: list[Conflict] = []
    for path in sorted(set(base.files) | set(ours.files) | set(theirs.files)):
        b, o, t = base.files.get(path), ours.files.get(path), theirs.files.get(path)
        if o == b:                      # not edited: take the regenerated file (or its deletion)
            if t is not None:
                files[path], maps[path] = t, theirs.source_map[path]
            continue
        if t == b:                      # regenerated file did not change: keep the edit
            if o is not None:
                files[path] = o
                maps[path] = remap(b or "", base.source_map.get(path, ()), o)
            continue
        text, found = _merge_text(path, b or "", o or "", t or "")
        files[path] = text
        maps[path] = remap(t or "", theirs.source_map.get(path, ()), text)
        conflicts.extend(found)
    return MergeResult(Bundle(files, maps), tuple(conflicts))
