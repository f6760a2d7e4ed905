"""Pass 4, align: 32-byte alignment and tails, as a rewrite of what compute produced.

DataCopy moves whole 32-byte blocks: a length that is not a multiple of 32 bytes is silently
rounded down by the hardware. Align rewrites the kernel's holes (`kernel.py`): every GM copy
becomes DataCopyPad (a SoC without it fails the pass with one finding), every buffer size is
rounded up to 32 bytes, and in kernels that compare, vector counts and buffers are padded to
whole 256-byte repeats (Compare writes whole repeats) with the padding of loaded tiles zeroed.
The checker holds any engine's output to DataCopy lengths that are provably 32-byte multiples.
"""
from __future__ import annotations

import re

from . import cpp
from .bundle import Bundle
from .cexpr import paren
from .findings import Finding, finding, kernel_text
from .kernel import BufferBytes, CompareCount, GmCopy, InputDequeue, KernelSource, MaskWiden, VectorCount
from .plan import Plan
from .project import Project
from .spec import LoweringError, PassSpec

SPEC = PassSpec(
    4, "align", "32-byte alignment and tails: DataCopyPad where a length is not provably aligned, aligned buffer sizes",
    "DataCopy moves whole 32-byte blocks: a length that is not a multiple of 32 bytes is silently rounded "
    "down by the hardware. This pass proves each copy aligned or replaces it with DataCopyPad (or a padded "
    "copy on chips without it), and rounds every buffer size up to 32 bytes.",
    rules=("no DataCopy whose byte count is not provably a multiple of 32",))

CMP_ALIGN_BYTES = 256       # Compare writes whole 256-byte repeats


def write(project: Project) -> None:
    source, facts, soc = project.kernel, project.facts, project.plan.soc
    compare = facts.compare

    def copy(h: GmCopy, _source) -> str:
        if not soc.has_datacopypad:
            raise LoweringError(f"{soc.name} has no DataCopyPad and `{h.count}` elements is not provably a "
                                "multiple of 32 bytes; make the tile and the row lengths multiples of "
                                f"{32 // h.dtype.nbytes} elements")
        bytes_ = f"static_cast<uint32_t>({paren(h.count)} * sizeof({h.dtype.cpp}))"
        if h.direction == "in":
            return "\n".join([
                f"// {h.count} elements may not fill whole 32-byte blocks: DataCopyPad pads the last block with 0",
                f"DataCopyExtParams {h.local}Copy{{1, {bytes_}, 0, 0, 0}};",
                f"DataCopyPadExtParams<{h.dtype.cpp}> {h.local}Pad{{true, 0, "
                f"static_cast<uint8_t>(AlignUp({h.count}, {32 // h.dtype.nbytes}) - {paren(h.count)}), 0}};",
                f"DataCopyPad({h.local}, {h.gm}, {h.local}Copy, {h.local}Pad);"])
        return "\n".join([
            f"// DataCopyPad writes exactly {h.count} elements (DataCopy would round down to 32 bytes)",
            f"DataCopyExtParams {h.local}Copy{{1, {bytes_}, 0, 0, 0}};",
            f"DataCopyPad({h.gm}, {h.local}, {h.local}Copy);"])

    unit = CMP_ALIGN_BYTES if compare else 32
    source.rules[GmCopy] = copy
    source.rules[BufferBytes] = lambda h, s: f"AlignUp({paren(h.capacity)} * {h.elem_size}, {unit})"
    source.rules[CompareCount] = lambda h, s: f"AlignUp({h.count}, CMP_ALIGN)"
    if compare:
        source.rules[VectorCount] = lambda h, s: f"AlignUp({h.count}, CMP_ALIGN)"
        source.rules[InputDequeue] = lambda h, s: (f"LocalTensor<{h.dtype.cpp}> {h.name} = {h.queue}.DeQue<{h.dtype.cpp}>();\n"
                                                   f"ZeroTail({h.name}, {h.count});")
    source.rules[MaskWiden] = widen_padded
    source.part("helpers", "align").line(
        "__aicore__ inline static int64_t AlignUp(int64_t a, int64_t m) { return (a + m - 1) / m * m; }")
    if compare:
        source.part("constants", "compare").line(
            f"constexpr int64_t CMP_ALIGN = {CMP_ALIGN_BYTES // 4};  // Compare works on whole 256-byte repeats")
        _zero_tail(source, facts)


