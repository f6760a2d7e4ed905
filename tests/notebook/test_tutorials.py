"""Every tutorial notebook runs top to bottom, offline, and ends with the emulator's verified verdict.

Each runs in a fresh ipykernel started from this interpreter (a kernelspec written to a temp
dir, so a fresh checkout needs nothing but `make test`), in a temp copy of notebooks/ so session
folders never land in the repository. Cells tagged `raises-exception` are the tutorials' own
"break it" steps: they must fail, with a message, not a traceback.
"""
from __future__ import annotations

import json
import re
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


# What may differ between a first run and a run again in the same folder: the note that a cell
# set the earlier run's review aside, and durations.
RERUN_NOTES = re.compile(r"^started `[\w.-]+` afresh from this draft: .*$\n?", re.M)
DURATION = re.compile(r"\d+(\.\d+)? ?(s|ms)\b")


def run_tutorial(path: Path, work: Path) -> list:
    """Execute the tutorial in `work` in a fresh kernel (as "Restart Kernel and Run All" does)."""
    nb = nbformat.read(work / path.name, as_version=4)
    client = NotebookClient(nb, kernel_name=KERNEL_NAME, timeout=300, resources={"metadata": {"path": str(work)}})
    client.execute()
    return [c for c in nb.cells if c.cell_type == "code"]


def assert_ends_verified(code: list) -> None:
    for cell in code:
        text = outputs_text(cell)
        if "raises-exception" in cell.metadata.get("tags", []):
            assert "UsageError" in text or "LabError" in text, f"expected a short error in:\n{cell.source}"
            assert "Traceback (most recent call last)" not in text, text
        else:
            assert not any(o.get("output_type") == "error" for o in cell.get("outputs", [])), text
    last = outputs_text(code[-1])
    assert "correct: `" in last and "matches the reference on the emulator" in last, last
    sizes = [len(json.dumps(o)) for c in code for o in c.get("outputs", [])]
    assert max(sizes) < 3_000_000


def printed(cell) -> str:
    text = "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")
    text = re.sub(r"^Overwriting ", "Writing ", text, flags=re.M)      # IPython's %%writefile, the second time
    return DURATION.sub("<t>", RERUN_NOTES.sub("", text))


@pytest.mark.heavy
@pytest.mark.parametrize("path", TUTORIALS, ids=lambda p: p.stem)
def test_tutorial_runs_twice_in_one_folder_and_ends_verified_both_times(path, kernel_dir, tmp_path, monkeypatch):
    """Run, then "Restart Kernel and Run All" in the same folder: the second run resumes the
    sessions the first left (saying so) and prints what the first printed."""
    monkeypatch.setenv("JUPYTER_PATH", str(kernel_dir))
    monkeypatch.delenv("ASCENDCRAFT_WORKDIR", raising=False)
    work = tmp_path / "notebooks"
    shutil.copytree(NOTEBOOKS, work, ignore=shutil.ignore_patterns("ascendcraft-sessions", ".ipynb_checkpoints"))
    first = run_tutorial(path, work)
    assert_ends_verified(first)
    assert (work / "ascendcraft-sessions").is_dir()
    again = run_tutorial(path, work)
    assert_ends_verified(again)
    if any(c.source.startswith("%%ascendcraft") for c in again):
        assert any("afresh from this draft" in outputs_text(c) for c in again), "the run again says nothing"
    for one, two in zip(first, again):
        assert printed(one) == printed(two), f"the cell prints otherwise when run again:\n{one.source}"
