"""HTML of the report's pages, built from the stage records (deterministic: sorted inputs,
no timestamps). Every page links the shared ``report.css``/``report.js`` by relative path, so
the folder opens from disk and from any static server."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from xlebench.clock import fmt_hhmmss
from xlebench.report.plots import frames_curve, video_s

PLOTS = (("durations", "Life-log durations beside the paper and the release"),
         ("reuse", "Video reuse"), ("scenarios", "Scenarios"), ("scenes", "Scenes"),
         ("times", "Time of day"), ("relaxation", "Relaxation levels"),
         ("items", "Items per subtask"), ("certificates", "Certificate lengths"))


def page(title: str, body: str, prefix: str = "") -> str:
    return (f"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{escape(title)}</title>\n<link rel=\"icon\" href=\"data:,\">\n"
            f"<link rel=\"stylesheet\" href=\"{prefix}report.css\">\n"
            f"<script src=\"{prefix}report.js\"></script>\n</head>\n<body>\n"
            f"<nav><a href=\"{prefix}index.html\">Index</a>"
            f"<a href=\"{prefix}results.html\">Results</a></nav>\n{body}\n</body>\n</html>\n")


def _table(tid: str, head: Sequence[str], rows: Sequence[Sequence[tuple[str, Any]]]) -> str:
    """Rows of (html, sort key) cells; every column sortable."""
    th = "".join(f"<th class=\"sortable\">{escape(h)}</th>" for h in head)
    body = "\n".join("<tr>" + "".join(
        f"<td data-sort=\"{escape(str(key))}\">{cell}</td>" for cell, key in row) + "</tr>"
        for row in rows)
    return (f"<table id=\"{tid}\"><thead><tr>{th}</tr></thead>\n<tbody>\n{body}\n"
            "</tbody></table>")


def index_page(*, name: str, logs: Sequence[dict], items: Mapping[str, Sequence[dict]],
               personas: Mapping[str, dict], rendered: frozenset[str] = frozenset()) -> str:
    uses = Counter(s["video_uid"] for log in logs for s in log["segments"])
    per_log = Counter(it["lifelog_id"] for its in items.values() for it in its)
    n_items = sum(len(v) for v in items.values())
    card = (f"<h1>xlebench benchmark <code>{escape(name)}</code></h1>\n"
            f"<p>{len(logs)} life logs, {sum(uses.values())} segments over {len(uses)} "
            f"distinct videos; {n_items} items in {len(items)} subtasks "
            f"({', '.join(f'{escape(s)} {len(v)}' for s, v in items.items())}); "
            f"{len(rendered)} of {len(logs)} life logs rendered. Videos are "
            "not redistributed: they are rebuilt from your own Ego4D copy "
            "(<code>xlebench-rebuild</code>). The full dataset card is "
            "<code>export/hf/README.md</code>.</p>")
    figs = "\n".join(f"<figure><img src=\"plots/{key}.svg\" alt=\"{escape(title)}\">"
                     f"<figcaption>{escape(title)}</figcaption></figure>"
                     for key, title in PLOTS)
    rows = []
    for log in logs:
        lid = log["lifelog_id"]
        p = personas.get(log["persona_id"], {})
        segs = log["segments"]
        rows.append([
            (f"<a href=\"lifelogs/{escape(lid)}.html\">{escape(lid)}</a>", lid),
            (escape(f"{p.get('location', '')} {p.get('mbti', '')}".strip()),
             f"{p.get('location', '')} {p.get('mbti', '')}"),
            (escape(log["category"]), log["category"]),
            (str(len(segs)), len(segs)),
            (f"{video_s(log) / 60:.0f}", round(video_s(log) / 60, 3)),
            (escape(f"{fmt_hhmmss(segs[0]['start_s'])} - {fmt_hhmmss(segs[-1]['end_s'])}")
             if segs else "", segs[0]["start_s"] if segs else 0),
            (str(per_log[lid]), per_log[lid]),
            ("yes" if lid in rendered else "–", int(lid in rendered))])
    table = _table("lifelogs", ["life log", "persona", "category", "segments",
                                "minutes of video", "day span", "items", "video"], rows)
    body = (f"{card}\n<h2>Plots</h2>\n<div class=\"plots\">\n{figs}\n</div>\n"
            f"<h2>Life logs</h2>\n<input type=\"search\" placeholder=\"search life logs\" "
            f"data-table=\"lifelogs\" id=\"search\">\n{table}")
    return page(f"xlebench {name}", body)


def out_seconds(mapping: Sequence[dict], virtual_s: float) -> float | None:
    """Where a time of the day plays in the rendered video (None in a gap)."""
    for p in mapping:
        length = p["out_end_s"] - p["out_start_s"]
        if p["virtual_start_s"] <= virtual_s <= p["virtual_start_s"] + length:
            return round(p["out_start_s"] + virtual_s - p["virtual_start_s"], 3)
    return None


def _segment_of(log: dict, t: float) -> int:
    for s in log["segments"]:
        if s["start_s"] <= t <= s["end_s"]:
            return s["index"]
    return min(log["segments"], key=lambda s: abs(s["start_s"] - t))["index"]


def _spans(item: dict, log: dict) -> list[tuple[float, float]]:
    """Answer spans on the day's clock, or the evidence's where the answer has none."""
    if item["answer"].get("spans"):
        return [(float(a), float(b)) for a, b in item["answer"]["spans"]]
    by_uid = {s["video_uid"]: s for s in log["segments"]}
    out = []
    for e in item["evidence"]:
        seg = by_uid.get(e["video_uid"])
        if seg is not None:
            base = float(seg["start_s"]) - float(seg.get("source_start_s", 0.0))
            out.append((base + e["source_start_s"], base + e["source_end_s"]))
    return out


def _span_buttons(item: dict, log: dict, mapping: Sequence[dict]) -> str:
    out = []
    for a, b in _spans(item, log):
        sec = out_seconds(mapping, a)
        clock = f"{fmt_hhmmss(a)} - {fmt_hhmmss(b)}"
        out.append(f"<button class=\"span\" data-out=\"{'' if sec is None else sec}\" "
                   f"data-segment=\"{_segment_of(log, a)}\" data-clock=\"{escape(clock)}\">"
                   f"[{escape(clock)}]</button>")
    return "".join(out)


def _timeline(log: dict, mapping: Sequence[dict]) -> str:
    segs = log["segments"]
    lo, hi = segs[0]["start_s"], max(s["end_s"] for s in segs)
    width = max(1.0, hi - lo)
    bars = []
    for s in segs:
        m = s.get("match", {})
        left, w = 100 * (s["start_s"] - lo) / width, 100 * (s["end_s"] - s["start_s"]) / width
        sec = out_seconds(mapping, s["start_s"])
        tip = (f"{s['index']}: {fmt_hhmmss(s['start_s'])} - {fmt_hhmmss(s['end_s'])} "
               f"{s['video_uid']} score {m.get('score')} {m.get('relaxation')}")
        cls = "seg" if m.get("level", 0) == 0 else "seg relaxed"
        bars.append(f"<div class=\"{cls}\" id=\"seg-{s['index']}\" data-segment=\"{s['index']}\" "
                    f"data-out=\"{'' if sec is None else sec}\" "
                    f"data-clock=\"{escape(fmt_hhmmss(s['start_s']))}\" "
                    f"style=\"left:{left:.3f}%;width:{w:.3f}%\" title=\"{escape(tip)}\"></div>")
    return (f"<div class=\"timeline\" aria-label=\"segments on the day's clock\">"
            f"{''.join(bars)}</div><p class=\"muted\">{escape(fmt_hhmmss(lo))} to "
            f"{escape(fmt_hhmmss(hi))}; blue: matched at the strict level, orange: relaxed.</p>")


def _segment_rows(log: dict) -> str:
    after = {r["after_segment"]: r for r in log.get("reflections", [])}
    rows = []
    for s in log["segments"]:
        m, c = s.get("match", {}), s.get("chunk", {})
        r = after.get(s["index"])
        refl = ""
        if r:
            def chunk(x: dict | None) -> str:
                return f"{x['activity']} {fmt_hhmmss(x['start_s'])}" if x else "(none)"
            moved = "".join(f"<li>{escape(chunk(c['before']))} &rarr; {escape(chunk(c['after']))}"
                            "</li>" for c in r.get("changed", [])) + "".join(
                f"<li>chunks {a + 1}-{b + 1} to come moved {d} s later</li>"
                for a, b, d in r.get("shifted", []))
            refl = (f"<details><summary>{len(r.get('changes', []))} change(s) to "
                    f"{r.get('remaining', 0)} chunk(s) to come</summary><ul>{moved}</ul>"
                    "</details>")
        rows.append([
            (str(s["index"]), s["index"]),
            (escape(f"{fmt_hhmmss(s['start_s'])} - {fmt_hhmmss(s['end_s'])}"), s["start_s"]),
            (escape(c.get("description", "")), c.get("description", "")),
            (f"<code>{escape(s['video_uid'][:13])}</code>", s["video_uid"]),
            (str(m.get("score", "")), m.get("score", 0)),
            (escape(str(m.get("relaxation", ""))), m.get("level", 0)),
            ("yes" if m.get("same_country") else "no", int(bool(m.get("same_country")))),
            (refl, len(r.get("changes", [])) if r else 0)])
    return _table("segments", ["#", "on the clock", "planned chunk", "video", "match score",
                               "relaxation", "same country", "reflection after"], rows)


def clock_script(vtt: str) -> str:
    """The life log's WebVTT clock as a script file beside its page (``<lid>.clock.js``): a
    ``<track>`` or ``fetch`` from disk is a cross-origin load that browsers refuse for
    ``file://`` pages, a script is not; kept out of the page, which stays small."""
    return f"window.XLE_CLOCK = {json.dumps(vtt)};\n"


