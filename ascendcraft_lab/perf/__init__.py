"""Profile without an NPU (issue 21): `trace.py` reads the pipe trace a traced emulator run writes."""
from .trace import Block, Event, Launch, TraceError, read_trace

__all__ = ["Block", "Event", "Launch", "TraceError", "read_trace"]
