"""Publishing a compiled benchmark without ever losing what was published before.

A run builds the new benchmark folder beside the published one (``.<name>.staging-<pid>``) and
swaps it in with two renames at the end, only when every unit succeeded. Three rules keep a
published benchmark safe:

* **Same configuration or nothing.** A run whose benchmark configuration (everything but the
  machine-local keys and ``eval``) differs from the published one's is refused before any work,
  naming the keys that differ, unless ``overwrite=true``; ``name=<other>`` publishes beside it.
* **A partial run updates only what it computed.** The staging folder starts as a hard-linked
  copy of the published one; each exported stage first removes the paths it owns (each path
  has exactly one owner stage), then writes them anew. Evaluation results are owned per
  system, so scoring a predictions file keeps every other system's results.
* **Nothing stale is kept silently.** If a stage run now produces other outputs than the
  published ones (new code, same configuration), the carried-over outputs computed from the
  old ones are stale: the run is refused, naming them, unless ``overwrite=true``.
* **A results folder's name is claimed when it is chosen.** An evaluation that names its
  folder (a predictions file's ``predictions-<name>``) chooses the name and claims it under
  the benchmark's lock (`claim_name`), so that runs started at the same moment choose as they
  would one after another: a default name taken by another file's scores or claim gets the
  file's digest appended, a chosen ``eval.name`` is refused. A claim lives as long as its
  process.
* **Runs that overlap both land.** Publication re-checks, under the lock, that the published
  folder is still the one the run staged from. If another run published meanwhile, this run's
  own paths are carried onto a fresh copy of that folder (two evaluations of different systems
  both land) after checking its configuration again (two compiles of different
  configurations into one name: the second is refused with one line); what is derived from
  every system's results (leaderboard, results page) is then remade.

Leftovers of killed runs are settled at the next start: dead staging folders are removed, and
a benchmark caught between the two renames is restored.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import hashlib
import json
import logging
import os
import shutil
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xlebench.config.schema import is_schema_default
from xlebench.errors import ConfigError
from xlebench.manifest import config_diff, identity, stale_outputs
from xlebench.runner.atomic import read_json
from xlebench.runner.stage_dir import pid_alive

log = logging.getLogger(__name__)

MANIFEST = "manifest.json"


@dataclass
class Publication:
    """One run's staging folder for the benchmark `final`, and what was published before."""

    final: Path
    staging: Path
    previous: dict[str, Any] | None = None
    exported: dict[str, str] = field(default_factory=dict)
    #: The run's content config (checked again if another run publishes meanwhile).
    config: Mapping[str, Any] = field(default_factory=dict)
    #: Digest of the published manifest the staging folder was copied from (None: none).
    base: str | None = None
    overwrite: bool = False
    #: The run only evaluates (a refusal points to ``benchmark=``, never to overwrite=true).
    evaluating: bool = False
    #: The paths (globs) this run wrote into staging: carried onto a newer published folder.
    written: list[str] = field(default_factory=list)

    def stage_fingerprint(self, stage: str) -> str | None:
        return (self.previous or {}).get("fingerprints", {}).get(stage)

    def clear(self, owned: Sequence[str]) -> None:
        """Remove a stage's own paths from staging before it writes them anew."""
        self.written.extend(owned)
        for rel in owned:
            for path in self.staging.glob(rel):
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path)
                else:
                    path.unlink()


def open_publication(final: Path, config: Mapping[str, Any], *, overwrite: bool,
                     evaluating: bool = False) -> Publication:
    """Settle leftovers, check the published config, and start the staging folder
    (``evaluating``: the run only exports or evaluates; a refusal points to
    ``benchmark=``, never to ``overwrite=true``)."""
    final.parent.mkdir(parents=True, exist_ok=True)
    with _locked(final):
        settle_leftovers(final)
        check_replaceable(final)
        base = _manifest_digest(final)
        previous = _read_manifest(final)
        if previous is not None and not overwrite:
            _check_same_config(final, previous, config, evaluating=evaluating)
        staging = final.parent / f".{final.name}.staging-{os.getpid()}"
        shutil.rmtree(staging, ignore_errors=True)
        if previous is not None and not overwrite:
            # Hard links: no bytes copied; every writer replaces files by rename, so the
            # published inodes are never written through.
            shutil.copytree(final, staging, copy_function=os.link, symlinks=True)
        else:
            staging.mkdir(parents=True)
            previous = None
    return Publication(final, staging, previous, config=dict(config), base=base,
                       overwrite=overwrite, evaluating=evaluating)


