"""Derive xlebench's verb-sense table (``xlebench/data/propbank_senses.json``) from PropBank's
frame files: for every verb the synthetic narrations use (``xlebench/data/actions.yaml``,
their intransitive frames, ``gets``) and any extra lemmas named, each roleset of the lemma —
its id, name, phrasal aliases (``pick_up``) and numbered roles with their descriptions.

PropBank's frames (github.com/propbank/propbank-frames) are CC BY-SA 4.0: the derived table
carries the source, commit and licence, and is shared under the same licence.

Usage: python scripts/derive_propbank_senses.py FRAMES_REPO [--commit SHA] [--extra LEMMA ...]
(FRAMES_REPO: a clone or a bare mirror; the files are read with ``git show``).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import yaml

from xlebench.library.language import base_form

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "xlebench" / "data" / "propbank_senses.json"


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
        aliases = sorted({a.text for a in rs.iter("alias")
                          if a.get("pos") == "v" and a.text and "_" in a.text})
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
    lemmas, missing = {}, []
    for lemma in sorted(narration_lemmas() | set(args.extra)):
        text = _show(args.repo, commit, f"frames/{lemma}.xml")
        if text is None:
            missing.append(lemma)
            continue
        try:
            lemmas[lemma] = rolesets(text)
        except ET.ParseError as exc:
            raise SystemExit(f"frames/{lemma}.xml at {commit}: {exc}") from exc
    table = {"source": "https://github.com/propbank/propbank-frames", "commit": commit,
             "licence": "CC BY-SA 4.0 (PropBank frame files); this derived table likewise",
             "derived_by": "scripts/derive_propbank_senses.py", "no_entry": missing,
             "lemmas": lemmas}
    OUT.write_text(json.dumps(table, indent=0, sort_keys=True, ensure_ascii=False) + "\n")
    print(f"{len(lemmas)} lemmas, {sum(map(len, lemmas.values()))} rolesets; "
          f"no frame file: {missing}")


if __name__ == "__main__":
    main()
