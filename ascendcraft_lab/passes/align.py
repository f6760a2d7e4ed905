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

from . import cpp, cube as cube_lowering
from .bundle import Bundle
from .cexpr import paren
from .findings import Finding, finding, kernel_text
from .compute import plain_copy, row_gap, rows_copy
from .kernel import BufferBytes, CompareCount, ExactWrite, GmCopy, InputDequeue, KernelSource, MaskWiden, VectorCount
from .plan import Plan
from .project import Project
from .spec import LoweringError, PassSpec

SPEC = PassSpec(
    4, "align", "32-byte alignment and tails: DataCopyPad where a length is not provably aligned, aligned buffer sizes",
    "DataCopy moves whole 32-byte blocks: a length that is not a multiple of 32 bytes is silently rounded "
    "down by the hardware. This pass proves each copy aligned or replaces it with DataCopyPad (or a padded "
    "copy on chips without it), and rounds every buffer size up to 32 bytes.",
    rules=("no DataCopy whose byte count is not provably a multiple of 32",))

def write(project: Project) -> None:
    source, facts, soc = project.kernel, project.facts, project.plan.soc
    compare = facts.compare

    shared = _shared_copy_params(source, facts.reserved)

    aligned = project.plan.aligned_fields()

    def copy(h: GmCopy, _source) -> str:
        if not soc.has_datacopypad:
            return _copy_without_pad(h, soc, aligned)
        params, pad, declare = shared.get(id(h), (f"{h.local}Copy", f"{h.local}Pad", True))
        if h.rows:
            return _rows_copy_pad(h, params, pad, declare)
        lines = []
        if declare:
            bytes_ = f"static_cast<uint32_t>({paren(h.count)} * sizeof({h.dtype.cpp}))"
            if h.direction == "in":
                lines += [f"// {h.count} elements may not fill whole 32-byte blocks: "
                          "DataCopyPad pads the last block with 0",
                          f"DataCopyExtParams {params}{{1, {bytes_}, 0, 0, 0}};",
                          f"DataCopyPadExtParams<{h.dtype.cpp}> {pad}{{true, 0, "
                          f"static_cast<uint8_t>(AlignUp({h.count}, {_per_block(h.dtype)}) - {paren(h.count)}), 0}};"]
            else:
                lines += [f"// DataCopyPad writes exactly {h.count} elements (DataCopy would round down to 32 bytes)",
                          f"DataCopyExtParams {params}{{1, {bytes_}, 0, 0, 0}};"]
        if h.direction == "in":
            lines.append(f"DataCopyPad({h.local}, {h.gm}, {params}, {pad});")
        else:
            lines.append(f"DataCopyPad({h.gm}, {h.local}, {params});")
        return "\n".join(lines)

    unit = "REPEAT_BYTES" if compare else "BLOCK_BYTES"
    source.rules[GmCopy] = copy
    def buffer_bytes(h, s):
        # in a kernel that compares every vector count is rounded up to CMP_ALIGN elements: an
        # int64 tile needs whole 512-byte units to hold them (dsl/buffers.py: UbPlan.unit)
        wide = compare and h.elem_size in ("sizeof(int64_t)", "sizeof(uint64_t)")
        return f"AlignUp({paren(h.capacity)} * {h.elem_size}, {'2 * REPEAT_BYTES' if wide else unit})"
    source.rules[BufferBytes] = buffer_bytes
    source.rules[CompareCount] = lambda h, s: f"AlignUp({h.count}, CMP_ALIGN)"
    if compare:
        source.rules[ExactWrite] = lambda h, s: f"ZeroAfter({h.tile}, {h.count});"
        source.rules[VectorCount] = lambda h, s: f"AlignUp({h.count}, CMP_ALIGN)"
        source.rules[InputDequeue] = lambda h, s: f"{h.text()}\nZeroTail({h.name}, {h.count});"
    source.rules[MaskWiden] = widen_padded
    # the cube: a short last tile takes a partial fractal (Nd2Nz zero-fills it, Mmad ignores the padding)
    source.rules[cube_lowering.FractalCount] = cube_lowering.tail_count
    source.rules[cube_lowering.FractalSpan] = cube_lowering.tail_span
    source.uses.add("AlignUp")
    if compare:
        source.part("constants", "compare").line(
            "constexpr int64_t CMP_ALIGN = REPEAT_BYTES / sizeof(float);  // Compare works on whole 256-byte repeats")
        _zero_tail(source, facts)


