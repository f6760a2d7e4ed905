"""What the emulator does to AscendC sources before g++ sees them, and what it reads out of them.

- ``<<<blockDim, l2ctrl, stream>>>`` launches (bisheng syntax, not C++) become calls of
  ``acemu::chevron(...)`` that run the kernel on the emulator, also inside macros that paste the
  kernel's name (``kernel_##T<<<...>>>``); the rewritten file starts with a ``#line`` directive,
  so diagnostics and findings keep the original file and lines.
- ``kernel_entries`` finds the ``extern "C" __global__ __aicore__`` entries and their parameter
  counts (the harnesses call them with that many GM pointers).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _split_top_level(text: str, angles: bool = False) -> list[str]:
    """`a, f(b, c), d` -> three parts (commas inside brackets do not split; with `angles`, inside
    <...> neither, for parameter lists with template types; a launch configuration keeps `->`)."""
    opening, closing = ("([{<", ")]}>") if angles else ("([{", ")]}")
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in opening:
            depth += 1
        elif ch in closing:
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    tail = "".join(cur).strip()
    if tail:
        parts.append(tail)
    return parts


def _callee_start(text: str, end: int) -> int:
    """Start of the kernel expression that ends just before `end` (`ns::kernel<float>`)."""
    i = end
    while i > 0 and text[i - 1].isspace():
        i -= 1
    if i > 0 and text[i - 1] == ">":  # template arguments
        depth = 0
        while i > 0:
            i -= 1
            if text[i] == ">":
                depth += 1
            elif text[i] == "<":
                depth -= 1
                if depth == 0:
                    break
    while i > 0 and (text[i - 1].isalnum() or text[i - 1] in "_:#"):  # `#`: a name pasted in a macro (kernel_##T)
        i -= 1
    return i


def rewrite_chevrons(text: str) -> tuple[str, int]:
    """Replace every `kernel<<<config>>>(` with `acemu::chevron("kernel", &kernel, config)(`."""
    out, pos, count = [], 0, 0
    while True:
        i = text.find("<<<", pos)
        if i < 0:
            break
        j = text.find(">>>", i + 3)
        if j < 0:
            break
        start = _callee_start(text, i)
        callee = text[start:i].strip()
        config = _split_top_level(text[i + 3:j])
        if not callee or not _IDENT.match(callee.lstrip(":#")) or not 2 <= len(config) <= 3:
            out.append(text[pos:j + 3])
            pos = j + 3
            continue
        while len(config) < 3:
            config.append("nullptr")
        # Inside a macro that pastes the name (kernel_##T) the name is known where the macro expands.
        name = f"ACEMU_KERNEL_NAME({callee})" if "#" in callee else '"' + callee.replace('"', "") + '"'
        out.append(text[pos:start])
        out.append(f'acemu::chevron({name}, &{callee}, {", ".join(config)})')
        pos = j + 3
        count += 1
    out.append(text[pos:])
    return "".join(out), count


def prepare(src: Path, work: Path) -> tuple[Path, list[str]]:
    """The file g++ should compile for `src`, and the flags that go with it: a rewritten copy in
    `work` when it launches with <<<>>> (its own folder added to the quote-include path)."""
    text = src.read_text(errors="replace")
    if "<<<" not in text:
        return src, []
    new, n = rewrite_chevrons(text)
    if n == 0:
        return src, []
    work.mkdir(parents=True, exist_ok=True)
    out = work / f"{src.stem}.acemu{src.suffix or '.cpp'}"
    escaped = str(src).replace("\\", "\\\\").replace('"', '\\"')
    out.write_text(f'#line 1 "{escaped}"\n' + new)
    return out, ["-iquote", str(src.parent)]


@dataclass(frozen=True)
class Entry:
    name: str
    params: list[str]


_ENTRY = re.compile(r'extern\s+"C"\s+__global__\s+__aicore__\s+void\s+([A-Za-z_]\w*)\s*\(([^)]*)\)', re.S)


def _without_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def kernel_entries(text: str) -> list[Entry]:
    """The `extern "C" __global__ __aicore__ void name(...)` entries, with their parameters."""
    return [Entry(m.group(1), _split_top_level(m.group(2), angles=True))
            for m in _ENTRY.finditer(_without_comments(text))]


_TILING_DEF = re.compile(r"BEGIN_TILING_DATA_DEF\(\s*(\w+)\s*\)")
_REGISTER = re.compile(r"REGISTER_TILING_DATA_CLASS\(\s*(\w+)\s*,\s*(\w+)\s*\)")


def tiling_prelude(header: Path) -> str:
    """What an msopgen build gives the kernel of an op: the host's TilingData classes at global
    scope (GET_TILING_DATA reads the one registered for the op). The host header declares them in
    namespace optiling; the kernel source never includes it."""
    text = _without_comments(header.read_text(errors="replace"))
    ns = "optiling::" if re.search(r"\bnamespace\s+optiling\b", text) else ""
    escaped = str(header).replace("\\", "\\\\").replace('"', '\\"')
    lines = ["// Generated by the emulator: the op's TilingData classes, as msopgen's build gives them to the kernel.",
             "#pragma once", f'#include "{escaped}"']
    if ns:
        lines += [f"using {name} = {ns}{name};" for name in dict.fromkeys(_TILING_DEF.findall(text))]
        if _REGISTER.search(text):
            lines.append(f"using acemu_default_tiling_t = {ns}acemu_default_tiling_t;")
    return "\n".join(lines) + "\n"