def lifelog_page(*, log: dict, persona: dict, plan: dict, items: Sequence[dict],
                 render: dict | None, videos: Mapping[str, Any]) -> str:
    """The page of one life log; its clock loads from ``<lid>.clock.js`` (`clock_script`)."""
    lid = log["lifelog_id"]
    mapping = (render or {}).get("mapping", [])
    video = ""
    if render:
        video = (f"<video id=\"lifelog-video\" controls preload=\"metadata\" "
                 f"src=\"../../videos/{escape(lid)}.mp4\"></video>\n"
                 f"<script src=\"{escape(lid)}.clock.js\"></script>")
    else:
        video = ("<p class=\"muted\">Not rendered (render.max_logs / render=none): answer "
                 "spans show their segment on the timeline instead.</p>")
    routine = "".join(f"<li>{escape(r.get('time', ''))} {escape(r.get('activity', ''))}</li>"
                      for r in persona.get("daily_routine", []))
    agenda = "".join(f"<li>{escape(a.get('start', ''))}-{escape(a.get('end', ''))} "
                     f"{escape(a.get('activity', ''))}</li>" for a in plan.get("agenda", []))
    matched = "".join(
        f"<li>{escape(fmt_hhmmss(s['start_s']))} {escape(s.get('chunk', {}).get('activity', ''))}"
        f" &rarr; <span class=\"muted\">"
        f"{escape(getattr(videos.get(s['video_uid']), 'summary', ''))}</span></li>"
        for s in log["segments"])
    by_sub: dict[str, list[dict]] = {}
    for it in items:
        by_sub.setdefault(it["subtask"], []).append(it)
    blocks = []
    for sub, its in by_sub.items():
        rows = "\n".join(
            f"<tr data-item=\"{escape(it['item_id'])}\"><td><code>{escape(it['item_id'])}</code>"
            f"</td><td>{escape(it['query'])}</td><td>{escape(it['answer']['text'])}</td>"
            f"<td>{_span_buttons(it, log, mapping)}</td></tr>" for it in its)
        blocks.append(f"<h3>{escape(sub)} ({len(its)})</h3>\n<table class=\"items\"><thead><tr>"
                      f"<th>item</th><th>query</th><th>reference</th><th>where</th></tr>"
                      f"</thead><tbody>\n{rows}\n</tbody></table>")
    body = (f"<h1>{escape(lid)}</h1>\n<p>{escape(persona.get('name', ''))}, "
            f"{escape(str(persona.get('age', '')))}, {escape(persona.get('occupation', ''))} "
            f"in {escape(persona.get('location', ''))} ({escape(persona.get('mbti', ''))}); "
            f"{len(log['segments'])} segments, {video_s(log) / 60:.0f} minutes of video.</p>\n"
            f"{video}\n<p id=\"where\" class=\"muted\"></p>\n<h2>Timeline</h2>\n"
            f"{_timeline(log, mapping)}\n{_segment_rows(log)}\n"
            f"<h2>Persona and plan beside what was matched</h2>\n<div class=\"cols\"><div>"
            f"<h3>Persona</h3><p>{escape(persona.get('lifestyle', ''))}</p><ul>{routine}</ul>"
            f"<h3>Day plan</h3><ul>{agenda}</ul></div><div><h3>Matched videos</h3>"
            f"<ul>{matched}</ul></div></div>\n<h2>Items ({len(items)})</h2>\n"
            + "\n".join(blocks))
    return page(lid, body, prefix="../")