def _rows_copy_pad(h: GmCopy, params: str, pad: str, declare: bool) -> str:
    """A tile of rows in one DataCopyPad: `rows` blocks of `cols` elements, a GM gap (bytes)
    between them, each block padded to whole 32-byte blocks in UB, so every row starts on one."""
    size = f"sizeof({h.dtype.cpp})"
    gap = row_gap(h)
    gap_bytes = "0" if gap == "0" else f"static_cast<uint32_t>({gap} * {size})"
    lines = []
    if declare:
        apart = "back to back" if gap == "0" else f"{h.gm_stride} apart"
        lines.append(f"// {h.rows} rows of {h.cols} elements, {apart} in GM, each padded to whole 32-byte blocks in UB "
                     "(the row pitch): one strided DataCopyPad")
        # DataCopyExtParams{blockCount, blockLen (bytes), srcStride, dstStride, rsv}: the GM gap is in bytes,
        # the UB gap in 32-byte blocks (0: the pitch is exactly the padded row)
        strides = f"{gap_bytes}, 0" if h.direction == "in" else f"0, {gap_bytes}"
        lines.append(f"DataCopyExtParams {params}{{static_cast<uint16_t>({h.rows}), "
                     f"static_cast<uint32_t>({paren(h.cols)} * {size}), {strides}, 0}};")
        if h.direction == "in":
            lines.append(f"DataCopyPadExtParams<{h.dtype.cpp}> {pad}{{true, 0, "
                         f"static_cast<uint8_t>({h.pitch} - {paren(h.cols)}), 0}};")
    if h.direction == "in":
        body = lambda gm, local: f"DataCopyPad({local}, {gm}, {params}, {pad});"  # noqa: E731
    else:
        body = lambda gm, local: f"DataCopyPad({gm}, {local}, {params});"  # noqa: E731
    return "\n".join(lines + [rows_copy(h, body)])


def _copy_without_pad(h: GmCopy, soc, aligned: dict) -> str:
    """A SoC without DataCopyPad (Ascend310P): DataCopy, where every length and stride is provably whole
    32-byte blocks; anything else cannot be copied exactly."""
    size = h.dtype.nbytes
    lengths = [h.count] + ([h.gm_stride] if h.rows else [])
    if not all(_provably_aligned(x, size, aligned) for x in lengths):
        unaligned = next(x for x in lengths if not _provably_aligned(x, size, aligned))
        raise LoweringError(f"{soc.name} has no DataCopyPad and `{unaligned}` "
                            "elements is not provably a multiple of 32 bytes; make the tile and the row lengths "
                            f"multiples of {32 // size} elements "
                            f"(e.g. align_up(..., {32 // size}) in the host function)")
    if not h.rows:
        return plain_copy(h, None)
    return "// every length and stride is whole 32-byte blocks: DataCopy's block form\n" + plain_copy(h, None)


def _per_block(dtype) -> str:
    """Elements of one 32-byte block, as C++."""
    return "BLOCK_BYTES" if dtype.nbytes == 1 else f"BLOCK_BYTES / sizeof({dtype.cpp})"


def _shared_copy_params(source: KernelSource, reserved: frozenset) -> dict[int, tuple[str, str, bool]]:
    """Copies of one method that move the same count of the same dtype share their DataCopyPad
    parameters: (params name, pad name, declare here) for each such hole, the first declaring."""
    shared: dict[int, tuple[str, str, bool]] = {}
    for method in source.methods:
        groups: dict[tuple, list[GmCopy]] = {}
        for h in source.holes_in(method.body.text()):
            if isinstance(h, GmCopy):
                groups.setdefault((h.direction, h.dtype, h.count, h.rows, h.gm_stride, h.pitch), []).append(h)
        many = {key: hs for key, hs in groups.items() if len(hs) > 1}
        for (direction, dtype, count, rows, _, _), holes in many.items():
            m = re.fullmatch(r"([A-Za-z_]\w*?)(?:Len|Elems)", rows or count)
            stem = m.group(1) if m else "tile"
            if sum(1 for d, t, c, *_ in many if c == count) > 1:          # several dtypes or directions of one count
                stem += direction.capitalize() + dtype.value.upper()
            params, pad = f"{stem}Copy", f"{stem}Pad"
            while params in reserved or pad in reserved:
                params, pad = params + "_", pad + "_"
            for i, h in enumerate(holes):
                shared[id(h)] = (params, pad, i == 0)
    return shared


