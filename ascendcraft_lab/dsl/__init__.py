"""The kernel DSL: syntax (parse, print), KernelIR, verifier, interpreter.

    program = parse(text, path)              # text -> untyped KernelIR (never executed)
    typed = verify(program, soc, shapes=...) # types, stage rules, dtypes, launch, UB budget
    print_program(program)                   # canonical text: a fixed point of parse∘print
    run(typed, inputs, soc)                  # numpy interpreter over every core and tile (interp.py)

(Checking against the PyTorch reference, `check_interpreter`, is `reference/bind.py`'s.)

Module map: errors (spans, DslError, format_diagnostic), dtypes (every fact about a dtype), ir
(nodes and types), ops (the operations table, the tile kinds each category is lowered for, the
scalar evaluator), typerules (each category's typing rule), parser, printer, host (SoC constants,
host builtins, evaluate_host), verifier, tiles (a tile's UB layout, broadcasting), registers (the
scratch registers of a statement), buffers (the UB plan), cube (the cube's operand layouts),
generic (dtype-generic kernels), interp (with each category's numpy rule), docs
(docs/dsl-reference.md).
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
