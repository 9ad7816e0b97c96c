"""The results table as Markdown (`to_markdown`): what ``table.md`` holds and
``xlebench-score`` prints — each cell ``mean [95% CI] n=… · floor …``, the paper's layout one
setting away (``eval.layout=paper``), the per-tag rows, the blind panel and the validity
section (`xlebench.eval.table` computes the table itself)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from xlebench.eval.table import FAILURES


def tag_lines(table: dict[str, Any]) -> list[str]:
    """One row per (subtask, tag value): score [CI] n, and the floor on the same items."""
    lines = ["| subtask | tag | value | score | floor | not answered |", "|---|---|---|---|---|---|"]
    for sub, tags in table.get("by_tag", {}).items():
        for tag, cells in tags.items():
            for value, c in cells.items():
                lines.append(f"| {sub} | {tag} | {value} | {_fmt(c)} | {_fmt(c['floor'])} | "
                             f"{_failures(c)} |")
    return lines if len(lines) > 2 else []


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def _fmt(est: dict[str, Any], floor: dict[str, Any] | None = None) -> str:
    if est.get("mean") is None:
        return "–"
    text = f"{_pct(est['mean'])}"
    if est.get("ci95"):
        lo, hi = est["ci95"]
        text += f" [{_pct(lo)}, {_pct(hi)}]"
    text += f" n={est['n']}"
    if est.get("member"):
        text += f" ({est['member']})"
    if floor is not None and floor.get("mean") is not None:
        text += f" · floor {_pct(floor['mean'])}"
    return text


def _failures(cell: dict[str, Any]) -> str:
    parts = [f"{cell.get(s, 0)} {s.replace('_', '-')}" for s in FAILURES if cell.get(s)]
    return ", ".join(parts) or "0"


def panel_lines(table: dict[str, Any]) -> list[str]:
    """The blind panel on all items: every member's primary-metric value, what it reads."""
    lines = ["| subtask | blind strategy | what it reads | all |", "|---|---|---|---|"]
    for sub, info in table.get("panel", {}).items():
        values = table["rows"][sub]["all"]["floor"].get("panel", {})
        best = table["rows"][sub]["all"]["floor"].get("member")
        for member, sees in info["sees"].items():
            mark = " **(floor)**" if member == best else ""
            lines.append(f"| {sub} | {member}{mark} | {sees} | {_pct(values.get(member))} |")
        for member, why in info.get("skipped", {}).items():
            lines.append(f"| {sub} | {member} | not run: {why} | – |")
    return lines if len(lines) > 2 else []


