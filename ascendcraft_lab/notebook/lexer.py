"""A pygments lexer for AscendC: C++ plus the kernel qualifiers, types and APIs of `kernel_operator.h`.

AscendC is C++ compiled by bisheng, so the C++ lexer does the work; this one only re-types the
names a newcomer should notice: qualifiers (`__aicore__`, `__global__`, `__gm__`, `GM_ADDR`) as
reserved keywords, the AscendC classes (`TPipe`, `TQue`, `LocalTensor`, ...) as types, and the
documented APIs (`DataCopy`, `EnQue`, `Exp`, ...) as builtins — the same move pygments' own
CUDA lexer makes.
"""
from __future__ import annotations

from pygments.lexers.c_cpp import CppLexer
from pygments.token import Keyword, Name

QUALIFIERS = frozenset({"__aicore__", "__global__", "__gm__", "__ubuf__", "__inout_pipe__", "GM_ADDR"})

TYPES = frozenset({
    "TPipe", "TQue", "TQueBind", "TBuf", "TPosition", "LocalTensor", "GlobalTensor", "TBufPool",
    "DataCopyParams", "DataCopyExtParams", "DataCopyPadParams", "DataCopyPadExtParams",
    "BinaryRepeatParams", "UnaryRepeatParams", "HardEvent", "RoundMode", "CMPMODE", "SELMODE",
    "MaskMode", "ReduceOrder", "half", "bfloat16_t", "AscendC",
})

APIS = frozenset({
    # memory and pipes
    "InitBuffer", "AllocTensor", "FreeTensor", "EnQue", "DeQue", "Get", "GetWithOffset",
    "SetGlobalBuffer", "DataCopy", "DataCopyPad", "PipeBarrier", "SetFlag", "WaitFlag",
    "FetchEventID", "GetTPipePtr", "SetAtomicAdd", "SetAtomicMax", "SetAtomicMin", "SetAtomicNone",
    "GetBlockIdx", "GetBlockNum", "GetSubBlockIdx", "GetValue", "SetValue", "ReinterpretCast",
    # vector compute
    "Add", "Sub", "Mul", "Div", "Max", "Min", "Adds", "Muls", "Maxs", "Mins", "Exp", "Ln", "Abs",
    "Sqrt", "Rsqrt", "Reciprocal", "Relu", "Axpy", "Duplicate", "Cast", "Compare", "CompareScalar",
    "Select", "ReduceSum", "ReduceMax", "ReduceMin", "WholeReduceSum", "WholeReduceMax",
    "WholeReduceMin", "RepeatReduceSum", "SetVectorMask", "ResetMask", "SetMaskCount", "SetMaskNorm",
    # tiling and launch macros
    "GET_TILING_DATA", "REGISTER_TILING_DEFAULT", "ACLRT_LAUNCH_KERNEL",
})


class AscendCLexer(CppLexer):
    """C++ with AscendC's qualifiers, classes and APIs picked out."""

    name = "AscendC"
    aliases = ["ascendc"]
    filenames: list[str] = []          # .cpp stays C++ for everyone else
    mimetypes = ["text/x-ascendc"]

    def get_tokens_unprocessed(self, text, stack=("root",)):
        for index, token, value in super().get_tokens_unprocessed(text, stack):
            if token in Name or token in Keyword:
                if value in QUALIFIERS:
                    token = Keyword.Reserved
                elif value in TYPES:
                    token = Keyword.Type
                elif value in APIS:
                    token = Name.Builtin
            yield index, token, value


def lexer_for(path: str):
    """The lexer for a project file: AscendC for C/C++ sources, CMake, Python for the DSL."""
    from pygments.lexers import CMakeLexer, PythonLexer, TextLexer
    if path.endswith((".cpp", ".h", ".hpp", ".cc", ".c")):
        return AscendCLexer()
    if path.endswith("CMakeLists.txt") or path.endswith(".cmake"):
        return CMakeLexer()
    if path.endswith(".py"):
        return PythonLexer()
    return TextLexer()
