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
from typing import Any, Iterator

from ..atomic import write_json, write_text
from ..passes.bundle import Bundle, read_bundle, write_bundle
from ..passes.pipeline import PIPELINE

MANIFEST = "ascendcraft.json"
SCHEMA_VERSION = 1


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


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

    def write_dsl(self, text: str) -> None:
        write_text(self.dsl_path(), text)

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

    def drop_stage(self, pass_name: str) -> None:
        shutil.rmtree(self.stage_dir(pass_name), ignore_errors=True)

    def read_stage(self, pass_name: str) -> Bundle | None:
        d = self.stage_dir(pass_name)
        return read_bundle(d) if d.is_dir() else None

    def write_project(self, bundle: Bundle) -> None:
        write_bundle(self.path / "ascendc", bundle)

    def drop_project(self) -> None:
        shutil.rmtree(self.path / "ascendc", ignore_errors=True)

    def record_run(self, result: dict[str, Any]) -> Path:
        stamp = time.strftime("%Y%m%d-%H%M%S") + f"-{int(time.time() * 1000) % 1000:03d}"
        out = self.path / "runs" / f"{stamp}.json"
        write_json(out, result)
        return out

    def runs(self) -> Iterator[tuple[dict[str, Any], Path]]:
        """The run records, newest first (unreadable ones skipped)."""
        folder = self.path / "runs"
        for path in sorted(folder.glob("*.json"), reverse=True) if folder.is_dir() else ():
            try:
                yield json.loads(path.read_text()), path
            except (OSError, json.JSONDecodeError):
                continue