def validity_lines(result: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The validity section (`xlebench.eval.panel.validity`): per recipe, its full-information
    oracle (and the check metric), the strongest blind strategy, and the verdict."""
    lines = ["| recipe | items | full-information oracle | strongest blind | verdict |",
             "|---|---|---|---|---|"]
    for sub, v in result.items():
        ora = v.get("oracle") or {}
        check = (f"{_pct(ora.get('mean'))} ({ora.get('check_metric')} {_pct(ora.get('check'))})"
                 if ora else "–")
        blind = v.get("blind") or {}
        lines.append(f"| {sub} | {v['items']} | {check} | "
                     f"{_pct(blind.get('mean'))} {blind.get('member') or ''} | {v['verdict']} |")
    return lines


def _judge_labels(check: Mapping[str, Any] | None) -> dict[str, str]:
    """A judge's metric named with its dev-set F1 and how its verdict is read, so the number
    beside it is never read without the judge's own measured agreement."""
    return {j["metric"]: f"{j['metric']} (dev F1 {100 * j['f1']:.1f}, {j.get('mode', 'text')}"
            + (f" >= {j['threshold']:.2f}" if j.get("mode") == "P(TRUE)" else "") + ")"
            for j in (check or {}).get("judges", {}).values()}


def _main_rows(table: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(subtask, cells by column) of the main table: each subtask's headline, or with
    ``layout: paper`` one row per metric its paper prints (those this table has)."""
    if table.get("layout") != "paper":
        return list(table["rows"].items())
    out = []
    papers = dict(table.get("paper_metrics", {}))
    for sub, cells in table["rows"].items():
        members = cells["all"].get("members")
        if members and sub not in papers:  # an AVG row: the metrics its members share
            shared = [m for m in papers.get(members[0]) or []
                      if all(m in (papers.get(s) or []) for s in members)]
            papers[sub] = shared or None
        for m in papers.get(sub) or [cells["all"]["metric"]]:
            found = cells if m == cells["all"]["metric"] else table["extra"].get(sub, {}).get(m)
            if found and found["all"].get("mean") is not None:
                out.append((sub, found))
    return out


def to_markdown(table: dict[str, Any], title: str = "", notes: Sequence[str] = ()) -> str:
    cols = table["columns"]
    lines = ([f"### {title}", ""] if title else []) + [f"{n}" for n in notes]
    if table.get("layout") == "paper":
        lines.append("Each paper's own metrics as its results table prints them "
                     "(`eval.layout=paper`); the headlines of `eval.layout=validity` are among "
                     "the secondary metrics below.")
    if notes or table.get("layout") == "paper":
        lines.append("")
    paper = table.get("layout") == "paper"
    # Table 5's cells leave refusals and no-information replies out, as the paper does; the
    # other column then holds every item's figure (missing replies are wrong in both)
    other = "every item" if paper else "paper protocol"
    lines += ["| subtask | metric | " + " | ".join(cols) + f" | floor (all) | {other} "
              "(all) | not answered (all) |",
              "|---|---|" + "---|" * len(cols) + "---|---|---|"]
    shown = set()
    for sub, cells in _main_rows(table):
        a = cells["all"]
        shown.add((sub, a["metric"]))
        lines.append(f"| {sub} | {a['metric']} | "
                     + " | ".join(_fmt(cells[c]["paper"] if paper else cells[c],
                                       cells[c]["floor"]) for c in cols)
                     + f" | {_fmt(a['floor'])} | {_fmt(a if paper else a['paper'])} | "
                     f"{_failures(a)} |")
    for sub, why in table.get("not_applicable", {}).items():
        lines.append(f"| {sub} | – | {why} |" + " |" * (len(cols) + 2))
    extra = [(sub, m, cells["all"]) for sub, metrics in table.get("extra", {}).items()
             for m, cells in metrics.items() if cells["all"].get("mean") is not None
             and (sub, m) not in shown]
    extra += [(sub, cells["all"]["metric"], cells["all"]) for sub, cells in
              table["rows"].items() if (sub, cells["all"]["metric"]) not in shown
              and sub in table.get("extra", {})]
    missing = sorted({f"{m}: {cells['all']['unavailable']}" for metrics in
                      table.get("extra", {}).values() for m, cells in metrics.items()
                      if cells["all"].get("unavailable")})
    if extra:
        lines += ["", "| subtask | secondary metric | all | floor | paper protocol |",
                  "|---|---|---|---|---|"]
        judged = _judge_labels(table.get("judge_check"))
        lines += [f"| {sub} | {judged.get(m, m)} | {_fmt(c)} | {_fmt(c['floor'])} | "
                  f"{_fmt(c['paper'])} |" for sub, m, c in extra]
    if missing:
        lines += ["", *(f"Not computed here: {m}" for m in missing)]
    tags = tag_lines(table)
    if tags:
        lines += ["", "Per tag (Neptune's capability, MultiHop-EgoQA's category; primary "
                  "metric, floor = strongest blind strategy on the same items):", "", *tags]
    if table.get("validity"):
        lines += ["", "Does each recipe measure the video? Its full-information oracle (reads the "
                  "exact annotations its items came from) against its strongest blind "
                  "strategy, on these items:", "", *validity_lines(table["validity"])]
    panel = panel_lines(table)
    if panel:
        lines += ["", "Blind panel (answers that never see the video; learned ones cross-fitted "
                  "by source video):", "", *panel]
    if table.get("bertscore"):
        b = table["bertscore"]
        lines += ["", f"BERTScore: model {b['model']}, layer {b['layer']}, no idf, "
                  "no baseline rescaling, as the bert-score package computes it."]
    lines += ["", _FOOTER[paper]]
    return "\n".join(lines) + "\n"


_COMMON = ("[95% CI, bootstrap over source videos]; n = items; floor = the strongest "
           "video-blind strategy on the same items (named in brackets; it reads only the query, "
           "the options, or other life logs' answers); counting accuracy pooled over queried "
           "actions; AVG rows pool subtasks by query count.")
#: What the cells hold, by layout: every item (validity), or the paper's protocol (paper).
_FOOTER = {
    False: "Scores x100 over every item of the benchmark (missing, unparseable, refusal "
           "and no-information replies score as wrong answers); [95% CI, bootstrap over "
           "source videos]; n = items; floor = the strongest video-blind strategy on the same "
           "items (named in brackets; it reads only the query, the options, or other life "
           "logs' answers); paper protocol = refusals and no-information replies left out, "
           "as in the paper; counting accuracy pooled over queried actions; AVG rows pool "
           "subtasks by query count.",
    True: "Scores x100 by the paper's protocol: refusals and no-information replies are left "
          "out, as in the paper; missing and unparseable replies score as wrong answers. The "
          "every-item column scores every item of the benchmark, those replies as wrong "
          "answers; " + _COMMON,
}
