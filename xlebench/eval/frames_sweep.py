"""Neptune's appendix measures, read off the results of several evaluations (Neptune B.3, E).

* **Accuracy vs frames** (its Fig. 7): a system evaluated with ``eval.frames_sweep=[...]``
  has one results folder per frame count (``<system>@<model>@frames=<n>``); per subtask, the
  headline at each count is the curve.
* **Effort score** (its equation 1): per item, the largest count that answered it wrongly
  over the smallest that answered it right, counts taken in increasing order as Neptune
  widens its clips until the model is right (0 when the fewest frames suffice; items no
  count answers right are counted apart). Its *model-based certificate* is that smallest
  count. Only subtasks whose headline is right-or-wrong per item (accuracy) have one.
* **The growing clip** (``centred_clip``): the sweep's counts are clip lengths too (N frames
  over N / ``eval.clip_fps`` seconds centred on the question's period), so the certificate is
  also given in seconds (`effort`'s ``seconds``), as Neptune's probe reports it.
* **Certificate probe** (its model-based certificate, with EgoSchema's certificate as the
  frames): the same model answering from frames of each item's evidence spans only
  (``oracle_certificate_frames``) and from the whole day's (``end_to_end``); per subtask, both
  accuracies and how often each alone is right.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from statistics import mean
from typing import Any

from xlebench.errors import ConfigError

_SWEPT = re.compile(r"^(?P<base>.+)@frames=(?P<n>\d+)(?P<rest>(?:@split=\w+)?)$")
ALL_FRAMES, CERTIFICATE, CLIP = "end_to_end", "oracle_certificate_frames", "centred_clip"


def sweeps(keys: Sequence[str]) -> dict[str, dict[int, str]]:
    """``{system@model[@split=s]: {frames: results key}}`` of the swept systems."""
    out: dict[str, dict[int, str]] = {}
    for key in keys:
        m = _SWEPT.match(key)
        if m:
            out.setdefault(m["base"] + m["rest"], {})[int(m["n"])] = key
    return out


#: Headlines that say right or wrong per item (multiple choice, short answers).
RIGHT_OR_WRONG = ("acc", "answer_acc")


def _right(rows: Sequence[dict]) -> dict[str, bool] | None:
    """Per item, right or wrong on its headline; None when the headline is a graded one."""
    values = {r["item_id"]: r["scores"].get(r["primary"]) for r in rows}
    if not values or any(r["primary"] not in RIGHT_OR_WRONG for r in rows):
        return None
    return {k: v == 1 for k, v in values.items()}


def effort(right_by_n: Mapping[int, Mapping[str, bool]],
           seconds: Mapping[int, float] | None = None) -> dict[str, Any]:
    """Neptune's effort score and model-based certificate (frames) over the items every
    count answered; with ``seconds`` (each count's clip length, a growing clip), the
    certificate in seconds too: the mean length of the items' first right clips."""
    ns = sorted(right_by_n)
    items = set.intersection(*(set(right_by_n[n]) for n in ns))
    scores, certs, never = [], [], 0
    for it in sorted(items):
        first = next((k for k, n in enumerate(ns) if right_by_n[n][it]), None)
        if first is None:
            never += 1
            continue
        scores.append(ns[first - 1] / ns[first] if first else 0.0)
        certs.append(ns[first])
    out = {"effort": round(mean(scores), 4) if scores else None,
           "certificate_frames": round(mean(certs), 3) if certs else None,
           "n": len(scores), "never_right": never}
    if seconds and certs:
        out["certificate_s"] = round(mean(seconds[c] for c in certs), 3)
    return out


def frames_summary(tables: Mapping[str, dict], scores: Mapping[str, Sequence[dict]],
                   clips: Mapping[str, Mapping[int, float]] | None = None
                   ) -> dict[str, dict[str, dict[str, Any]]]:
    """Per swept system, per subtask: the curve (frames -> headline mean, n) and the effort
    score where the headline is accuracy; for a growing clip (``clips``: its seconds per
    count), each count's clip length and the certificate in seconds too."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for base, by_n in sweeps(list(tables)).items():
        ns = sorted(by_n)
        lengths = (clips or {}).get(base)
        subs = [s for s in tables[by_n[ns[0]]].get("rows", {})
                if all(s in tables[by_n[n]].get("rows", {}) for n in ns)]
        for sub in subs:
            cells = {n: tables[by_n[n]]["rows"][sub]["all"] for n in ns}
            entry: dict[str, Any] = {
                "metric": cells[ns[0]].get("metric"),
                "curve": {str(n): {"mean": c.get("mean"), "ci95": c.get("ci95"), "n": c.get("n")}
                          for n, c in cells.items()}}
            if lengths:
                entry["clip_s"] = {str(n): round(lengths[n], 3) for n in ns}
            right = {n: _right([r for r in scores.get(by_n[n], []) if r["subtask"] == sub])
                     for n in ns}
            if len(ns) > 1 and all(v is not None for v in right.values()):
                entry.update(effort(right, lengths))
            out.setdefault(base, {})[sub] = entry
    return out


def clip_length(ec: Any, n: int) -> float:
    """A growing clip's seconds for ``n`` frames (``centred_clip``): ``eval.clip_seconds``
    paired with the sweep's counts in order, else n / ``eval.clip_fps``."""
    lengths = [float(s) for s in ec.get("clip_seconds") or []]
    if not lengths:
        return n / float(ec.get("clip_fps") or 1.0)
    sweep = sorted({int(k) for k in ec.get("frames_sweep") or []})
    if len(lengths) != len(sweep) or n not in sweep:
        raise ConfigError(f"eval.clip_seconds={lengths}: give one clip length per "
                          f"eval.frames_sweep count ({sweep or 'none set'}), in its order")
    return lengths[sweep.index(n)]


def certificate_probe(tables: Mapping[str, dict], scores: Mapping[str, Sequence[dict]]
                      ) -> dict[str, dict[str, dict[str, Any]]]:
    """Per model evaluated both ways (``end_to_end@m`` and ``oracle_certificate_frames@m``),
    per subtask with a right-or-wrong headline: each accuracy on the items both answered,
    and how many only the certificate's frames (or only the whole day's) got right."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for key in tables:
        if not key.startswith(CERTIFICATE + "@"):
            continue
        suffix = key.removeprefix(CERTIFICATE)
        other = ALL_FRAMES + suffix
        if other not in tables:
            continue
        for sub in sorted({r["subtask"] for r in scores.get(key, [])}):
            cert = _right([r for r in scores[key] if r["subtask"] == sub])
            whole = _right([r for r in scores.get(other, []) if r["subtask"] == sub])
            if not cert or not whole:
                continue
            both = sorted(set(cert) & set(whole))
            if not both:
                continue
            out.setdefault(suffix.removeprefix("@"), {})[sub] = {
                "n": len(both),
                "certificate_acc": round(sum(cert[i] for i in both) / len(both), 4),
                "all_frames_acc": round(sum(whole[i] for i in both) / len(both), 4),
                "only_certificate": sum(cert[i] and not whole[i] for i in both),
                "only_all_frames": sum(whole[i] and not cert[i] for i in both)}
    return out


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def sweep_lines(sweep: Mapping[str, Mapping[str, dict]], probe: Mapping[str, Mapping[str, dict]]
                ) -> list[str]:
    """Markdown for the leaderboard: the curve and effort per swept system, then the probe."""
    lines: list[str] = []
    for base, subs in sweep.items():
        ns = sorted({int(n) for e in subs.values() for n in e["curve"]})
        clip = next((e["clip_s"] for e in subs.values() if "clip_s" in e), None)
        lines += ["", f"## {base}: accuracy vs frames (Neptune's Fig. 7) and effort score", "",
                  *(["A clip centred on each question's period, growing with the frames: "
                     + ", ".join(f"{n} frames = {s:g} s" for n, s in clip.items()) + ".", ""]
                    if clip else []),
                  "Headline x100 at each frame count; effort = mean over items of the largest "
                  "count answering wrongly over the smallest answering right (Neptune eq. 1; 0 "
                  "when the fewest frames suffice); certificate = that smallest count.", "",
                  "| subtask | metric | " + " | ".join(f"{n} frames" for n in ns)
                  + " | effort | certificate (frames) | never right |",
                  "|---|---|" + "---|" * (len(ns) + 3)]
        for sub, e in subs.items():
            curve = " | ".join(_pct((e["curve"].get(str(n)) or {}).get("mean")) for n in ns)
            eff = "–" if e.get("effort") is None else f"{e['effort']:.2f}"
            cert = "–" if e.get("certificate_frames") is None else f"{e['certificate_frames']:g}"
            if e.get("certificate_s") is not None:
                cert += f" ({e['certificate_s']:g} s of clip)"
            lines.append(f"| {sub} | {e['metric'] or ''} | {curve} | {eff} (n={e.get('n', 0)}) "
                         f"| {cert} | {e.get('never_right', '–')} |")
    for model, subs in probe.items():
        lines += ["", f"## Certificate probe ({model}): the certificate's frames vs the whole "
                  "day's", "", "Accuracy x100 of the same model on the same items, answering "
                  "from frames of each item's evidence spans only (oracle_certificate_frames) "
                  "and from the whole day (end_to_end).", "",
                  "| subtask | n | certificate frames | all frames | right only with the "
                  "certificate | right only with all frames |", "|---|---|---|---|---|---|"]
        lines += [f"| {sub} | {p['n']} | {_pct(p['certificate_acc'])} | "
                  f"{_pct(p['all_frames_acc'])} | {p['only_certificate']} | "
                  f"{p['only_all_frames']} |" for sub, p in subs.items()]
    return lines
