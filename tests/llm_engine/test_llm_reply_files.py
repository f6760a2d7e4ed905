"""The file-set reply format: what a model may send back for a lowering pass."""
from __future__ import annotations

import pytest

from ascendcraft_lab.engines.llm.files import ReplyFormatError, format_files, parse_files

PROJECT = {"kernel/k_kernel.cpp", "host/k_tiling.h", "CMakeLists.txt"}


def test_formatted_files_parse_back_unchanged():
    files = {"kernel/k_kernel.cpp": "int a;\n// ``` inside a comment\n", "CMakeLists.txt": "project(k)\n"}
    assert parse_files(format_files(files), PROJECT) == files


@pytest.mark.parametrize("marker", ["// file: kernel/k_kernel.cpp", "### file: `kernel/k_kernel.cpp`",
                                    "**File:** kernel/k_kernel.cpp", "# file: ./kernel/k_kernel.cpp"])
def test_the_marker_may_be_written_the_ways_models_write_it(marker):
    assert parse_files(f"Sure.\n\n{marker}\n```cpp\nint a;\n```\nDone.", PROJECT) == {"kernel/k_kernel.cpp": "int a;\n"}
    assert parse_files(f"```cpp\n{marker}\nint a;\n```", PROJECT) == {"kernel/k_kernel.cpp": "int a;\n"}


@pytest.mark.parametrize("reply, message", [
    ("// file: ../../etc/passwd\n```\nx\n```", "is not a project path"),
    ("// file: /etc/passwd\n```\nx\n```", "is not a project path"),
    ("// file: kernel/other.cpp\n```cpp\nx\n```", "is not a file of this project"),
    ("```cpp\nint a;\n```", "has no `// file: <path>` line"),
    ("// file: CMakeLists.txt\n```\na\n```\n// file: CMakeLists.txt\n```\nb\n```", "is sent twice"),
    ("// file: CMakeLists.txt\n```\nproject(k)\n", "never closed"),
    ("I changed nothing.", "has no file block"),
])
def test_a_reply_that_is_not_a_file_set_is_refused_with_a_reason(reply, message):
    with pytest.raises(ReplyFormatError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_files(reply, PROJECT)
