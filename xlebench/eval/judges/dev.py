"""The judges' dev set, built from compiled Neptune items (``judge_dev.v2.jsonl``).

Neptune measured its answer-equivalence metrics on labelled question / reference / candidate
triples before choosing GEM (appendix D.1). A compiled ``neptune_qa`` item already holds what
such a triple needs: a reference answer and four *graded* wrong answers (its decoys: subtle
tweaks — the numbers around a count, the same steps reordered, another change to the same
object — and confusing similarity — another act or place of the same record). Each item gives
two pairs:

* a restatement of its answer, labelled equivalent (``grade: paraphrase``): the same count in
  words, the same steps introduced differently, the same act with "the camera wearer" for C;
* one of its decoys, labelled not equivalent: ``near`` when it shares at least half its
  content words with the answer (token F1 >= 0.5: the cases a word-overlap rule gets wrong),
  ``far`` otherwise.

Items are drawn evenly across capabilities; the 40 hand-written pairs of ``judge_dev.v1``
(counts, places, next acts, orders, summaries, reasons) come first. Rebuild it from a
benchmark with ``python -m xlebench.eval.judges.dev <bench>/annotations/neptune_qa.jsonl``.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Sequence
from importlib import resources

from xlebench.eval.scorers.short import NUMBER_WORDS, token_f1

#: Items drawn per capability.
PER_CAPABILITY = 16
_WORDS = {v: k for k, v in NUMBER_WORDS.items()}


def restate(answer: dict) -> str | None:
    """The answer said another way that means the same; None where no rule applies."""
    text = answer["text"].strip()
    shape = answer.get("shape", "text")
    if shape == "count":
        n = int(answer["value"])
        return f"{_WORDS.get(n, str(n)).capitalize()} times."
    if shape in ("order", "sequence"):
        steps = text.split(", then ")
        return "First " + "; after that ".join(steps) + "."
    if text.startswith("C "):
        return "The camera wearer " + text[2:] + "."
    if text.startswith("to "):
        return "In order " + text + "."
    if text.startswith("the "):
        return "At " + text + "."
    return None


def pairs_from(items: Sequence[dict], seed: int = 0,
               per_capability: int = PER_CAPABILITY) -> list[dict]:
    """Two labelled pairs per sampled item (see the module docstring), capabilities in
    turn."""
    rng = random.Random(seed)
    by: dict[str, list[dict]] = {}
    for it in sorted(items, key=lambda it: it["item_id"]):
        if it["answer"].get("options") and restate({**it["answer"], "text": _text(it)}):
            by.setdefault(it["tags"]["capability"], []).append(it)
    out = []
    for cap in sorted(by):
        for it in rng.sample(by[cap], min(per_capability, len(by[cap]))):
            ref = _text(it)
            wrong = [o for k, o in enumerate(it["answer"]["options"])
                     if k != it["answer"]["label"]]
            decoy = rng.choice(wrong)
            base = {"question": _question(it), "reference": ref, "capability": cap,
                    "source": it["item_id"]}
            out.append({**base, "candidate": restate({**it["answer"], "text": ref}),
                        "equivalent": True, "grade": "paraphrase"})
            out.append({**base, "candidate": decoy, "equivalent": False,
                        "grade": "near" if token_f1(decoy, ref) >= 0.5 else "far"})
    return out


def _text(item: dict) -> str:
    return item["answer"]["options"][item["answer"]["label"]]


def _question(item: dict) -> str:
    return item.get("provenance", {}).get("question") or item["query"]


def hand_written() -> list[dict]:
    text = resources.files("xlebench.data").joinpath("judge_dev.v1.jsonl").read_text("utf-8")
    return [{**json.loads(line), "capability": "mixed", "grade": "hand-written",
             "source": f"v1-{k}"} for k, line in enumerate(text.splitlines()) if line.strip()]


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m xlebench.eval.judges.dev <bench>/annotations/neptune_qa.jsonl",
              file=sys.stderr)
        return 2
    with open(args[0], encoding="utf-8") as f:
        items = [json.loads(line) for line in f if line.strip()]
    for row in hand_written() + pairs_from(items):
        print(json.dumps(row, ensure_ascii=False, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
