"""The README's compatibility table is generated from the headers: it must be current, and every
API it lists must exist where it says."""
from __future__ import annotations
import pytest

import re

from ascendcraft_lab.backends.emulator import compat

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy


def test_the_readme_table_is_what_the_headers_say():
    text = compat.README.read_text()
    assert compat.readme_with_table(text) == text, \
        "regenerate: python -m ascendcraft_lab.backends.emulator.compat --write"


def test_every_dtype_table_entry_belongs_to_an_api_of_the_table():
    listed = {n for a in compat.apis() for n in a.names}
    assert set(compat.dtype_table()) <= listed


def test_every_api_the_table_marks_as_there_is_declared_in_its_header():
    for a in compat.apis():
        if a.status == "no":
            continue
        code = re.sub(r"//[^\n]*", "", (compat.HERE / a.header).read_text())  # the code, not the markers
        for name in a.names:
            if name.endswith(".h"):  # a header name kernels include
                assert (compat.HERE / "include" / name).is_file(), f"no header {name}"
                continue
            ident = re.match(r"[A-Za-z_]\w*", name.split("::")[-1])
            if ident:
                assert re.search(rf"\b{re.escape(ident.group(0))}\b", code), f"{name} is not in {a.header}"
