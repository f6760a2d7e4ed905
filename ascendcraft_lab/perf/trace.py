"""The emulator's pipe trace, read back (the file `acemu/trace.h` and `runtime.cpp: write_trace` write).

A traced run (``run_kernel(..., trace=PATH)``) records, per block and in program order, every
AscendC call that occupies a pipe and every dependency the kernel declared. This module turns the
file into :class:`Launch` / :class:`Block` / :class:`Event` values; `model.py` schedules them.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path

MAGIC = b"ACEMUTR1"

# acemu::trace::Pipe (numbered as cube.h numbers its pipes).
PIPES = ("S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX")
# acemu::trace::Kind
INSTR, ALLOC, ENQUE, DEQUE, FREE, SET_FLAG, WAIT_FLAG, BARRIER, SYNC_ALL, SCALAR, CROSS_SET, CROSS_WAIT = range(1, 13)
KINDS = {INSTR: "instr", ALLOC: "alloc", ENQUE: "enque", DEQUE: "deque", FREE: "free", SET_FLAG: "set_flag",
         WAIT_FLAG: "wait_flag", BARRIER: "barrier", SYNC_ALL: "sync_all", SCALAR: "scalar",
         CROSS_SET: "cross_set", CROSS_WAIT: "cross_wait"}
# acemu::DType (base.h dtype_of), by the names the cost table uses.
DTYPES = ("?", "float32", "float16", "bfloat16", "int32", "int16", "int8", "uint8",
          "uint16", "uint32", "int64", "uint64")

_EVENT = struct.Struct("<QQIHHBBBBI")


class TraceError(ValueError):
    """The file is not a pipe trace this reader understands."""


@dataclass(frozen=True)
class Event:
    kind: int
    pipe: int
    api: str
    file: str
    line: int
    a: int
    b: int
    dtype: str

    @property
    def pipe_name(self) -> str:
        return PIPES[self.pipe] if self.pipe < len(PIPES) else f"pipe{self.pipe}"


@dataclass
class Block:
    index: int
    cube: bool                 # a cube core (AIC) of a mixed launch
    counted: int               # events the block made
    events: list[Event] = field(default_factory=list)

    @property
    def truncated(self) -> bool:
        return self.counted > len(self.events)


@dataclass
class Launch:
    block_dim: int
    kernel_type: int
    blocks: list[Block] = field(default_factory=list)


def read_trace(path: str | Path) -> list[Launch]:
    data = Path(path).read_bytes()
    if data[:8] != MAGIC:
        raise TraceError(f"{path} is not an emulator pipe trace (it does not start with {MAGIC.decode()})")
    try:
        return _parse(data)
    except struct.error as e:
        raise TraceError(f"{path} ends early: the pipe trace is cut ({e})") from None


def _parse(data: bytes) -> list[Launch]:
    off = 8

    def take(fmt: str):
        nonlocal off
        vals = struct.unpack_from(fmt, data, off)
        off += struct.calcsize(fmt)
        return vals

    (nstr,) = take("<I")
    strs = []
    for _ in range(nstr):
        (n,) = take("<I")
        strs.append(data[off:off + n].decode("utf-8", "replace"))
        off += n
    (nlaunch,) = take("<I")

    def name(i: int) -> str:
        return strs[i] if i < len(strs) else "?"
    launches = []
    for _ in range(nlaunch):
        block_dim, ktype, nblocks = take("<IiI")
        launch = Launch(block_dim, ktype)
        for _ in range(nblocks):
            idx, cube, _trunc, _pad, counted, stored = take("<iBBHQQ")
            blk = Block(idx, bool(cube), counted)
            end = off + stored * _EVENT.size
            if end > len(data):
                raise struct.error(f"{stored} events announced, {(len(data) - off) // _EVENT.size} present")
            blk.events = [Event(kind, pipe, name(api), name(file), line, a, b,
                                DTYPES[dtype] if dtype < len(DTYPES) else "?")
                          for a, b, line, api, file, kind, pipe, dtype, _aux, _ in _EVENT.iter_unpack(data[off:end])]
            off = end
            launch.blocks.append(blk)
        launches.append(launch)
    return launches

