"""``pip install xlebench`` (no ``-e``) runs: the wheel carries its configuration, prompts and
data, and the installed CLI compiles a small benchmark from a folder outside the checkout."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT, cli_env

pytestmark = pytest.mark.slow


def _run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kw)


def test_the_wheel_holds_the_configuration_and_its_cli_compiles_elsewhere(tmp_path: Path
                                                                          ) -> None:
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                  "-w", str(tmp_path / "dist"), str(ROOT)])
    assert built.returncode == 0, built.stderr[-2000:]
    wheel = next((tmp_path / "dist").glob("xlebench-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    shipped = {n.removeprefix("xlebench/") for n in names}
    for path in (ROOT / "xlebench").rglob("*"):
        rel = path.relative_to(ROOT / "xlebench").as_posix()
        if path.is_file() and "__pycache__" not in rel:
            assert rel in shipped, f"{rel} is not in the wheel"

    # a fresh environment: the wheel itself, its dependencies from this one (no network)
    venv = tmp_path / "venv"
    assert _run([sys.executable, "-m", "venv", str(venv)]).returncode == 0
    site = next((venv / "lib").glob("python3*/site-packages"))
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    installed = _run([str(venv / "bin" / "python"), "-m", "pip", "install", "--no-deps",
                      "--no-index", str(wheel)])
    assert installed.returncode == 0, installed.stderr[-2000:]
    elsewhere = tmp_path / "work"
    elsewhere.mkdir()
    env = {**cli_env(), "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("PYTHONPATH", None)
    ran = _run([str(venv / "bin" / "xlebench"), "name=wheel", "library.n_videos=40",
                "matcher/embedder=hashing", "persona.locations=[Japan]", "persona.mbti=[INTJ]",
                "render=none", "eval.bertscore=false", "eval.bootstrap=10", "progress=false"],
               cwd=elsewhere, env=env)
    assert ran.returncode == 0, ran.stderr[-3000:]
    where = _run([str(venv / "bin" / "python"), "-c",
                  "import xlebench, sys; sys.stdout.write(xlebench.__file__)"],
                 cwd=elsewhere, env=env).stdout
    assert where.startswith(str(site)), f"the installed package ran, not the checkout: {where}"
    assert (elsewhere / "outputs" / "benchmarks" / "wheel" / "manifest.json").is_file()

    # the README's notebook example, as a script, from the installed wheel; its leaderboard
    # is the one the installed CLI publishes for the same overrides
    script = readme_example()
    notebook = tmp_path / "notebook"
    notebook.mkdir()
    (notebook / "example.py").write_text(script)
    ran = _run([str(venv / "bin" / "python"), "example.py"], cwd=notebook, env=env)
    assert ran.returncode == 0, ran.stderr[-3000:]
    printed = ran.stdout
    overrides = ast.literal_eval(re.search(r"xb\.compile\((\[.*?\])\)", script, re.S).group(1))
    cli = tmp_path / "cli"
    cli.mkdir()
    ran = _run([str(venv / "bin" / "xlebench"), *overrides, "progress=false"], cwd=cli, env=env)
    assert ran.returncode == 0, ran.stderr[-3000:]
    name = next(o.split("=", 1)[1] for o in overrides if o.startswith("name="))
    board = json.loads((cli / "outputs" / "benchmarks" / name / "results" / "leaderboard.json")
                       .read_text())
    published = {(r["subtask"], system): round(c["mean"], 4)
                 for r in board["rows"] for system, c in r["cells"].items()}
    assert leaderboard_means(printed, {s for _, s in published}) == published


def readme_example() -> str:
    """The README's Python example (the fenced block after "**From Python**")."""
    text = (ROOT / "README.md").read_text()
    after = text[text.index("**From Python**"):]
    return after[after.index("```python\n") + 10:after.index("\n```", after.index("```python"))]


def leaderboard_means(printed: str, systems: set[str]) -> dict[tuple[str, str], float]:
    """(subtask, system) -> mean, read off the leaderboard table the example prints last
    (columns subtask, metric, system, mean, ...; a subtask may hold a space)."""
    lines = printed.splitlines()
    start = max(k for k, line in enumerate(lines) if line.split()[:3] == ["subtask", "metric",
                                                                          "system"])
    out = {}
    for line in lines[start + 1:]:
        parts = line.split()
        at = next(k for k, p in enumerate(parts) if p in systems)
        out[(" ".join(parts[:at - 1]), parts[at])] = round(float(parts[at + 1]), 4)
    return out
