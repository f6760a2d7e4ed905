"""The shipped suite: 52 references in the paper's seven categories, issue 17's broadcast (12), index (14), resize (15)
and layout (28), the cube's matmul (12, issue 19), and issue 32's fuse (24: products with epilogue chains) and
attention (10), each with a readable tail shape."""
from __future__ import annotations

import ast

from ascendcraft_lab.bench.suite import discover, read_tail
from ascendcraft_lab.suite import ROOT

EXPECTED = {"activation": 15, "loss": 7, "math": 6, "normalization": 8, "optimizer": 5, "pooling": 6, "reduce": 5,
            "broadcast": 12, "index": 14, "matmul": 12, "resize": 15, "layout": 28, "sort": 7, "datadep": 7,
            "predicates": 10, "glu": 6, "mhc": 4, "convolution": 19, "fuse": 24, "attention": 10, "filled": 5,
            "norms_plain": 5, "convert": 4, "foreach": 8, "reduce_axes": 5, "arch": 11}


def test_the_suite_has_the_papers_52_ops_in_seven_categories_and_the_broadcast_index_matmul_and_layout_folders():
    ops = discover(ROOT)
    counts = {}
    for op in ops:
        counts[op.category] = counts.get(op.category, 0) + 1
    assert counts == EXPECTED


def test_every_suite_op_declares_a_tail_made_of_its_own_module_constants():
    for op in discover(ROOT):
        assert op.tail and not op.error, op.name
        tree = ast.parse(op.path.read_text())
        constants = {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
        assert set(op.tail) <= constants, (op.name, set(op.tail) - constants)


def test_tail_is_read_without_running_the_file(tmp_path):
    f = tmp_path / "boom.py"
    f.write_text("raise SystemExit('never run')\nn = 4\nTAIL = {'n': 7}\n")
    assert read_tail(f) == ({"n": 7}, "")
    g = tmp_path / "bad.py"
    g.write_text("TAIL = {'n': some_call()}\n")
    assert "not a literal" in read_tail(g)[1]