def widen_padded(h: MaskWiden, source: KernelSource) -> str:
    # the mask's copy-in padded its last 32-byte block (32 bytes of mask) with zeros; zero the rest of the repeat
    filled = f"AlignUp({h.count}, BLOCK_BYTES)"
    return "\n".join([
        f"Cast({h.wide}, {h.mask}, RoundMode::CAST_NONE, {filled});",
        f"if ({h.compare_count} > {filled}) {{",
        f"    Duplicate({h.wide}[{filled}], 0.0f, static_cast<int32_t>({h.compare_count} - {filled}));",
        "}"])


def _zero_after(source: KernelSource) -> None:
    """The helper of ExactWrite holes: zero a computed tile from its last element to the repeat end."""
    if not any(isinstance(h, ExactWrite) for h in source.holes):
        return
    em = source.part("helpers", "tail")
    em.line("", dsl=0)
    em.line("// Compare and the padded counts read whole 256-byte repeats: zero a tile an instruction wrote `n`")
    em.line("// elements of, from there to the repeat end (the partial block by a masked Duplicate).")
    with em.block("template <typename T> __aicore__ inline void ZeroAfter(const LocalTensor<T> &t, int64_t n)"):
        em.line("const int64_t block = BLOCK_BYTES / sizeof(T);")
        with em.block("if (n % block != 0)"):
            em.line("const uint64_t lanes[2] = {((1ull << block) - 1) & ~((1ull << (n % block)) - 1), 0};")
            em.line("Duplicate(t[n / block * block], static_cast<T>(0), lanes, 1, 1, 8);")
        em.line("const int64_t filled = AlignUp(n, block);")
        em.line("const int64_t wanted = AlignUp(n, CMP_ALIGN);")
        with em.block("if (wanted > filled)"):
            em.line("Duplicate(t[filled], static_cast<T>(0), static_cast<int32_t>(wanted - filled));")
        em.line("PipeBarrier<PIPE_V>();")


def _zero_tail(source: KernelSource, facts) -> None:
    _zero_after(source)
    em = source.part("helpers", "tail")
    em.line("", dsl=0)
    em.line("// Compare reads whole 256-byte repeats: zero a loaded tile from its 32-byte end to the repeat end.")
    dtypes = sorted({b.dtype for b in facts.ub.buffers if b.role == "VECIN"}, key=lambda d: d.value)
    for dt in dtypes:
        with em.block(f"__aicore__ inline void ZeroTail(const LocalTensor<{dt.cpp}> &t, int64_t n)"):
            em.line(f"const int64_t filled = AlignUp(n, {_per_block(dt)});")
            em.line("const int64_t wanted = AlignUp(n, CMP_ALIGN);")
            with em.block("if (wanted > filled)"):
                if dt.nbytes == 1:
                    # Duplicate takes no 8-bit type: zero the (even, 32-byte aligned) tail as 16-bit lanes.
                    em.line("Duplicate(t[filled].ReinterpretCast<uint16_t>(), static_cast<uint16_t>(0), "
                            "static_cast<int32_t>((wanted - filled) / 2));")
                elif dt.nbytes == 8:
                    # nor a 64-bit one: zero the tail as twice as many 32-bit lanes (all-zero bits either way).
                    em.line("Duplicate(t[filled].ReinterpretCast<uint32_t>(), static_cast<uint32_t>(0), "
                            "static_cast<int32_t>((wanted - filled) * 2));")
                else:
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
        local = next((a.split("[")[0].strip() for a in call.args[:2]
                      if decls.get(a.split("[")[0].strip(), "").startswith("LocalTensor")), None)
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
