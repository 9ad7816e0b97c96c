"""Derive xlebench's verb-sense table (``xlebench/data/propbank_senses.json.gz``) from
PropBank's frame files: for every lemma PropBank has a frame file for, each of its verb
rolesets (those with a verb alias) — its id, name, phrasal aliases (``pick_up``) and numbered
roles with their descriptions. A real Ego4D library's narrations use far more verbs than the
synthetic ones (``drop``, ``stand``, ``shake``), so the whole table is derived.

PropBank's frames (github.com/propbank/propbank-frames) are CC BY-SA 4.0: the derived table
carries the source, commit and licence, and is shared under the same licence.

Usage: python scripts/derive_propbank_senses.py FRAMES_REPO [--commit SHA] [--extra LEMMA ...]
(FRAMES_REPO: a clone or a bare mirror; the files are read with ``git show``).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import yaml

from xlebench.library.language import base_form

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "xlebench" / "data" / "propbank_senses.json.gz"


def narration_lemmas() -> set[str]:
    """Every verb lemma the synthetic narrations can start with."""
    verbs = yaml.safe_load((ROOT / "xlebench" / "data" / "actions.yaml").read_text())["verbs"]
    lemmas = {base_form(v) for v in verbs}
    lemmas |= {base_form(f.split()[0]) for v in verbs.values() for f in v.get("frames") or []}
    return lemmas


def _show(repo: Path, commit: str, path: str) -> str | None:
    out = subprocess.run(["git", "-C", str(repo), "show", f"{commit}:{path}"],
                         capture_output=True, text=True)
    return out.stdout if out.returncode == 0 else None


def rolesets(xml_text: str) -> list[dict]:
    """A frame file's rolesets: id, name, phrasal aliases, numbered roles. The annotated
    examples are dropped before parsing (they are not read, and a few are not well-formed:
    ``check.xml`` closes an ``<arg>`` with ``</rel>``)."""
    out = []
    xml_text = re.sub(r"<example\b.*?</example>", "", xml_text, flags=re.DOTALL)
    for rs in ET.fromstring(xml_text).iter("roleset"):
        verbs = {a.text for a in rs.iter("alias") if a.get("pos") == "v" and a.text}
        if not verbs:  # a noun's or an adjective's sense: no narration verb takes it
            continue
        aliases = sorted(a for a in verbs if "_" in a)
        roles = {f"Arg{r.get('n')}": r.get("descr", "") for r in rs.iter("role")
                 if (r.get("n") or "").isdigit()}
        out.append({"id": rs.get("id"), "name": rs.get("name", ""), "phrasal": aliases,
                    "roles": roles})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repo", type=Path)
    ap.add_argument("--commit", default="HEAD")
    ap.add_argument("--extra", nargs="*", default=[])
    args = ap.parse_args()
    commit = subprocess.run(["git", "-C", str(args.repo), "rev-parse", args.commit],
                            capture_output=True, text=True, check=True).stdout.strip()
    files = subprocess.run(["git", "-C", str(args.repo), "ls-tree", "--name-only", commit,
                            "frames/"], capture_output=True, text=True, check=True).stdout
    every = {Path(f).stem for f in files.split() if f.endswith(".xml")}
    lemmas, missing = {}, []
    for lemma in sorted(every | narration_lemmas() | set(args.extra)):
        text = _show(args.repo, commit, f"frames/{lemma}.xml")
        if text is None:
            missing.append(lemma)
            continue
        try:
            sets = rolesets(text)
        except ET.ParseError as exc:
            raise SystemExit(f"frames/{lemma}.xml at {commit}: {exc}") from exc
        if sets:
            lemmas[lemma] = sets
    table = {"source": "https://github.com/propbank/propbank-frames", "commit": commit,
             "licence": "CC BY-SA 4.0 (PropBank frame files); this derived table likewise",
             "derived_by": "scripts/derive_propbank_senses.py", "no_entry": missing,
             "lemmas": lemmas}
    data = (json.dumps(table, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
            + "\n").encode("utf-8")
    OUT.write_bytes(gzip.compress(data, mtime=0))
    print(f"{len(lemmas)} lemmas, {sum(map(len, lemmas.values()))} rolesets; "
          f"no frame file: {missing}")


if __name__ == "__main__":
    main()
