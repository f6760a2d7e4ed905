"""The DSL's dtypes and every fact about each, in one table: bytes, numpy storage, the AscendC C++
spelling, the torch and ATen names, and the rank scalar promotion widens by.

`ir` re-exports `DType`; the passes spell types with `.cpp` / `.aten`, the C++ checkers size them
with `CPP_SIZES`, the drafter with `DSL_NAMES` and `TORCH_NBYTES`, and the verifier promotes with `wider`.
"""
from __future__ import annotations

import enum

import numpy as np


class DType(enum.Enum):
    f16 = "f16"
    bf16 = "bf16"
    f32 = "f32"
    i8 = "i8"
    i16 = "i16"
    i32 = "i32"
    i64 = "i64"
    u8 = "u8"
    bool = "bool"

    @property
    def nbytes(self) -> int:
        return _INFO[self].nbytes

    @property
    def np(self) -> np.dtype:
        """numpy storage dtype. numpy has no bfloat16: bf16 is stored in float32 and rounded."""
        return np.dtype(_INFO[self].numpy)

    @property
    def cpp(self) -> str:
        """AscendC C++ spelling (`half`, `bfloat16_t`, `float`, `int32_t`, ...)."""
        return _INFO[self].cpp

    @property
    def torch_name(self) -> str:
        return _INFO[self].torch

    @property
    def aten(self) -> str:
        """ATen's ScalarType name (`at::kFloat` is `Float`), for the torch binding."""
        return _INFO[self].aten

    @property
    def is_float(self) -> bool:
        return self in FLOATS

    @property
    def is_int(self) -> bool:
        return self in INTS

    @property
    def elems_per_block(self) -> int:
        """Elements in one 32-byte block: the alignment unit of UB addresses and DataCopy."""
        return 32 // self.nbytes

    @staticmethod
    def from_name(name: str) -> "DType | None":
        return _BY_NAME.get(name)

    @staticmethod
    def from_numpy(dt) -> "DType | None":
        return _BY_NUMPY.get(np.dtype(dt))

    @staticmethod
    def from_torch(name: str) -> "DType | None":
        """The dtype of a torch dtype name (`float32`, `bfloat16`, ...)."""
        return _BY_TORCH.get(name)

    def __repr__(self) -> str:
        return f"DType.{self.value}"


class _Info:
    __slots__ = ("nbytes", "numpy", "cpp", "torch", "aten", "rank")

    def __init__(self, nbytes: int, numpy: str, cpp: str, torch: str, aten: str, rank: int):
        self.nbytes, self.numpy, self.cpp, self.torch, self.aten = nbytes, numpy, cpp, torch, aten
        self.rank = rank        # promotion order within the floats, or within bool and the ints


_INFO = {
    #                 bytes numpy      C++           torch       ATen        rank
    DType.f16:  _Info(2, "float16",  "half",       "float16",  "Half",     1),
    DType.bf16: _Info(2, "float32",  "bfloat16_t", "bfloat16", "BFloat16", 1),
    DType.f32:  _Info(4, "float32",  "float",      "float32",  "Float",    2),
    DType.i8:   _Info(1, "int8",     "int8_t",     "int8",     "Char",     1),
    DType.i16:  _Info(2, "int16",    "int16_t",    "int16",    "Short",    2),
    DType.i32:  _Info(4, "int32",    "int32_t",    "int32",    "Int",      3),
    DType.i64:  _Info(8, "int64",    "int64_t",    "int64",    "Long",     4),
    DType.u8:   _Info(1, "uint8",    "uint8_t",    "uint8",    "Byte",     1),
    DType.bool: _Info(1, "bool",     "bool",       "bool",     "Bool",     0),
}
FLOATS = frozenset({DType.f16, DType.bf16, DType.f32})
INTS = frozenset({DType.i8, DType.i16, DType.i32, DType.i64, DType.u8})
_BY_NAME = {d.value: d for d in DType}
_BY_NUMPY = {np.dtype(i.numpy): d for d, i in _INFO.items() if d is not DType.bf16}
_BY_TORCH = {i.torch: d for d, i in _INFO.items()}

# Bytes of every C++ scalar type the generated code names (`sizeof(T)` in the checkers' evaluator):
# the DSL's dtypes, and the unsigned and double types the lowering uses for offsets, masks and
# host arithmetic.
CPP_SIZES: dict[str, int] = {**{i.cpp: i.nbytes for i in _INFO.values()},
                             "double": 8, "uint16_t": 2, "uint32_t": 4, "uint64_t": 8}

# By torch dtype name: the DSL's name and an element's bytes (the drafter reads traced tensors with them).
DSL_NAMES: dict[str, str] = {i.torch: d.value for d, i in _INFO.items()}
TORCH_NBYTES: dict[str, int] = {i.torch: i.nbytes for i in _INFO.values()}


def wider(a: DType, b: DType) -> DType:
    """The dtype two scalars of `a` and `b` promote to: the wider float if either is one (the
    first on a tie), else the wider integer (bool below every int)."""
    if a.is_float or b.is_float:
        return max((a, b), key=lambda d: _INFO[d].rank if d.is_float else 0)
    return max((a, b), key=lambda d: _INFO[d].rank if not d.is_float else 0)


__all__ = ["DType", "FLOATS", "INTS", "CPP_SIZES", "DSL_NAMES", "TORCH_NBYTES", "wider"]
