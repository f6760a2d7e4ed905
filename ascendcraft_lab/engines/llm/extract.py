"""`extract_code`: take the code out of a model's reply.

Models wrap code in Markdown fences and surround it with prose. We take the first fenced block
in the wanted language (```python, ```py, ```cpp, ```c++ ...), else the first block with no
language tag. LLM output is untrusted text: it is parsed here and later checked by the DSL
parser / constraint checkers / compiler, never executed by this layer.
"""
from __future__ import annotations

import re

from .errors import LlmError

# Language tag aliases seen in the wild, per language asked for.
_ALIASES = {
    "python": {"python", "py", "python3", "py3"},
    "cpp": {"cpp", "c++", "cc", "cxx", "hpp", "h", "c", "ascendc"},
    "toml": {"toml"},
    "json": {"json"},
    "diff": {"diff", "patch"},
}

# An opening fence: up to 3 spaces, 3+ backticks or tildes, then an optional info string.
_OPEN = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`\n]*?)[ \t]*$")


def _blocks(text: str) -> tuple[list[tuple[str, str]], bool]:
    """All closed fenced blocks as (language tag, body), and whether a fence was left open."""
    blocks: list[tuple[str, str]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = _OPEN.match(lines[i])
        if not m:
            i += 1
            continue
        fence = m.group("fence")
        tag = (m.group("info").split() or [""])[0].lower().lstrip(".{").rstrip("}")
        close = re.compile(r"^ {0,3}" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}[ \t]*$")
        for j in range(i + 1, len(lines)):
            if close.match(lines[j]):
                blocks.append((tag, "\n".join(lines[i + 1:j])))
                i = j + 1
                break
        else:
            return blocks, True
    return blocks, False


def extract_code(reply_text: str, lang: str | None = "python") -> str:
    """The first fenced code block in `lang` (or untagged) from `reply_text`, ending in a newline.

    `lang=None` takes the first block whatever its tag. Raises `LlmError(kind="no_code")`
    whose message starts with "reply has no code block" when there is none to take.
    """
    blocks, unclosed = _blocks(reply_text)
    wanted = _ALIASES.get(lang, {lang}) if lang else None
    chosen = None
    for tag, body in blocks:
        if wanted is None or tag in wanted:
            chosen = body
            break
    if chosen is None and wanted is not None:
        chosen = next((body for tag, body in blocks if tag == ""), None)
    if chosen is None:
        detail = ""
        others = sorted({tag for tag, _ in blocks if tag})
        if others:
            detail = f" (found {', '.join('```' + t for t in others)} but wanted ```{lang})"
        elif unclosed:
            detail = " (a ``` fence is opened but never closed: the reply may be truncated)"
        raise LlmError("reply has no code block" + detail, kind="no_code")
    if not chosen.strip():
        raise LlmError("reply has no code block (the fenced block is empty)", kind="no_code")
    return chosen.rstrip("\n") + "\n"
