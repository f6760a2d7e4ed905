"""The session folder: the unit of persistence for one kernel (ARCHITECTURE.md).

```
<dir>/ascendcraft.json     manifest: DSL hash, SoC, engine and state per step, findings, results
<dir>/kernel.dsl.py        the DSL draft
<dir>/reference.py         the PyTorch reference (when given)
<dir>/stages/NN-pass/      the bundle after each pass (the files the user sees)
<dir>/stages/NN-pass.edit/ the user's edit of that step, when there is one
<dir>/ascendc/             the final AscendC project
<dir>/runs/<stamp>.json    compile/verify/profile results
```
Every write is atomic; opening an existing folder resumes it (edits and step states kept).
"""
from __future__ import annotations

import hashlib
import json
import shutil
import time
from pathlib import Path
from typing import Any

from ..atomic import write_json, write_text
from .bundle import Bundle
from .pipeline import PIPELINE

MANIFEST = "ascendcraft.json"
SCHEMA_VERSION = 1


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


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


class SessionFolder:
    def __init__(self, path: str | Path):
        self.path = Path(path)

    @property
    def manifest_path(self) -> Path:
        return self.path / MANIFEST

    def exists(self) -> bool:
        return self.manifest_path.exists()

    def manifest(self) -> dict[str, Any]:
        if not self.exists():
            return {"schema": SCHEMA_VERSION, "steps": {}}
        try:
            return json.loads(self.manifest_path.read_text())
        except json.JSONDecodeError as exc:
            raise ValueError(f"{self.manifest_path}: manifest is not valid JSON ({exc.msg} at line {exc.lineno})") from None

    def save_manifest(self, manifest: dict[str, Any]) -> None:
        write_json(self.manifest_path, manifest)

    def dsl_path(self) -> Path:
        return self.path / "kernel.dsl.py"

    def stage_dir(self, pass_name: str) -> Path:
        spec = next(p for p in PIPELINE if p.name == pass_name)
        return self.path / "stages" / spec.dirname

    def edit_dir(self, pass_name: str) -> Path:
        return self.stage_dir(pass_name).with_name(self.stage_dir(pass_name).name + ".edit")

    def edits(self) -> dict[str, Bundle]:
        """The user's edits, by pass name."""
        return {p.name: read_bundle(self.edit_dir(p.name)) for p in PIPELINE if self.edit_dir(p.name).is_dir()}

    def save_edit(self, pass_name: str, bundle: Bundle) -> None:
        write_bundle(self.edit_dir(pass_name), bundle)

    def drop_edit(self, pass_name: str) -> None:
        shutil.rmtree(self.edit_dir(pass_name), ignore_errors=True)

    def write_stage(self, pass_name: str, bundle: Bundle) -> None:
        write_bundle(self.stage_dir(pass_name), bundle)

    def read_stage(self, pass_name: str) -> Bundle | None:
        d = self.stage_dir(pass_name)
        return read_bundle(d) if d.is_dir() else None

    def write_project(self, bundle: Bundle) -> None:
        write_bundle(self.path / "ascendc", bundle)

    def record_run(self, result: dict[str, Any]) -> Path:
        stamp = time.strftime("%Y%m%d-%H%M%S") + f"-{int(time.time() * 1000) % 1000:03d}"
        out = self.path / "runs" / f"{stamp}.json"
        write_json(out, result)
        return out
