"""A violated pass constraint, reported like a compile error with its C++ and DSL lines.

The rule engine must never produce a `Finding`; the LLM engine gets them back as feedback.
Each pass module's `check` returns them for the regions that pass owns.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..dsl.errors import Span, format_diagnostic
from .bundle import Bundle


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
        where = f"{self.path}:{self.line}" if self.line else self.path
        return format_diagnostic(dsl_path, dsl_source, Span.point(self.dsl_line) if self.dsl_line else None,
                                 f"[{self.pass_name}/{self.kind}] {self.message}" + (f" (at {where})" if where else ""),
                                 self.help or None, severity=self.severity)

    def to_json(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def finding(spec, kind: str, message: str, bundle: Bundle, path: str = "", line: int = 0, help: str = "",
            dsl_line: int | None = None, severity: str = "error") -> Finding:
    """A finding of pass `spec` at C++ `path:line`, with the DSL line the bundle's source map gives."""
    if dsl_line is None:
        dsl_line = bundle.dsl_line(path, line) if path and line else 0
    return Finding(spec.name, kind, message, path, line, dsl_line, help, severity)


def kernel_text(spec, plan, bundle: Bundle) -> tuple[str | None, list[Finding]]:
    """The kernel source of the bundle, or a missing-file finding."""
    text = bundle.files.get(plan.kernel_path)
    if text is None:
        return None, [finding(spec, "missing-file", f"the kernel source {plan.kernel_path} is missing", bundle)]
    return text, []