def _cell(c: dict) -> str:
    if c.get("mean") is None:
        return "–"
    ci = c.get("ci95")
    ci_text = f" [{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]" if ci else ""
    floor = c.get("floor", {})
    blind = (f" · floor {100 * floor['mean']:.1f} ({escape(str(floor.get('member')))})"
             if floor.get("mean") is not None else "")
    return (f"{100 * c['mean']:.1f}{ci_text} <span class=\"muted\">n={c['n']}{blind}</span>")


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def validity_section(validity: Mapping[str, dict]) -> str:
    """Per recipe: its full-information oracle against its strongest blind strategy."""
    rows = []
    for sub, v in validity.items():
        ora, blind = v.get("oracle") or {}, v.get("blind") or {}
        bad = v.get("consistent") is False or v.get("headroom") is False
        rows.append(
            f"<tr class=\"{'status-refusal' if bad else ''}\"><td>{escape(sub)}</td>"
            f"<td>{v['items']}</td><td>{_pct(ora.get('mean'))} "
            f"<span class=\"muted\">{escape(str(ora.get('check_metric', '')))} "
            f"{_pct(ora.get('check'))}</span></td><td>{_pct(blind.get('mean'))} "
            f"<span class=\"muted\">{escape(str(blind.get('member') or ''))}</span></td>"
            f"<td>{escape(v['verdict'])}</td></tr>")
    return ("<h2>Does each recipe measure the video?</h2><p>The full-information oracle reads "
            "the exact annotations each item came from (a consistency check: it must reach "
            "95% of the maximum); the strongest blind strategy never sees the video (the "
            "query, the options, other life logs' answers). The gap between them is what a "
            "recipe can measure.</p><table><thead><tr><th>recipe</th><th>items</th>"
            "<th>full-information oracle</th><th>strongest blind</th><th>verdict</th></tr>"
            "</thead><tbody>" + "".join(rows) + "</tbody></table>")


