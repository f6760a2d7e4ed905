"""Constraint checkers: what each pass promises, verified on any bundle (rule- or LLM-made).

A violated constraint is a `Finding` reported like a compile error, with the C++ line and
the DSL line it comes from. The rule engine must never produce one; the LLM engine gets
them back as feedback.

- host:    the tiling struct has every Launch field; the launch code starts the kernel.
- init:    every DSL tile has a queue or TBuf; the InitBuffer total fits the SoC's UB.
- compute: per queue, every AllocTensor is freed and every EnQue is matched by a DeQue.
- align:   no DataCopy whose byte count is not provably a multiple of 32.
Each checker looks only at the region its pass owns, so a broken region is reported by the
pass that owns it.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from ..dsl.errors import format_diagnostic
from . import cpp
from .bundle import Bundle
from .pipeline import PassSpec


@dataclass(frozen=True)
class Finding:
    pass_name: str
    kind: str
    message: str
    path: str = ""
    line: int = 0          # C++ line, 1-based (0: the whole file)
    dsl_line: int = 0
    help: str = ""
    severity: str = "error"

    def render(self, dsl_path: str | None = None, dsl_source: str | None = None) -> str:
        from ..dsl.errors import Span
        where = f"{self.path}:{self.line}" if self.line else self.path
        text = format_diagnostic(dsl_path, dsl_source, Span.point(self.dsl_line) if self.dsl_line else None,
                                 f"[{self.pass_name}/{self.kind}] {self.message}" + (f" (at {where})" if where else ""),
                                 self.help or None, severity=self.severity)
        return text

    def to_json(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _finding(spec, kind, message, bundle: Bundle, path="", line=0, help=""):
    return Finding(spec.name, kind, message, path, line, bundle.dsl_line(path, line) if path and line else 0, help)


def check_host(spec: PassSpec, plan, bundle: Bundle, options) -> list[Finding]:
    found = []
    header = bundle.files.get(plan.tiling_path)
    if header is None:
        return [_finding(spec, "missing-file", f"the tiling header {plan.tiling_path} is missing", bundle)]
    struct = re.search(r"struct\s+" + re.escape(plan.tiling_struct) + r"\s*\{(.*?)\};", cpp.strip_comments(header), re.S)
    if not struct:
        return [_finding(spec, "tiling-struct", f"struct {plan.tiling_struct} not found in {plan.tiling_path}", bundle,
                         plan.tiling_path, help="declare the tiling struct the kernel reads with GET_TILING_DATA")]
    declared = set(re.findall(r"\b(\w+)\s*(?:=[^;]*)?;", struct.group(1)))
    for f in plan.tiling_fields:
        if f.name not in declared:
            found.append(_finding(spec, "tiling-field", f"tiling field `{f.name}` is not in struct {plan.tiling_struct}",
                                  bundle, plan.tiling_path, help=f"add `{f.ctype} {f.name};` ({f.doc})"))
    host = bundle.files.get(plan.host_path, "")
    if not cpp.calls(host, {"ACLRT_LAUNCH_KERNEL"}) and "<<<" not in host:
        found.append(_finding(spec, "launch", f"{plan.host_path} never launches the kernel", bundle, plan.host_path,
                              help=f"launch with ACLRT_LAUNCH_KERNEL({plan.entry})(blockDim, stream, ...)"))
    return found


def _kernel(spec, plan, bundle):
    text = bundle.files.get(plan.kernel_path)
    if text is None:
        return None, [_finding(spec, "missing-file", f"the kernel source {plan.kernel_path} is missing", bundle)]
    return text, []


def check_init(spec: PassSpec, plan, bundle: Bundle, options) -> list[Finding]:
    text, found = _kernel(spec, plan, bundle)
    if text is None:
        return found
    decls = cpp.declarations(text)
    for buf in plan.buffers:
        if buf.member not in decls:
            found.append(Finding(spec.name, "missing-buffer",
                                 f"tile `{buf.name}` has no {buf.kind} {'TBuf' if buf.kind == 'VECCALC' else 'queue'} `{buf.member}`",
                                 plan.kernel_path, 0, buf.dsl_line,
                                 help=f"declare `{buf.declaration}` and give it UB with pipe.InitBuffer"))
    calls = [c for c in cpp.calls(text, {"InitBuffer"}) if len(c.args) in (2, 3)]
    consts = cpp.constants(text)

    referenced = {w for c in calls for a in c.args[1:] for w in re.findall(r"[A-Za-z_]\w*", a)}

    def total_for(values):
        names = {**consts, **values}
        names.update(cpp.member_values(text, names, referenced - set(names)))
        total, parts = 0, []
        for call in calls:
            num_expr, bytes_expr = ("1", call.args[1]) if len(call.args) == 2 else call.args[1:]
            num = cpp.evaluate(num_expr, names)
            size = -(-cpp.evaluate(bytes_expr, names) // 32) * 32
            total += num * size
            parts.append((call, num, size))
        return total, parts

    try:
        total, parts = total_for(plan.tiling_values(options))
    except cpp.EvalError as exc:
        call = next((c for c in calls), None)
        found.append(_finding(spec, "ub-unknown", f"cannot size the InitBuffer calls: {exc}", bundle,
                              plan.kernel_path, call.line if call else 0,
                              help="size buffers from tiling fields, constants and sizeof"))
        return found
    budget = plan.soc.ub_usable
    if total > budget:
        severity = "error"
        note = ""
        if not getattr(options, "shapes", None):
            # No reference shapes: the sizes were taken at large sample dims. When smaller dims
            # fit, the budget depends on the shape, which the verifier checks per shape.
            small, _ = total_for(plan.tiling_values(options, dim_size=256))
            if small <= budget:
                severity, note = "warning", " at sample dims of 65536 (it fits smaller shapes; the verifier checks real ones)"
        worst = max(parts, key=lambda p: p[1] * p[2])
        detail = ", ".join(f"{c.args[0]} {n} x {s} B" for c, n, s in parts)
        f = _finding(spec, "ub-overflow",
                     f"InitBuffer total {total} B exceeds the {budget} B of UB usable on {plan.soc.name}{note} ({detail})",
                     bundle, plan.kernel_path, worst[0].line,
                     help="lower the tile size in the host tiling function or use fewer buffers")
        found.append(Finding(**{**f.to_json(), "severity": severity}))
    return found


def check_compute(spec: PassSpec, plan, bundle: Bundle, options) -> list[Finding]:
    text, found = _kernel(spec, plan, bundle)
    if text is None:
        return found
    decls = cpp.declarations(text)
    queues = {name for name, t in decls.items() if t.startswith(("TQue<", "TQueBind<"))}
    ops = cpp.calls(text, {"AllocTensor", "FreeTensor", "EnQue", "DeQue"})
    count = Counter((c.receiver, c.name) for c in ops)
    first = {}
    for c in ops:
        first.setdefault((c.receiver, c.name), c.line)
    for q in sorted(queues):
        pairs = (("AllocTensor", "FreeTensor", "tensor allocated from `{q}` is never freed", "free it with {q}.FreeTensor(t) once its last reader is done"),
                 ("EnQue", "DeQue", "`{q}` is enqueued {a} time(s) but dequeued {b} time(s)", "every EnQue needs the DeQue of the stage that consumes it"))
        for a_name, b_name, msg, help in pairs:
            a, b = count[(q, a_name)], count[(q, b_name)]
            if a != b:
                line = first.get((q, a_name)) or first.get((q, b_name)) or 0
                found.append(_finding(spec, "queue-balance", msg.format(q=q, a=a, b=b) + f" ({a_name} x{a}, {b_name} x{b})",
                                      bundle, plan.kernel_path, line, help=help.format(q=q)))
    return found


def check_align(spec: PassSpec, plan, bundle: Bundle, options) -> list[Finding]:
    text, found = _kernel(spec, plan, bundle)
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
            found.append(_finding(spec, "unaligned-datacopy",
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


CHECKERS = {"host": check_host, "init": check_init, "compute": check_compute, "align": check_align}


def check_step(spec: PassSpec, program, bundle: Bundle, options) -> list[Finding]:
    """Run on `bundle` the checkers of `spec` and of every pass before it: a later pass
    (an LLM rewriting the whole text) must not break what an earlier one established."""
    from .pipeline import PIPELINE
    from .plan import plan_for
    plan = plan_for(program, options)
    return [f for p in PIPELINE[:spec.number] for f in CHECKERS[p.name](p, plan, bundle, options)]
