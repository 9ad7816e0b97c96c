"""Typed errors. Each names what is wrong, where, and what to do about it.

The CLI prints `UserError`s as one clear message without a traceback; anything else is a bug
and keeps its traceback.
"""

from __future__ import annotations

import errno


class UserError(Exception):
    """A problem with the user's input or configuration, reported without a traceback."""


class ConfigError(UserError):
    """A configuration value that cannot work (wrong path, impossible combination)."""


class DataError(UserError):
    """An input file that does not have the expected content.

    Carries the file, the JSON path inside it and what was expected, so the message reads
    like: ``ego4d.json: $.videos[3].duration_sec: expected a number >= 0, got -4``.
    """

    def __init__(self, file: str, where: str, expected: str, hint: str = "") -> None:
        self.file, self.where, self.expected, self.hint = str(file), where, expected, hint
        msg = f"{self.file}: {where}: {expected}"
        super().__init__(msg + (f" ({hint})" if hint else ""))


class StorageError(UserError):
    """The output folder cannot be written (read-only, full, not a folder).

    Not a bug and not retried: the same write fails the same way until the user frees space
    or points ``paths.outputs`` elsewhere.
    """


#: errno values that mean "this storage cannot take the write", not "this code is wrong".
STORAGE_ERRNOS = frozenset(
    getattr(errno, name) for name in
    ("ENOSPC", "EDQUOT", "EFBIG", "EROFS", "EACCES", "EPERM", "ENOTDIR", "EISDIR")
    if hasattr(errno, name))


def _sqlite_full(exc: BaseException) -> bool:
    """SQLite reports a full disk (or a read-only one) as OperationalError, not OSError."""
    import sqlite3

    text = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and any(
        s in text for s in ("database or disk is full", "disk i/o error",
                            "attempt to write a readonly database"))


def storage_error(exc: BaseException) -> StorageError | None:
    """The `StorageError` an ``OSError`` stands for, or None for any other exception."""
    if isinstance(exc, StorageError):
        return exc
    if _sqlite_full(exc):
        return StorageError(f"cannot write a cache database: {exc}; free space, or point "
                            "paths.outputs=<folder> somewhere with room")
    if not isinstance(exc, OSError) or exc.errno not in STORAGE_ERRNOS:
        return None
    where = exc.filename or "the output folder"
    return StorageError(
        f"cannot write {where}: {exc.strerror or exc}; free space or fix permissions, or "
        "point paths.outputs=<folder> somewhere writable")


class NotImplementedStageError(UserError):
    """A pipeline stage that this version of xlebench does not provide yet."""


class UnitError(Exception):
    """A failure inside one unit of work, recorded by the runner with the unit id."""


class LLMResponseError(Exception):
    """An LLM kept answering with something unusable after every allowed correction.

    Carries the raw responses (``artifacts``), which the runner saves next to the failure
    record. Nothing of the failed exchange is cached, so a rerun asks the model again.
    """

    def __init__(self, message: str, artifacts: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.artifacts = dict(artifacts or {})


class LLMCallError(Exception):
    """The LLM endpoint did not answer (timeouts, server errors, rate limits) within the
    retry bound. Retried by the runner like any transient failure."""