def panel_section(table: Mapping[str, Any]) -> str:
    """What every blind strategy reaches on all items (from one system's table)."""
    rows = []
    for sub, info in table.get("panel", {}).items():
        floor = table["rows"][sub]["all"]["floor"]
        for member, sees in info["sees"].items():
            mark = " <strong>(floor)</strong>" if member == floor.get("member") else ""
            rows.append(f"<tr><td>{escape(sub)}</td><td>{escape(member)}{mark}</td>"
                        f"<td>{escape(sees)}</td>"
                        f"<td>{_pct(floor.get('panel', {}).get(member))}</td></tr>")
    return ("<h2>Blind panel</h2><p>Answers that never see the video (learned ones "
            "cross-fitted by source video); the strongest is each cell's floor.</p><table><thead>"
            "<tr><th>subtask</th><th>strategy</th><th>what it reads</th><th>all</th></tr>"
            "</thead><tbody>" + "".join(rows) + "</tbody></table>") if rows else ""


def leaderboard_section(board: Mapping[str, Any]) -> str:
    """Every system's headline on one table (``results/leaderboard.json``)."""
    systems = board.get("systems", [])
    head = "".join(f"<th>{escape(c)}</th>" for c in ["subtask", "metric", "floor"]) + "".join(
        f"<th>{escape(s['key'])}{' <em>ORACLE</em>' if s['oracle'] else ''}"
        f"{' <em>STAND-IN</em>' if s['stand_in'] else ''}</th>" for s in systems)
    rows = []
    for row in board.get("rows", []):
        f = row.get("floor") or {}
        floor = f"{100 * f['mean']:.1f} ({escape(f.get('member') or 'chance')})" \
            if f.get("mean") is not None else "–"
        cells = "".join("<td>n/a (no source)</td>" if (row["cells"].get(s["key"]) or {}).get(
            "not_applicable") else f"<td>{_cell(row['cells'].get(s['key']) or {})}</td>"
            for s in systems)
        rows.append(f"<tr><td>{escape(row['subtask'])}</td><td>{escape(row.get('metric') or '')}"
                    f"</td><td>{floor}</td>{cells}</tr>")
    return ("<h2>Leaderboard</h2><p>Every system evaluated on this benchmark, headline metric "
            "by subtask (<code>results/leaderboard.md</code>).</p><table><thead><tr>"
            f"{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>")


