"""extract_code: the first fenced block in the wanted language, prose tolerated, never executed."""
from __future__ import annotations

import pytest

from ascendcraft_lab.engines.llm import LlmError, extract_code


def test_takes_the_python_block_out_of_prose():
    text = "Sure! Here is the kernel:\n\n```python\n@kernel\ndef relu(x):\n    pass\n```\n\nHope it helps."
    assert extract_code(text) == "@kernel\ndef relu(x):\n    pass\n"


def test_prefers_the_wanted_language_over_an_earlier_block_in_another():
    text = "```text\nplan: tile by 64\n```\nthen\n```cpp\nint main() {}\n```\n```python\nx = 1\n```"
    assert extract_code(text, "python") == "x = 1\n"
    assert extract_code(text, "cpp") == "int main() {}\n"


def test_accepts_aliases_and_untagged_blocks():
    assert extract_code("```py\na = 2\n```") == "a = 2\n"
    assert extract_code("```c++\nint a;\n```", "cpp") == "int a;\n"
    assert extract_code("text\n```\nplain = True\n```\n") == "plain = True\n"
    assert extract_code("~~~python\ntilde = 1\n~~~") == "tilde = 1\n"


def test_lang_none_takes_the_first_block_whatever_its_tag():
    assert extract_code("```json\n{}\n```\n```python\nx\n```", None) == "{}\n"


def test_a_longer_fence_may_contain_a_shorter_one():
    text = "````python\ndoc = '''\n```\ninner\n```\n'''\n````"
    assert extract_code(text) == "doc = '''\n```\ninner\n```\n'''\n"


def test_first_block_wins_when_several_match():
    assert extract_code("```python\nfirst\n```\n```python\nsecond\n```") == "first\n"


@pytest.mark.parametrize("text, detail", [
    ("def relu(x): return x  # no fences at all", ""),
    ("```python\ndef relu(x):\n    return x +", "never closed"),
    ("```cpp\nint a;\n```", "found ```cpp but wanted ```python"),
    ("```python\n\n```", "empty"),
])
def test_no_usable_block_is_one_clear_error(text, detail):
    with pytest.raises(LlmError) as info:
        extract_code(text)
    assert str(info.value).startswith("reply has no code block")
    assert detail in str(info.value) and info.value.kind == "no_code"


def test_the_code_is_parsed_not_executed(tmp_path):
    marker = tmp_path / "pwned"
    text = f"```python\nopen({str(marker)!r}, 'w').write('x')\n```"
    code = extract_code(text)
    assert "pwned" in code and not marker.exists()
