"""The kernel DSL: syntax (parse, print), KernelIR, verifier, interpreter, checker.

    program = parse(text, path)              # text -> untyped KernelIR (never executed)
    typed = verify(program, soc, shapes=...) # types, stage rules, dtypes, launch, UB budget
    print_program(program)                   # canonical text: a fixed point of parse∘print
    run(typed, inputs, soc)                  # numpy interpreter over every core and tile
    check_interpreter(dsl, ref)              # against the PyTorch reference -> Verdict

Module map: errors (spans, DslError, format_diagnostic), ir (nodes and types), ops (the
operations table), parser, printer, host (SoC constants, host builtins, evaluate_host),
verifier, buffers (the UB plan), interp, check, docs (docs/dsl-reference.md).
"""
from .buffers import UbBuffer, UbPlan, ub_buffers
from .errors import DslError, Span, format_diagnostic
from .host import evaluate_host
from .ir import DType, Program
from .ops import OPS
from .parser import parse, parse_file
from .printer import print_program
from .verifier import verify

__all__ = ["parse", "parse_file", "print_program", "verify", "DslError", "Program", "Span", "DType", "OPS",
           "format_diagnostic", "evaluate_host", "ub_buffers", "UbPlan", "UbBuffer"]
