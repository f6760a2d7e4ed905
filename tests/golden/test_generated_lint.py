"""The generated AscendC reads like careful human code: what a reviewer would flag, checked.

For every expert example's final project (beside the goldens):
- the kernel builds against the emulator and the host tiling code with g++ -Wall -Wextra -Werror;
- every helper, constant and member the files declare is used;
- no function computes the same non-trivial subexpression more than `REPEAT_CAP` times (hoist it).
"""
from __future__ import annotations

import collections
import re
import subprocess

import pytest

from ascendcraft_lab.backends.emulator.runner import compile_sources
from ascendcraft_lab.dsl.parser import parse
from ascendcraft_lab.dsl.verifier import verify
from ascendcraft_lab.engines.rule import render
from ascendcraft_lab.examples import EXAMPLES
from ascendcraft_lab.passes.plan import plan_for
from ascendcraft_lab.passes.spec import LowerOptions

REPEAT_CAP = 3
STRICT = ("-Wall", "-Wextra", "-Werror")


def _project(ex):
    program = verify(parse(ex.dsl.read_text(), ex.dsl.name))
    return plan_for(program, LowerOptions()), render(program, LowerOptions(), 4)


@pytest.fixture(scope="module", params=EXAMPLES, ids=[e.name for e in EXAMPLES])
def project(request, tmp_path_factory):
    plan, bundle = _project(request.param)
    root = tmp_path_factory.mktemp(request.param.op)
    for path, text in bundle.files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return plan, bundle, root


@pytest.mark.heavy
def test_kernel_builds_warning_free_with_werror(project):
    plan, _, root = project
    result = compile_sources([root / plan.kernel_path], include_dirs=[root / "host"], extra_flags=("-Werror",))
    assert not result.errors, "\n".join(d["message"] for d in result.errors)


@pytest.mark.heavy
def test_host_tiling_code_builds_warning_free_with_werror(project):
    plan, _, root = project
    out = subprocess.run(["g++", "-std=c++17", *STRICT, "-fsyntax-only", "-I", str(root / "host"),
                          str(root / plan.tiling_impl_path)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def _declared(text: str) -> dict[str, str]:
    """Names the file declares that a reader expects to be used: helpers, constants, members, locals."""
    names = {}
    for m in re.finditer(r"\b(?:__aicore__ inline (?:static )?\w+|int64_t|inline \w+|\w+) "
                         r"(\w+)\([^;{]*\)\s*(?:const\s*)?\{", text):
        if m.group(1) not in ("if", "for", "while", "switch"):
            names[m.group(1)] = "function"
    for m in re.finditer(r"constexpr \w+ (\w+) =", text):
        names[m.group(1)] = "constant"
    for m in re.finditer(r"^\s+(?:TPipe|TQue<[^>]*>|TBuf<[^>]*>|GlobalTensor<\w+>|LocalTensor<\w+>"
                         r"|int64_t|float|int32_t)"
                         r" (\w+)(?: = [^;]*)?;", text, re.M):
        names[m.group(1)] = "member or local"
    return names


ENTRY_POINTS = {"Init", "Process"}      # called from the entry function / the launch


def test_every_declared_name_is_used(project):
    plan, bundle, _ = project
    for path in (plan.kernel_path, plan.tiling_impl_path):
        text = re.sub(r"//[^\n]*", "", bundle.files[path])
        for name, kind in _declared(text).items():
            if name in ENTRY_POINTS or name.endswith(("TilingFunc", plan.cls)) or name == plan.entry:
                continue
            uses = len(re.findall(rf"\b{re.escape(name)}\b", text))
            assert uses > 1, f"{path}: {kind} `{name}` is declared but never used"


def _functions(text: str):
    """(name, body) of every function definition of a C++ file (a line ending in `) {`)."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"\s*(?:.*\s)?(\w+)\s*\(.*\)\s*(?:const\s*)?\{\s*$", lines[i])
        if m and not re.match(r"\s*(?:if|for|while|else|switch)\b", lines[i]):
            depth, j = lines[i].count("{") - lines[i].count("}"), i + 1
            body = []
            while j < len(lines) and depth > 0:
                depth += lines[j].count("{") - lines[j].count("}")
                body.append(lines[j])
                j += 1
            yield m.group(1), "\n".join(body)
            i = j
        else:
            i += 1


def repeated_subexpressions(body: str) -> collections.Counter:
    """Parenthesised arithmetic subexpressions of a function body, by how often each appears."""
    code = re.sub(r"//[^\n]*", "", body)
    found, stack = [], []
    for k, ch in enumerate(code):
        if ch == "(":
            stack.append(k)
        elif ch == ")" and stack:
            inner = code[stack.pop() + 1:k]
            arithmetic = re.search(r"[^\s,]\s*[-+*/%]\s*[^\s,]", inner)
            if arithmetic and "," not in inner and ";" not in inner and len(inner) > 6:
                found.append(re.sub(r"\s+", " ", inner.strip()))
    return collections.Counter(found)


def test_no_function_repeats_a_subexpression(project):
    plan, bundle, _ = project
    for path, text in bundle.files.items():
        if not path.endswith(".cpp"):
            continue
        for name, body in _functions(text):
            worst = repeated_subexpressions(body).most_common(1)
            if worst:
                expr, n = worst[0]
                assert n <= REPEAT_CAP, f"{path}: {name}() computes `{expr}` {n} times; compute it once"


def test_the_lint_can_fail():
    # the checks above are real: a body that repeats itself, an unused helper
    body = "a = (tiling.p + 7) * 2; b = (tiling.p + 7) * 3; c = (tiling.p + 7); d = (tiling.p + 7) - 1;"
    assert repeated_subexpressions(body)["tiling.p + 7"] == 4
    assert "Unused" in _declared("__aicore__ inline static int64_t Unused(int64_t a) { return a; }")