def check_replaceable(final: Path) -> None:
    """Refuse to publish over anything but a benchmark xlebench published (a folder holding
    its own ``manifest.json``) or an empty folder: publication swaps the target out and
    deletes it, and a user's folder under that name must survive."""
    if final.is_symlink() or (final.exists() and not final.is_dir()):
        what = "a link" if final.is_symlink() else "a file"
        raise ConfigError(f"{final}: is {what}, not a benchmark xlebench published; it is left "
                          "as it is: choose another name=, or move it away")
    if not final.is_dir() or all(_bookkeeping(p) for p in final.iterdir()):
        return  # empty, or holding only a sweep's or shard's locks and claims of xlebench
    manifest = _read_manifest(final)  # one that cannot be read is refused there
    if isinstance(manifest, dict) and "xlebench_version" in manifest:
        return
    held = f"a {MANIFEST} that xlebench did not write" if manifest is not None else \
        f"files but no {MANIFEST}"
    raise ConfigError(f"{final}: this folder holds {held}, so it is not a benchmark xlebench "
                      "published and publishing there would delete what it holds; it is left "
                      "as it is: choose another name=, or move the folder away")


def _bookkeeping(path: Path) -> bool:
    """A lock, claims folder or staging leftover that xlebench keeps beside a benchmark
    (``.<name>.lock``, ``.<name>.claims``, ``.<name>.staging-<pid>``): a sweep's jobs leave
    theirs in the folder named after the sweep, which a later run may publish over."""
    name = path.name
    return name.startswith(".") and (name.endswith((".lock", ".claims")) or any(
        f".{kind}-" in name for kind in ("staging", "old", "rebase")))


def _manifest_digest(final: Path) -> str | None:
    path = final / MANIFEST
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _read_manifest(final: Path) -> dict[str, Any] | None:
    path = final / MANIFEST
    if not path.is_file():
        return None
    try:
        return read_json(path)
    except (OSError, json.JSONDecodeError):
        raise ConfigError(f"{path}: the published manifest cannot be read; move the folder "
                          "away or rerun with overwrite=true") from None


def _check_same_config(final: Path, previous: dict, config: Mapping[str, Any],
                       meanwhile: bool = False, evaluating: bool = False) -> None:
    diff = config_diff(identity(previous.get("config", {})), identity(config),
                       added_at_default=is_schema_default)
    if diff:
        shown = "; ".join(diff[:4]) + (f"; and {len(diff) - 4} more" if len(diff) > 4 else "")
        when = "was published by another run while this one ran," if meanwhile else \
            "was published"
        hint = ("; the llm group is the model that compiled the benchmark: answer with "
                "answerer=... (Socratic systems), vlm=... (frames) or judge=... (judges)"
                if any(d.startswith("llm.") for d in diff) else "")
        fix = (f"export or evaluate it as published with benchmark={final.name} (its "
               "configuration is read from its manifest) instead of repeating its overrides"
               if evaluating else
               "rerun with overwrite=true to replace it, or name=<new name> to publish beside "
               "it")
        raise ConfigError(f"{final} {when} from another configuration ({shown}){hint}; {fix}")


def check_not_stale(pub: Publication, ran: Mapping[str, str], rerun: Sequence[str]) -> None:
    """Refuse to keep carried-over outputs whose inputs this run changed (``rerun``: the
    evaluation results this run writes anew, which are not carried)."""
    stale = [s for s in stale_outputs(pub.previous, ran) if s not in rerun]
    if stale:
        raise ConfigError(
            f"{pub.final}: this run changes the inputs of {', '.join(stale)}, which it would "
            "keep from the published benchmark (same configuration, new code); run those "
            "stages too, or rerun with overwrite=true to publish without them")


def settle_leftovers(final: Path) -> None:
    """Remove dead runs' staging folders; restore a benchmark caught between two renames."""
    parent = final.parent
    if not parent.is_dir():
        return
    olds = []
    for path in parent.glob(f".{final.name}.*-*"):
        kind, _, pid = path.name[len(final.name) + 2:].rpartition("-")
        if kind not in ("staging", "old", "rebase") or not pid.isdigit() \
                or pid_alive(int(pid)):
            continue
        if kind == "old":
            olds.append(path)
        else:
            shutil.rmtree(path, ignore_errors=True)
            log.info("removed %s, left by a run that was killed", path.name)
    for old in sorted(olds):
        if not final.exists():
            os.rename(old, final)
            log.warning("restored %s from %s (a run was killed while publishing)",
                        final, old.name)
        else:
            shutil.rmtree(old, ignore_errors=True)


