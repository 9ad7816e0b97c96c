"""Typed errors. Each names what is wrong, where, and what to do about it.

The CLI prints `UserError`s as one clear message without a traceback; anything else is a bug
and keeps its traceback.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Mapping
from typing import Any


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
    or points the setting that names that folder elsewhere. ``path`` is the file that could
    not be written (None: a cache database), ``reason`` the system's word for why, so the
    message can name the setting whose folder holds it (`StorageError.naming`).
    """

    def __init__(self, message: str, path: str | None = None, reason: str = "") -> None:
        super().__init__(message)
        self.path, self.reason = path, reason

    def naming(self, roots: Mapping[str, Any]) -> StorageError:
        """The same error naming the setting (``paths.cache``, ``paths.outputs``, ...) whose
        folder holds the file: the deepest of ``roots`` (setting -> folder) that does."""
        return StorageError(storage_message(self.path, self.reason, roots), self.path,
                            self.reason)


def storage_message(path: str | None, reason: str, roots: Mapping[str, Any] | None = None
                    ) -> str:
    """One line: what could not be written, why, and which setting to point elsewhere."""
    setting, folder = _setting_of(path, roots or {})
    what = f"cannot write {path}" if path else "cannot write a cache database"
    where = f"{setting}=<folder>" + (f" (now {folder})" if folder else "")
    return f"{what}: {reason}; free space or fix permissions, or point {where} somewhere " \
           "writable"


def _setting_of(path: str | None, roots: Mapping[str, Any]) -> tuple[str, str | None]:
    if path is None:
        return ("paths.cache", str(roots["paths.cache"])) if "paths.cache" in roots \
            else ("paths.outputs", None)
    target = os.path.abspath(path)
    best: tuple[int, str, str | None] = (-1, "paths.outputs", None)
    for setting, folder in roots.items():
        root = os.path.abspath(str(folder))
        if (target == root or target.startswith(root.rstrip(os.sep) + os.sep)) \
                and len(root) > best[0]:
            best = (len(root), setting, str(folder))
    return best[1], best[2]


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


def storage_error(exc: BaseException, roots: Mapping[str, Any] | None = None
                  ) -> StorageError | None:
    """The `StorageError` an ``OSError`` stands for, or None for any other exception;
    ``roots`` (setting -> folder) name the setting to change."""
    if isinstance(exc, StorageError):
        return exc.naming(roots) if roots else exc
    if _sqlite_full(exc):
        return StorageError(storage_message(None, str(exc), roots), None, str(exc))
    if not isinstance(exc, OSError) or exc.errno not in STORAGE_ERRNOS:
        return None
    path = str(exc.filename) if exc.filename else None
    reason = exc.strerror or str(exc)
    return StorageError(storage_message(path, reason, roots), path, reason)


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
