"""Atomic file writes: write a temporary sibling, then rename over the target.

A reader (or a resumed run) therefore sees either the old file or the complete new one,
never a torn write, even when the process is killed with SIGKILL (the page cache outlives
the process).

Durability against power loss is a separate, costlier promise (an fsync per file). Writes
default to it; bulk writers opt out per write (``durable=False``) or per block
(`deferred_durability`) and then call `barrier` once — the runner after each stage, the
publisher before the rename that makes a benchmark visible — so a stage of thousands of
units pays one flush instead of thousands.
"""

from __future__ import annotations

import contextlib
import contextvars
import ctypes
import functools
import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from xlebench.runner.pretty import pretty_dumps

_DEFERRED: contextvars.ContextVar[bool] = contextvars.ContextVar("deferred", default=False)


def _read_umask() -> int:
    """Read once at import (setting it is the only way to read it; threads are not running
    yet): new files get the mode an ``open()`` would give them."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _read_umask()


def dumps(obj: Any) -> str:
    """Canonical JSON of published files: sorted keys, indent 1, stable floats, UTF-8."""
    return pretty_dumps(obj) + "\n"


def dumps_compact(obj: Any) -> str:
    """The same values on one line (the C encoder): cache records nobody reads by eye."""
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, allow_nan=False,
                      separators=(",", ":")) + "\n"


def write_bytes(path: Path, data: bytes, *, durable: bool | None = None) -> None:
    """Write `data` to `path` atomically; fsync first unless not `durable` (default: durable
    outside a `deferred_durability` block)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    sync = not _DEFERRED.get() if durable is None else durable
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with contextlib.suppress(OSError):  # file systems without modes keep their own
            os.fchmod(fd, 0o666 & ~_UMASK)  # mkstemp's 0600 would hide shared benchmarks
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if sync:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text(path: Path, text: str, *, durable: bool | None = None) -> None:
    write_bytes(path, text.encode("utf-8"), durable=durable)


def write_json(path: Path, obj: Any, *, compact: bool = False,
               durable: bool | None = None) -> None:
    write_text(path, dumps_compact(obj) if compact else dumps(obj), durable=durable)


def write_jsonl(path: Path, rows: Iterable[Any]) -> int:
    """Write one compact canonical JSON object per line; returns the row count."""
    lines = [json.dumps(r, sort_keys=True, ensure_ascii=False, allow_nan=False) for r in rows]
    write_text(path, "".join(line + "\n" for line in lines))
    return len(lines)


def link_or_copy(src: Path, dst: Path) -> None:
    """Put `src`'s bytes at `dst` atomically: a hard link where both share a file system (no
    bytes copied; every writer here replaces files by rename, never in place), else a copy."""
    dst = Path(dst)
    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = dst.with_name(f".{dst.name}.{os.getpid()}.link")
    tmp.unlink(missing_ok=True)
    try:
        os.link(src, tmp)
    except OSError:
        write_bytes(dst, Path(src).read_bytes())
        return
    os.replace(tmp, dst)


def read_json(path: Path) -> Any:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


@contextlib.contextmanager
def deferred_durability() -> Iterator[None]:
    """Writes in this block (this thread) skip their fsync; the caller owes a `barrier`."""
    token = _DEFERRED.set(True)
    try:
        yield
    finally:
        _DEFERRED.reset(token)


def barrier(path: Path) -> None:
    """Flush everything written to the file system holding `path` to stable storage: one
    ``syncfs`` on Linux, a global ``sync`` elsewhere."""
    syncfs = _syncfs()
    if syncfs is None:
        os.sync()
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        if syncfs(fd) != 0:
            os.sync()
    finally:
        os.close(fd)


@functools.cache
def _syncfs():
    try:
        func = ctypes.CDLL(None, use_errno=True).syncfs
    except (OSError, AttributeError):
        return None
    func.argtypes = [ctypes.c_int]
    return func


def pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