def results_page(*, tables: Mapping[str, dict], scores: Mapping[str, Sequence[dict]],
                 items: Mapping[str, dict], validity: Mapping[str, dict] | None = None,
                 leaderboard: Mapping[str, Any] | None = None, item_files: int = 1) -> str:
    parts = ["<h1>Results</h1>", "<p>Scores ×100 over every item (unanswered items count as "
             "wrong); [95% CI, bootstrap over source videos]; n = items; floor = the strongest "
             "video-blind strategy on the same items (named).</p>"]
    if leaderboard:
        parts.append(leaderboard_section(leaderboard))
        parts += [f"<h2>{escape(base)}: accuracy vs frames</h2><figure>"
                  f"{frames_curve(base, subs)}</figure>"
                  for base, subs in (leaderboard.get("frames_sweep") or {}).items()]
    if validity:
        parts.append(validity_section(validity))
    for system, table in tables.items():
        cols = table["columns"]
        head = "".join(f"<th>{escape(c)}</th>" for c in ["subtask", "metric", *cols])
        rows = "".join(
            f"<tr><td>{escape(sub)}</td><td>{escape(cells['all'].get('metric', ''))}</td>"
            + "".join(f"<td>{_cell(cells.get(c, {}))}</td>" for c in cols) + "</tr>"
            for sub, cells in table["rows"].items())
        oracle = (f"<p><strong>ORACLE</strong>: reads {escape(table['oracle'])}; an upper bound, "
                  "not a baseline.</p>") if table.get("oracle") else ""
        model = table.get("model") or {}
        if model:
            oracle += (f"<p>Answered by <code>{escape(model['name'])}</code> "
                       f"({escape(model['backend'])}, <code>{escape(model['config'])}</code>)"
                       + (" — <strong>STAND-IN</strong>: no model answered; these numbers show "
                          "the pipeline runs, not how a model does." if model.get("stand_in")
                          else "") + ".</p>")
        parts.append(f"<h2>{escape(system)}</h2>{oracle}<table><thead><tr>{head}</tr></thead>"
                     f"<tbody>{rows}</tbody></table>")
    if tables:  # the panel of the evaluation that covered the most items (the full benchmark)
        parts.append(panel_section(max(tables.values(), key=lambda t: (
            t.get("coverage") or {}).get("items", 0))))
    subtasks = sorted({r["subtask"] for rows in scores.values() for r in rows})
    statuses = sorted({r["status"] for rows in scores.values() for r in rows})

    def options(values: Sequence[str]) -> str:
        return "<option value=\"\">all</option>" + "".join(
            f"<option>{escape(v)}</option>" for v in values)
    parts.append(
        "<h2>Items</h2><p>System <select id=\"f-system\">" + options(list(scores))
        + "</select> subtask <select id=\"f-subtask\">" + options(subtasks)
        + "</select> status <select id=\"f-status\">" + options(statuses)
        + "</select> <span id=\"shown\"></span> shown. <button id=\"prev\">&larr;</button> "
        "page <span id=\"page\"></span> <button id=\"next\">&rarr;</button></p>"
        "<table id=\"items\"><thead><tr>"
        "<th>system</th><th>item</th><th>query</th><th>reference</th><th>response</th>"
        "<th>status</th><th>score</th></tr></thead><tbody></tbody></table>"
        + "".join(f"<script src=\"{items_file(k)}\"></script>" for k in range(item_files)))
    return page("xlebench results", "\n".join(parts))


#: The results page's item browser loads its rows from scripts of at most this many bytes,
#: and shows at most this many characters of each text (the score is of the whole reply).
ITEMS_FILE_BYTES = 900_000
SHOWN_CHARS = 1_000


def results_items_scripts(scores: Mapping[str, Sequence[dict]], items: Mapping[str, dict]
                          ) -> list[str]:
    """Every scored item of every system, for the results page's paged browser: scripts (so
    the page opens from disk) that each stay under a megabyte (``results-items.js``,
    ``results-items-2.js``, ...), however many systems and however long their replies."""
    chunks: list[list[str]] = [[]]
    size = 0
    for system, rows in scores.items():
        for r in rows:
            it = items.get(r["item_id"], {})
            score = r["scores"].get(r["primary"])
            row = json.dumps([system, r["item_id"], _shown(it.get("query", "")),
                              _shown(it.get("answer", {}).get("text", "")),
                              _shown(r["response"] or ""), r["status"],
                              f"{r['primary']} " + ("" if score is None else f"{score:.3f}"),
                              r["subtask"]], ensure_ascii=False)
            if size + len(row.encode()) > ITEMS_FILE_BYTES and chunks[-1]:
                chunks.append([])
                size = 0
            chunks[-1].append(row)
            size += len(row.encode()) + 1
    return ["window.XLE_ITEMS = (window.XLE_ITEMS || []).concat([" + ",".join(rows) + "]);\n"
            for rows in chunks]


def items_file(k: int) -> str:
    return "results-items.js" if k == 0 else f"results-items-{k + 1}.js"


def _shown(text: str) -> str:
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + \
        f"… [{len(text) - SHOWN_CHARS} more characters]"


def as_json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False)
