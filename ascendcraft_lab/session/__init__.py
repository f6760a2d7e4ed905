"""The session layer: the one driver of a session folder, above the engines and backends.

`Session` (session.py) is the facade the CLI, the notebook and the demo use; the work is done
by plain functions over the folder: `lower` (settings, binding, the passes with the folder's
edits, step states, the commit), `edits` (accept, edit, undo, regenerate, adopt; the edits as
kept, in `edit_store`), `check` (compile & verify, one run record each), `estimate` (the
ESTIMATED profile, the tiling ranking). `SessionFolder` (folder.py) is the folder's format;
`draft` (draft.py) makes a DSL draft from a reference; `cases` verifies every case of a
reference; `npu.py` builds and profiles a session with CANN. The CLI (`ascendcraft lower /
check / draft / profile`), the notebook and the bench call these.
"""
from .draft import DraftFailed, DraftOutcome, case_runs, draft
from .folder import SessionFolder, text_hash
from .cases import CaseReport, CaseResult, check_cases
from .check import check_file, check_file_cases
from .errors import SessionError
from .inputs import parse_override
from .lower import engine_for, load_dsl
from .session import Session
from .state import CheckResult, StepState

__all__ = ["CaseReport", "CaseResult", "check_cases", "check_file_cases", "CheckResult", "DraftFailed", "DraftOutcome",
           "Session", "SessionError", "SessionFolder", "StepState", "case_runs", "check_file", "draft", "engine_for",
           "load_dsl", "parse_override", "text_hash"]
