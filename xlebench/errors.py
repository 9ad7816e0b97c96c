"""Typed errors. Each names what is wrong, where, and what to do about it.

The CLI prints `UserError`s as one clear message without a traceback; anything else is a bug
and keeps its traceback.
"""

from __future__ import annotations


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


class NotImplementedStageError(UserError):
    """A pipeline stage that this version of xlebench does not provide yet."""


class UnitError(Exception):
    """A failure inside one unit of work, recorded by the runner with the unit id."""


class LLMResponseError(UserError):
    """An LLM kept answering with something unusable after every allowed retry.

    Not retried by the runner: the response cache would replay the same answers. Carries the
    raw responses (``artifacts``), which the runner saves next to the failure record.
    """

    def __init__(self, message: str, artifacts: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.artifacts = dict(artifacts or {})


class LLMCallError(Exception):
    """The LLM endpoint did not answer (timeouts, server errors, rate limits) within the
    retry bound. Retried by the runner like any transient failure."""