def publish(pub: Publication,
            finalize: Callable[[Path, dict[str, Any] | None], None] | None = None,
            before_swap: Callable[[], None] | None = None) -> None:
    """Swap the staged folder in, under the benchmark's lock.

    ``finalize(staging, previous)`` writes what depends on the published folder the run lands
    on (the manifest merged onto ``previous``; derived files), under the lock. If another run
    published since this one staged, the staging folder is first rebased onto it (see the
    module docstring). On Linux one atomic exchange (``renameat2(RENAME_EXCHANGE)``): the
    benchmark folder is never missing, and a kill just after it leaves the old content in the
    staging folder, removed at the next start. Elsewhere two renames, with `settle_leftovers`
    restoring the old folder if a kill lands between them.
    """
    final = pub.final
    with _locked(final):
        check_replaceable(final)  # another process may have put a folder there meanwhile
        if _manifest_digest(final) != pub.base:
            _rebase(pub)
        if finalize is not None:
            finalize(pub.staging, pub.previous)
        if before_swap is not None:
            before_swap()
        if final.exists() and _exchange(pub.staging, final):
            shutil.rmtree(pub.staging, ignore_errors=True)
            return
        old = final.parent / f".{final.name}.old-{os.getpid()}"
        if final.exists():
            os.rename(final, old)
        os.rename(pub.staging, final)
        shutil.rmtree(old, ignore_errors=True)


def _rebase(pub: Publication) -> None:
    """Another run published since this one staged: carry this run's own paths onto a
    hard-linked copy of what is published now (refused if it has another configuration;
    with overwrite=true this run replaces it, as it would have)."""
    final, current = pub.final, _read_manifest(pub.final)
    if pub.overwrite or current is None:
        pub.previous, pub.base = (None if pub.overwrite else current), _manifest_digest(final)
        return
    _check_same_config(final, current, pub.config, meanwhile=True, evaluating=pub.evaluating)
    fresh = final.parent / f".{final.name}.rebase-{os.getpid()}"
    shutil.rmtree(fresh, ignore_errors=True)
    shutil.copytree(final, fresh, copy_function=os.link, symlinks=True)
    for rel in dict.fromkeys(pub.written):
        for path in fresh.glob(rel):
            shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
        for path in pub.staging.glob(rel):
            target = fresh / path.relative_to(pub.staging)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.rename(path, target)
    shutil.rmtree(pub.staging, ignore_errors=True)
    os.rename(fresh, pub.staging)
    log.info("%s was published by another run meanwhile: this run's results were added to it",
             final)
    pub.previous, pub.base = current, _manifest_digest(final)


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths (Linux renameat2); False where the call is unavailable."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
        return False  # no such call, or a file system without exchange
    raise OSError(err, os.strerror(err), str(b))


def discard(pub: Publication) -> None:
    shutil.rmtree(pub.staging, ignore_errors=True)


def _claims(final: Path) -> Path:
    return final.parent / f".{final.name}.claims"


@contextmanager
def claim_name(final: Path) -> Iterator[tuple[dict[str, str], Callable[[str, str], None]]]:
    """Under the benchmark's lock: the results folders other live runs have claimed (``{key:
    owner}``, the owner a digest of what they write there) and ``claim(key, owner)``, which
    claims one for this run. Claims of dead runs are removed."""
    folder = _claims(final)
    final.parent.mkdir(parents=True, exist_ok=True)  # a first run compiles and scores at once
    with _locked(final):
        taken: dict[str, str] = {}
        for path in sorted(folder.glob("*--*")) if folder.is_dir() else ():
            pid, _, key = path.name.partition("--")
            if not pid.isdigit() or int(pid) == os.getpid():
                continue
            if not pid_alive(int(pid)):
                path.unlink(missing_ok=True)
                continue
            taken[key] = path.read_text("utf-8")

        def claim(key: str, owner: str) -> None:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{os.getpid()}--{key}").write_text(owner, "utf-8")
        yield taken, claim


def release_claims(final: Path) -> None:
    """Remove this run's claims (`claim_name`), once it has published or failed."""
    folder = _claims(final)
    for path in folder.glob(f"{os.getpid()}--*") if folder.is_dir() else ():
        path.unlink(missing_ok=True)


@contextmanager
def _locked(final: Path) -> Iterator[None]:
    """An exclusive lock per benchmark name, so two runs never swap the folder at once."""
    lock = final.parent / f".{final.name}.lock"
    with open(lock, "a+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
