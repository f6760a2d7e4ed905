"""A notebook cell holding a @program lowers every kernel and shows the program's kernels and launches."""
from __future__ import annotations

import pytest

from ascendcraft_lab.notebook.program_view import ProgramView

from .conftest import CHAIN, SCAN


@pytest.fixture(scope="module")
def shell():
    from IPython.core.interactiveshell import InteractiveShell
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "ascendcraft_lab")
    return ip


def test_a_program_cell_lists_each_kernel_with_its_passes_and_the_launches(shell, tmp_path):
    result = shell.run_cell(f"%%ascendcraft scan --workdir {tmp_path}\n{SCAN}")
    view = result.result
    assert result.error_in_exec is None and isinstance(view, ProgramView)
    assert [k for k, _, _ in view.rows()] == ["twice", "add"]
    assert [p for p, _, _ in view.rows()[0][2]] == ["host", "init", "compute", "align"]
    assert (tmp_path / "scan" / "kernels" / "add" / "stages" / "04-align").is_dir()
    assert view.launch_lines()[1].endswith("for s: add(d, x[s], st[(s + 1) % 2])")
    page = view._repr_html_()
    assert "<code>twice</code>" in page and "<ol>" in page and page.count("<li>") == 3


def test_a_program_cell_with_an_error_is_one_usage_error_at_its_line(shell, tmp_path):
    result = shell.run_cell(f"%%ascendcraft chain --workdir {tmp_path}\n{CHAIN.replace('add(h, x, y)', 'add(h, y)')}")
    err = result.error_in_exec
    assert err is not None and "takes 3 arguments (a, b, y)" in str(err)
