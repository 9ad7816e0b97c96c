"""`xlebench.manifest.git_revision`: xlebench asks git of its own checkout only, and only in
ways that write nothing (a user's repository is not xlebench's, and its index is theirs)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from xlebench.manifest import git_revision


def _repo(root: Path, name: str) -> str:
    (root / "xlebench").mkdir(parents=True)
    (root / "xlebench" / "__init__.py").write_text("")
    (root / "pyproject.toml").write_text(f'[project]\nname = "{name}"\n')
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "one"]):
        subprocess.run(["git", *args], cwd=root, check=True, env=env)
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True,
                          text=True, check=True).stdout.strip()


def test_its_own_checkout_is_read_without_writing_the_index(tmp_path: Path) -> None:
    head = _repo(tmp_path, "xlebench")
    index = tmp_path / ".git" / "index"
    before = (index.read_bytes(), index.stat().st_mtime_ns)
    later = index.stat().st_mtime + 5  # a tracked file touched: status would refresh the index
    os.utime(tmp_path / "pyproject.toml", (later, later))
    git_revision.cache_clear()
    assert git_revision(tmp_path / "xlebench") == head
    assert (index.read_bytes(), index.stat().st_mtime_ns) == before
    assert not (tmp_path / ".git" / "index.lock").exists()
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "xlebench"\n# edited\n')
    git_revision.cache_clear()
    assert git_revision(tmp_path / "xlebench") == f"{head}-dirty"


def test_installed_in_someone_elses_repository_it_records_no_revision(tmp_path: Path) -> None:
    _repo(tmp_path, "their-project")
    installed = tmp_path / ".venv" / "lib" / "site-packages" / "xlebench"
    installed.mkdir(parents=True)
    git_revision.cache_clear()
    assert git_revision(installed) is None
    assert git_revision(tmp_path / "xlebench") is None, "their pyproject does not name xlebench"
    git_revision.cache_clear()
