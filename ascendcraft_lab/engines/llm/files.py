"""The file-set reply format of the LLM lowering engine: how project files travel in a chat.

Both directions use one format. The prompt shows the project this way, and the model is told
(`REPLY_FORMAT`) to send back every file it changes, complete, the same way:

    // file: kernel/gelu_kernel.cpp
    ```cpp
    ...the whole file...
    ```

`parse_files` reads a reply leniently where models vary (the marker may be written `# file:`,
`### file:`, `**file:**`, or as the first line inside the fence; any fence language) and
strictly where it matters: only paths the project may hold are accepted (never absolute, never
`..`), each at most once, so a reply can never write outside the session folder. Files a reply
leaves out stay as they were. Reply text is data: it is parsed here and checked and compiled
later, never executed.
"""
from __future__ import annotations

import re
from typing import Iterable, Mapping

REPLY_FORMAT = """\
Send every file you change, complete (never a diff, never an excerpt), each as a line
`// file: <path>` followed by one fenced block holding the whole file:

// file: kernel/example_kernel.cpp
```cpp
... the complete file ...
```

Use the paths exactly as shown in the project. Files you leave out stay as they are. Text
outside the blocks is ignored."""

_OPEN = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`\n]*?)[ \t]*$")
_MARKER = re.compile(
    r"^\s*(?:(?://+|#+|<!--|\*\*|[-*>])\s*)*(?:\*\*)?file\s*(?:\*\*)?\s*:\s*(?:\*\*)?\s*`?(?P<path>[^`*\s]+?)`?\s*(?:\*\*)?\s*(?:-->)?\s*$",
    re.IGNORECASE)
_LANGS = {".cpp": "cpp", ".cc": "cpp", ".h": "cpp", ".hpp": "cpp", ".py": "python", ".cmake": "cmake",
          ".txt": "text", ".json": "json"}


class ReplyFormatError(ValueError):
    """A reply that is not in the file-set format; the message is feedback for the model."""


def language(path: str) -> str:
    """The fence language for a path (`cpp`, `cmake`, ...)."""
    if path.rsplit("/", 1)[-1] == "CMakeLists.txt":
        return "cmake"
    dot = path.rfind(".")
    return _LANGS.get(path[dot:].lower(), "text") if dot >= 0 else "text"


def format_files(files: Mapping[str, str]) -> str:
    """Files in the reply format, in path order (a fence longer than any backtick run inside)."""
    out = []
    for path in sorted(files):
        text = files[path].rstrip("\n")
        runs = [len(m) for m in re.findall(r"`{3,}", text)]
        fence = "`" * max(3, max(runs, default=0) + 1)
        out.append(f"// file: {path}\n{fence}{language(path)}\n{text}\n{fence}")
    return "\n\n".join(out)


def parse_files(reply: str, allowed: Iterable[str]) -> dict[str, str]:
    """`{path: text}` from a reply; `ReplyFormatError` when it holds no usable file block.

    `allowed` is every path the project may hold. Every fenced block must be named by a
    marker (the line before it, or its own first line); a block with none is an error, as is
    a path outside `allowed` or a path sent twice.
    """
    allowed = set(allowed)
    lines = reply.splitlines()
    files: dict[str, str] = {}
    last_text = ""          # the last non-blank line outside a block, where a marker would be
    i, block_no = 0, 0
    while i < len(lines):
        m = _OPEN.match(lines[i])
        if not m:
            if lines[i].strip():
                last_text = lines[i]
            i += 1
            continue
        fence = m.group("fence")
        close = re.compile(r"^ {0,3}" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}[ \t]*$")
        end = next((j for j in range(i + 1, len(lines)) if close.match(lines[j])), None)
        block_no += 1
        if end is None:
            raise ReplyFormatError(f"block {block_no} opens a ``` fence that is never closed: the reply may be "
                                   "cut off; send fewer files (only those you change)")
        body = lines[i + 1:end]
        inner = _MARKER.match(body[0]) if body else None
        outer = _MARKER.match(last_text) if last_text else None
        if inner:
            path, body = inner.group("path"), body[1:]
        elif outer:
            path = outer.group("path")
        else:
            raise ReplyFormatError(f"block {block_no} has no `// file: <path>` line before it: "
                                   "name every file you send")
        path = _checked_path(path, allowed)
        if path in files:
            raise ReplyFormatError(f"`{path}` is sent twice: send each file once, complete")
        files[path] = "\n".join(body).rstrip("\n") + "\n"
        last_text = ""
        i = end + 1
    if not files:
        raise ReplyFormatError("the reply has no file block: send each file you change as `// file: <path>` "
                               "followed by a fenced block holding the whole file")
    return files


def _checked_path(path: str, allowed: set[str]) -> str:
    path = path.strip().strip("'\"")
    while path.startswith("./"):
        path = path[2:]
    if path.startswith(("/", "~")) or "\\" in path or ".." in path.split("/") or re.match(r"^[A-Za-z]:", path):
        raise ReplyFormatError(f"`{path}` is not a project path: use the relative paths shown in the project")
    if path not in allowed:
        raise ReplyFormatError(f"`{path}` is not a file of this project; its files are: "
                               + ", ".join(f"`{p}`" for p in sorted(allowed)))
    return path


__all__ = ["REPLY_FORMAT", "ReplyFormatError", "format_files", "language", "parse_files"]
