"""PyTorch references: loading one safely (a child process), and binding a DSL kernel to its run.

`load.py` runs a KernelBench-format file in an isolated child (`child.py`) and brings back its
inputs, parameters and outputs; `bind.py` maps them onto a kernel's parameters, compares a
kernel's outputs with the reference's (the verdict every backend reports) and checks a DSL
draft on the numpy interpreter.
"""
from .bind import (RULE_TEXT, RULES, TOLERANCES, OutputCheck, Verdict, bind, case_dtypes, check_interpreter,
                   check_rules, compare, load_program, trim_outputs, variant_for)
from .load import (CaseSet, ReferenceError, ReferenceRun, load_cases, load_reference, load_references, reference_format,
                   run_jobs, sidecars)

__all__ = ["ReferenceError", "ReferenceRun", "CaseSet", "load_reference", "load_references", "load_cases",
           "reference_format", "run_jobs", "sidecars", "bind", "compare", "check_interpreter", "load_program",
           "Verdict", "OutputCheck", "TOLERANCES", "RULES", "RULE_TEXT", "check_rules", "case_dtypes", "variant_for",
           "trim_outputs"]
