"""`SessionError`, the one kind of error a session shows its user, and how the layers' errors become one.

A SessionError's `str` is the whole message: one diagnostic, pointing at the DSL line where
there is one, with a help line saying what to do. The lower layers raise their own errors
(`DslError`, `ReferenceError`, `OSError`, ...); `user_errors` turns them into this one.
"""
from __future__ import annotations

import contextlib
from typing import Iterator

from ..dsl.errors import DslError
from ..reference import ReferenceError


class SessionError(Exception):
    """A problem the user can fix: `str(err)` is the whole message (one diagnostic, no traceback)."""


@contextlib.contextmanager
def user_errors(dsl_name: str, dsl: str, failing: str | None = None) -> Iterator[None]:
    """DSL and reference errors in the block as SessionErrors (at the draft's line); with
    `failing` ("compile & verify"), an OSError or ValueError too, as "`failing` failed: ..."."""
    try:
        yield
    except DslError as exc:
        raise SessionError(exc.with_source(dsl_name, dsl).render()) from exc
    except ReferenceError as exc:
        raise SessionError(exc.render()) from exc
    except (OSError, ValueError) as exc:
        if failing is None:
            raise
        raise SessionError(f"error: {failing} failed: {exc}") from exc
