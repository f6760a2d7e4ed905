"""The CPU emulator backend: AscendC headers for g++, the runner and the `ascendcraft emulate` CLI."""
from .runner import Arg, CompileResult, Report, compile_sources, pack_tiling, run_kernel

__all__ = ["Arg", "CompileResult", "Report", "compile_sources", "pack_tiling", "run_kernel"]
