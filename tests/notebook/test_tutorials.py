"""Every tutorial notebook runs top to bottom, offline, and ends with the emulator's verified verdict.

Each runs in a fresh ipykernel started from this interpreter (a kernelspec written to a temp
dir, so a fresh checkout needs nothing but `make test`), in a temp copy of notebooks/ so session
folders never land in the repository. Cells tagged `raises-exception` are the tutorials' own
"break it" steps: they must fail, with a message, not a traceback.
"""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
TUTORIALS = sorted(NOTEBOOKS.glob("[0-9][0-9]-*.ipynb"))
KERNEL_NAME = "ascendcraft-tests"


@pytest.fixture(scope="module")
def kernel_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("jupyter")
    spec = root / "kernels" / KERNEL_NAME
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "AscendCraft tests", "language": "python"}))
    return root


def test_the_tutorials_are_numbered_from_01_and_include_broadcasting_and_the_cube_unit():
    numbers = [p.name[:2] for p in TUTORIALS]
    assert {"01", "02", "03", "04", "05", "06", "07"} <= set(numbers) and numbers == sorted(set(numbers))


def outputs_text(cell) -> str:
    parts = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            parts.append(out.get("text", ""))
        elif out.get("output_type") == "error":
            parts.append(f"{out.get('ename')}: {out.get('evalue')}\n" + "\n".join(out.get("traceback", [])))
        else:
            parts.append(out.get("data", {}).get("text/plain", ""))
    return "".join(parts)


@pytest.mark.heavy
@pytest.mark.parametrize("path", TUTORIALS, ids=lambda p: p.stem)
def test_tutorial_runs_and_ends_verified(path, kernel_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("JUPYTER_PATH", str(kernel_dir))
    monkeypatch.delenv("ASCENDCRAFT_WORKDIR", raising=False)
    work = tmp_path / "notebooks"
    shutil.copytree(NOTEBOOKS, work, ignore=shutil.ignore_patterns("ascendcraft-sessions", ".ipynb_checkpoints"))
    nb = nbformat.read(work / path.name, as_version=4)
    client = NotebookClient(nb, kernel_name=KERNEL_NAME, timeout=300, resources={"metadata": {"path": str(work)}})
    client.execute()
    code = [c for c in nb.cells if c.cell_type == "code"]
    for cell in code:
        text = outputs_text(cell)
        if "raises-exception" in cell.metadata.get("tags", []):
            assert "UsageError" in text or "LabError" in text, f"expected a short error in:\n{cell.source}"
            assert "Traceback (most recent call last)" not in text, text
        else:
            assert not any(o.get("output_type") == "error" for o in cell.get("outputs", [])), text
    last = outputs_text(code[-1])
    assert "correct: `" in last and "matches the reference on the emulator" in last, last
    assert (work / "ascendcraft-sessions").is_dir()
    sizes = [len(json.dumps(o)) for c in code for o in c.get("outputs", [])]
    assert max(sizes) < 3_000_000
