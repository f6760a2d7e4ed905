"""The session layer: the one driver of a session folder, above the engines and backends.

`Session` (session.py) binds the reference, parses the draft once, lowers it through the four
passes with the folder's edits, decides each step's state, and verifies the project on the
emulator or an NPU; `SessionFolder` (folder.py) is the folder's format; `draft` (draft.py)
makes a DSL draft from a reference; `npu.py` builds and profiles a session with CANN. The CLI
(`ascendcraft lower / check / draft / profile`), the notebook and the bench call these.
"""
from .draft import DraftFailed, DraftOutcome, case_runs, draft
from .folder import SessionFolder, text_hash
from .cases import CaseReport, CaseResult, check_cases
from .session import (CheckResult, Session, SessionError, StepState, check_file, check_file_cases, engine_for,
                      load_dsl, parse_override)

__all__ = ["CaseReport", "CaseResult", "check_cases", "check_file_cases", "CheckResult", "DraftFailed", "DraftOutcome", "Session", "SessionError", "SessionFolder", "StepState",
           "case_runs", "check_file", "draft", "engine_for", "load_dsl", "parse_override", "text_hash"]
