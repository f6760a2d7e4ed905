"""Helpers of the export tests: importing a ModelNew with a stub for the compiled op module."""
from __future__ import annotations

import sys
import types


class StubOps(types.ModuleType):
    """Stands in for the compiled extension: every attribute is a function recording its call."""

    def __init__(self, name: str):
        super().__init__(name)
        self.calls: list[tuple[str, tuple]] = []

    def __getattr__(self, op: str):
        if op.startswith("__"):
            raise AttributeError(op)

        def call(*args):
            self.calls.append((op, args))
            return ("result of", op)
        return call


def import_model(source: str, stub_name: str, monkeypatch, filename: str = "ModelNew.py") -> tuple[dict, StubOps]:
    """Execute a ModelNew source with `torch_npu` and the extension module stubbed."""
    stub = StubOps(stub_name)
    monkeypatch.setitem(sys.modules, stub_name, stub)
    monkeypatch.setitem(sys.modules, "torch_npu", types.ModuleType("torch_npu"))
    namespace = {"__name__": "model_new", "__file__": filename}
    exec(compile(source, filename, "exec"), namespace)
    return namespace, stub