def widen_padded(h: MaskWiden, source: KernelSource) -> str:
    # the mask's copy-in padded its last 32-byte block with zeros; zero the rest of the repeat
    return "\n".join([
        f"Cast({h.wide}, {h.mask}, RoundMode::CAST_NONE, AlignUp({h.count}, 32));",
        f"if ({h.compare_count} > AlignUp({h.count}, 32)) {{",
        f"    Duplicate({h.wide}[AlignUp({h.count}, 32)], 0.0f, static_cast<int32_t>({h.compare_count} - AlignUp({h.count}, 32)));",
        "}"])


def _zero_tail(source: KernelSource, facts) -> None:
    em = source.part("helpers", "tail")
    em.line("", dsl=0)
    em.line("// Compare reads whole 256-byte repeats: zero a loaded tile from its 32-byte end to the repeat end.")
    dtypes = sorted({b.dtype for b in facts.ub.buffers if b.role == "VECIN"}, key=lambda d: d.value)
    for dt in dtypes:
        with em.block(f"__aicore__ inline void ZeroTail(const LocalTensor<{dt.cpp}> &t, int64_t n)"):
            em.line(f"const int64_t filled = AlignUp(n, {32 // dt.nbytes});")
            em.line("const int64_t wanted = AlignUp(n, CMP_ALIGN);")
            with em.block("if (wanted > filled)"):
                em.line(f"Duplicate(t[filled], static_cast<{dt.cpp}>(0), static_cast<int32_t>(wanted - filled));")
                em.line("PipeBarrier<PIPE_V>();")


def check(plan: Plan, bundle: Bundle, options) -> list[Finding]:
    text, found = kernel_text(SPEC, plan, bundle)
    if text is None:
        return found
    decls = cpp.declarations(text)
    aligned = plan.aligned_fields()          # tiling field -> multiple of this many elements
    for call in cpp.calls(text, {"DataCopy"}):
        if len(call.args) != 3 or call.args[2].lstrip().startswith("{") or _is_params(call.args[2], decls):
            continue  # the DataCopyParams form counts whole 32-byte blocks: aligned by construction
        local = next((a.split("[")[0].strip() for a in call.args[:2] if decls.get(a.split("[")[0].strip(), "").startswith("LocalTensor")), None)
        size = cpp.element_size(decls.get(local, "")) if local else None
        if size is None or not _provably_aligned(call.args[2], size, aligned):
            found.append(finding(SPEC, "unaligned-datacopy",
                                 f"DataCopy of `{call.args[2]}` elements is not provably a multiple of 32 bytes",
                                 bundle, plan.kernel_path, call.line,
                                 help="use DataCopyPad (Atlas A2/A3) or copy an aligned length and handle the tail"))
    return found


def _is_params(arg: str, decls: dict[str, str]) -> bool:
    return arg.strip() in decls or bool(re.match(r"\w*[Pp]arams\w*$", arg.strip()))


def _provably_aligned(expr: str, elem_size: int, aligned: dict[str, int]) -> bool:
    """True when `expr` is a product one of whose factors is a literal or tiling field aligned to 32 B."""
    need = 32 // elem_size if 32 % elem_size == 0 else 32
    factors = [f.strip() for f in cpp.strip_comments(expr).split("*")]
    for f in factors:
        f = re.sub(r"^(?:tiling\.|this->)", "", f.strip("() "))
        if f.isdigit() and int(f) % need == 0:
            return True
        if f in aligned and aligned[f] % need == 0:
            return True
    return False
