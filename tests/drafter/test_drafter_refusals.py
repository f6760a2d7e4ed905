"""What the drafter cannot do, it says in one line: which op or pattern, or why the file failed."""
from __future__ import annotations

import pytest

from ascendcraft_lab.drafter import DraftError, draft_reference
from ascendcraft_lab.cli.draft import main as draft_main

from drafter_helpers import write_ref

# Compiles C++, starts a child process or runs long: not in `make test-fast`.
pytestmark = pytest.mark.heavy


def test_an_unsupported_op_is_named_in_one_line(ref_dir, capsys):
    path = write_ref(ref_dir, "erfinv_ref", "def forward(self, x):\n    return torch.erfinv(x * 0.5)",
                     "[torch.rand(4, 8)]")
    assert draft_main([str(path)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert "erfinv" in err and "unsupported" in err


def test_a_convolution_is_refused_naming_its_reference_line(ref_dir):
    path = write_ref(ref_dir, "conv_ref", "def forward(self, x, w):\n    return F.conv2d(x, w).relu()",
                     "[torch.randn(1, 3, 8, 8), torch.randn(4, 3, 3, 3)]")
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if "conv2d" in text)
    with pytest.raises(DraftError) as exc:
        draft_reference(path)
    assert "\n" not in str(exc.value) and "convolution" in str(exc.value) and f"reference line {line}" in str(exc.value)


def test_a_reference_that_raises_on_import_is_one_line(ref_dir, capsys):
    path = ref_dir / "broken_ref.py"
    path.write_text("import torch\nraise RuntimeError('broken on purpose')\n")
    assert draft_main([str(path), "-o", str(ref_dir / "never.dsl.py")]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert "on import" in err and "broken on purpose" in err and "line 2" in err
    assert not (ref_dir / "never.dsl.py").exists()


@pytest.mark.parametrize("forward,construct", [
    ("x[:, 3:20].sum(dim=-1)", "a slice [3:20] along axis 1"),      # a slice of an input is drafted, not in a reduction
    ("torch.cat([x, x * 2.0], dim=1).sum(dim=-1)", "`cat`"),   # a cat as the whole output is drafted
    ("torch.flip(x, [1]).sum(dim=-1)", "a `reduce` beside a pad, flip or roll"),   # a flip alone is drafted
], ids=["slice", "cat", "flip"])
def test_a_view_the_layouts_cannot_copy_is_refused_naming_the_construct_and_its_reference_line(
        ref_dir, forward, construct):
    path = write_ref(ref_dir, "view_ref", f"def forward(self, x):\n    return {forward}", "[torch.randn(6, 33)]")
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if "return" in text and "x" in text)
    with pytest.raises(DraftError) as exc:
        draft_reference(path)
    msg = str(exc.value)
    assert "\n" not in msg and construct in msg and f"(reference line {line})" in msg, msg
