"""Mark the tests that the fast tier refuses as `heavy`.

    ASCENDCRAFT_TEST_TIER=fast pytest -m "not heavy" --junitxml=/tmp/fast.xml [paths]
    python tools/mark_heavy.py /tmp/fast.xml

Every test that failed or errored in the fast tier (the conftest refuses a process started by a
light test) gets `@pytest.mark.heavy`; a file whose every test failed gets `pytestmark`. Review the
diff: a test that failed for another reason is marked too.
"""
from __future__ import annotations

import ast
import collections
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

FILE_MARK = ("\n# Compiles C++, starts a child process or runs long: not in `make test-fast`.\n"
             "pytestmark = pytest.mark.heavy")


def failing(junit: Path) -> dict[Path, tuple[set[str], set[str]]]:
    """{test file: (names of failing tests, names of passing tests)} from a junit report."""
    result: dict[Path, tuple[set[str], set[str]]] = collections.defaultdict(lambda: (set(), set()))
    for case in ET.parse(junit).iter("testcase"):
        parts = case.get("classname", "").split(".")
        while parts and not Path(*parts).with_suffix(".py").exists():
            parts.pop()                                        # a test class's name ends the classname
        if not parts:
            continue
        bad, ok = result[Path(*parts).with_suffix(".py")]
        name = case.get("name", "").split("[")[0]
        if any(child.tag in ("failure", "error") for child in case):
            bad.add(name)
        elif not any(child.tag == "skipped" for child in case):
            ok.add(name)
    return result


def _with_pytest_import(source: str) -> str:
    if re.search(r"^import pytest$", source, re.M):
        return source
    lines = source.split("\n")
    at = 0
    for node in ast.parse(source).body:
        is_doc = isinstance(node, ast.Expr) and isinstance(getattr(node, "value", None), ast.Constant)
        if is_doc or (isinstance(node, ast.ImportFrom) and node.module == "__future__"):
            at = node.end_lineno
            continue
        break
    lines.insert(at, "import pytest")
    return "\n".join(lines)


def mark(path: Path, bad: set[str], ok: set[str]) -> int:
    source = _with_pytest_import(path.read_text())
    if "pytestmark = pytest.mark.heavy" in source:
        return 0
    tree, lines = ast.parse(source), source.split("\n")
    if not (ok - bad):
        last = max(n.end_lineno for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom)))
        lines.insert(last, FILE_MARK)
        path.write_text("\n".join(lines))
        return 1
    inserts = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in bad:
            if any("heavy" in ast.unparse(d) for d in node.decorator_list):
                continue
            first = min([d.lineno for d in node.decorator_list] + [node.lineno])
            indent = re.match(r"\s*", lines[first - 1]).group(0)
            inserts.append((first - 1, indent + "@pytest.mark.heavy"))
    for at, text in sorted(inserts, reverse=True):
        lines.insert(at, text)
    path.write_text("\n".join(lines))
    return len(inserts)


def main(argv: list[str]) -> int:
    marked = sum(mark(path, bad, ok) for path, (bad, ok) in failing(Path(argv[0])).items() if bad)
    print(f"mark_heavy: {marked} marks added")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
