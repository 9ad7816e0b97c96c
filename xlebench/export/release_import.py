"""Read X-LeBench release annotation files into xlebench items and life logs.

``xlebench-import-release <release_dir> <out>`` writes ``<out>/annotations/<subtask>.jsonl``,
``<out>/lifelogs/<id>.json`` and ``<out>/import.json`` (what was read, what was skipped and why),
so the official 432 logs can be scored with xlebench's metrics, floors and tables
(``xlebench-score <out> predictions.jsonl``).

Times follow the release readers' rules: ``HH:MM`` segment starts, plus 24 h whenever a time is
smaller than the previous one; video time = ``response − seconds(start_time)``; the day time of
an answer = the unwrapped segment start + that video time. Exact ``start_sec``/``end_sec`` and
``item_id`` written by xlebench's own export are used when present, so exporting and importing
an xlebench benchmark gives back its items. Entries whose fields are not understood are
counted per task key in ``import.json``, never dropped silently.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xlebench.clock import DAY, parse_hhmm
from xlebench.errors import DataError, UserError
from xlebench.export.release import SUMMARY_KEYS
from xlebench.library.annotations import clean_query
from xlebench.runner.atomic import write_json, write_jsonl
from xlebench.tasks.language import wording as W
from xlebench.tasks.recipe.items import make_item

TASKS = {"object_retrieval": "temporal_localisation", "people_retrieval": "temporal_localisation",
         "moment_retrieval": "temporal_localisation", "single_summary": "summarisation",
         "multi_summary": "summarisation", "holistic_summary": "summarisation",
         "action_counting": "counting", "summary_ordering": "ordering"}
#: Chunks per category in the paper (used when a file does not name its category).
CATEGORY_CHUNKS = {"short": 4, "medium": 9, "long": 15}


@dataclass
class Imported:
    logs: dict[str, dict] = field(default_factory=dict)
    items: dict[str, list[dict]] = field(default_factory=dict)
    skipped: Counter = field(default_factory=Counter)


def _unwrap(times: list[str]) -> list[int]:
    """Seconds of successive ``HH:MM`` times, +24 h each time the clock goes backwards."""
    out, day, prev = [], 0, -1
    for t in times:
        s = parse_hhmm(t)
        if s < prev:
            day += DAY
        prev = s
        out.append(s + day)
    return out


def _segments(sims: list[dict]) -> list[dict]:
    clock = _unwrap([t for s in sims for t in (s["start_time"], s["end_time"])])
    segs = []
    for k, s in enumerate(sims):
        start, end = s.get("start_sec", clock[2 * k]), s.get("end_sec", clock[2 * k + 1])
        dur = s.get("duration_sec", end - start)
        segs.append({"index": k, "video_uid": s["video_uid"], "start_s": start, "end_s": end,
                     "source_start_s": 0.0, "source_end_s": dur,
                     "hhmm_start_s": parse_hhmm(s["start_time"])})
    return segs


def _category(meta: dict, n: int) -> str:
    if meta.get("category"):
        return str(meta["category"])
    return min(CATEGORY_CHUNKS, key=lambda c: abs(CATEGORY_CHUNKS[c] - n))


class _Builder:
    """Items of one file, numbered per subtask as the compiler numbers them."""

    def __init__(self, log: dict, file: str) -> None:
        self.log, self.file = log, file
        self.items: dict[str, list[dict]] = {s: [] for s in TASKS}

    def add(self, subtask: str, entry_id: str | None, **kw: Any) -> None:
        k = len(self.items[subtask])
        item = make_item(log=self.log, subtask=subtask, task=TASKS[subtask], k=k, **kw)
        if entry_id:
            item["item_id"] = entry_id
        item["provenance"] = {"source_file": self.file, **item["provenance"]}
        self.items[subtask].append(item)

    def span(self, seg: dict, entry: dict) -> tuple[tuple[float, float], tuple[float, float]]:
        """(video seconds, day seconds) of a response, by the release readers' rule."""
        # 9 places undo the float noise of (HH:MM + offset) - HH:MM; Ego4D offsets have 7
        a = round(_number(entry, "response_start_time_sec") - seg["hhmm_start_s"], 9)
        b = round(_number(entry, "response_end_time_sec") - seg["hhmm_start_s"], 9)
        return (a, b), (round(seg["start_s"] + a, 3), round(seg["start_s"] + b, 3))


def _evidence(seg: dict, a: float, b: float) -> dict:
    return {"video_uid": seg["video_uid"], "source_start_s": round(a, 3),
            "source_end_s": round(b, 3)}


#: What a release reader can trip on in an entry: a missing key, a list where a dict is
#: expected, a value that is not a number, an index past the segments.
_SHAPE = (KeyError, TypeError, ValueError, IndexError, AttributeError)


def _each(entries: Any, subtask: str, what: str, skipped: Counter,
          read: Callable[[Any], None]) -> None:
    """``read`` every entry; one that cannot be read is counted under ``subtask: what``
    (never guessed, never the end of the import)."""
    if not isinstance(entries, list):
        if entries:
            skipped[f"{subtask}: {type(entries).__name__} where a list of entries belongs"] += 1
        return
    for entry in entries:
        try:
            read(entry)
        except _SHAPE as exc:
            skipped[f"{subtask}: {what} ({_reason(exc)})"] += 1


def _reason(exc: Exception) -> str:
    if isinstance(exc, KeyError):
        return f"no {exc.args[0]!r}"
    if isinstance(exc, TypeError | AttributeError):
        return "another type where an object belongs"
    return f"{type(exc).__name__}: {exc}"[:80]


def _block(tasks: dict, key: str, subtask: str, skipped: Counter, inner: str | None = None
           ) -> Any:
    """``tasks[key]`` (and its ``inner`` key) when it has the release's shape, else nothing
    (counted)."""
    node = tasks.get(key, {})
    if inner is not None:
        node = node.get(inner, {}) if isinstance(node, dict) else None
    if not isinstance(node, dict | list):
        skipped[f"{subtask}: {key} is not an object"] += 1
        return {}
    return node


def _segment(segs: list[dict], entry: dict) -> dict:
    """The segment an entry's ``query_metadata.video_index`` names; only an integer is an
    index (``1.9`` or ``true`` read as 1 would move the item to another video), and a
    negative one (which Python would read from the end) or one past the segments is
    unreadable."""
    k = entry["query_metadata"]["video_index"]
    if isinstance(k, bool) or not isinstance(k, int):
        raise ValueError(f"video_index is {json.dumps(k)}, not an integer")
    if not 0 <= k < len(segs):
        raise IndexError(f"video_index {k} outside the {len(segs)} segments")
    return segs[k]


def _text(entry: dict, key: str) -> str:
    """A text field that must hold words (``"query": null`` is not a question)."""
    value = entry[key]
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{key} is {json.dumps(value)}, not text")
    return value


def _retrieval(b: _Builder, subtask: str, block: Any, skipped: Counter) -> None:
    segs = b.log["segments"]

    def group(g: dict) -> None:
        seg = _segment(segs, g)
        _each(g.get("queries", []), subtask, "query without text or response times", skipped,
              lambda q: _query(b, subtask, seg, _asked(seg, q), q))

    queries = block.get("query_list", []) if isinstance(block, dict) else block
    _each(queries, subtask, "query group without a readable query_metadata", skipped, group)


def _query(b: _Builder, subtask: str, seg: dict, period: tuple[float, float], q: dict) -> None:
    raw = _text(q, "query")
    (va, vb), span = b.span(seg, q)
    b.add(subtask, q.get("item_id"), query=W.retrieval_query(clean_query(raw), *period),
          period=period, spans=[span], text=W.span_text([span]),
          evidence=[_evidence(seg, va, vb)],
          provenance={"template": q.get("template", ""), "raw_query": raw,
                      "video_spans": [[va, vb]]})


def _asked(seg: dict, entry: dict) -> tuple[float, float]:
    """The period a query was asked about: xlebench's ``period_start_sec`` /
    ``period_end_sec`` where its export wrote them (around the record: a query's period may
    reach into the free time beside it), else the record's own, as the release's readers
    take it."""
    if "period_start_sec" not in entry and "period_end_sec" not in entry:
        return float(seg["start_s"]), float(seg["end_s"])
    a, b = (_number(entry, k) for k in ("period_start_sec", "period_end_sec"))
    if not (a <= float(seg["start_s"]) + 1e-6 and float(seg["end_s"]) <= b + 1e-6):
        raise ValueError(f"period {a:g}-{b:g} s does not hold its record")
    return a, b


def _number(entry: dict, key: str) -> float:
    """A number field: an int or a float (a bool or a string is not one)."""
    value = entry[key]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{key} is {json.dumps(value)}, not a number")
    return float(value)


def _moments(b: _Builder, block: Any, skipped: Counter) -> None:
    segs = b.log["segments"]

    def entry(e: dict) -> None:
        seg = _segment(segs, e)
        period = _asked(seg, e)
        label = (e["query"] if isinstance(e.get("query"), str) and e["query"].strip()
                 else _text(e["query_list"][0], "query"))
        pairs = [b.span(seg, q) for q in e["query_list"]]
        spans = [s for _, s in pairs]
        b.add("moment_retrieval", e.get("item_id"), query=W.moment_query(label, *period),
              period=period, spans=spans, text=W.span_text(spans),
              evidence=[_evidence(seg, va, vb) for (va, vb), _ in pairs],
              provenance={"label": label, "video_spans": [list(v) for v, _ in pairs]})

    entries = block.get("query_list", []) if isinstance(block, dict) else block
    _each(entries, "moment_retrieval", "entry without a readable query_metadata or "
          "query_list", skipped, entry)


def _plain(b: _Builder, subtask: str, entries: Any, skipped: Counter) -> None:
    def entry(e: Any) -> None:
        if not isinstance(e, dict) or not {"query", "answer", "period_start_sec"} <= set(e):
            skipped[f"{subtask}: entry without xlebench's answer fields"] += 1
            return
        extra = {"window_s": e["window_s"]} if "window_s" in e else None
        b.add(subtask, e.get("item_id"), query=e["query"],
              period=(e["period_start_sec"], e["period_end_sec"]), text=e["answer"],
              counts=e.get("counts"), order=e.get("order", ()),
              evidence=e.get("evidence", ()), extra=extra)

    _each(entries, subtask, "entry of another shape", skipped, entry)


def read_release_file(path: Path, skipped: Counter) -> tuple[dict, dict[str, list[dict]]]:
    """One release file -> (life log, items by subtask). A file that is not release JSON is
    a `DataError`; an entry that cannot be read is skipped and counted in ``skipped``."""
    try:
        data = json.loads(path.read_text("utf-8"))
        meta, sims, tasks = data["metadata"], data["simulations"], data["tasks"]
        lid = meta.get("lifelog_id") or f"{meta['persona_id']}-{meta['memory_id']}"
        segs = _segments(sims)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise DataError(str(path), "$", f"expected release JSON ({exc})") from None
    except _SHAPE as exc:
        raise DataError(str(path), "$", f"expected the release's metadata, simulations and "
                        f"tasks ({_reason(exc)})") from None
    if not isinstance(tasks, dict):
        raise DataError(str(path), "$.tasks", "expected an object of task blocks")
    log = {"lifelog_id": lid, "persona_id": meta.get("xlebench_persona_id", meta["persona_id"]),
           "category": _category(meta, len(segs)), "n_chunks": meta.get("n_chunks", len(segs)),
           "segments": segs}
    b = _Builder(log, path.name)
    _retrieval(b, "object_retrieval", _block(tasks, "objects_retrieval", "object_retrieval",
                                             skipped), skipped)
    _retrieval(b, "people_retrieval", _block(tasks, "people_retrieval", "people_retrieval",
                                             skipped), skipped)
    _moments(b, _block(tasks, "action_retrieval", "moment_retrieval", skipped,
                       inner="moment_localisation"), skipped)
    summ = _block(tasks, "summarisation", "summaries", skipped)
    for sub, key in SUMMARY_KEYS.items():
        _plain(b, sub, summ.get(key, []) if isinstance(summ, dict) else [], skipped)
    _plain(b, "action_counting", tasks.get("counting", []), skipped)
    order = tasks.get("summary_ordering", {})
    if isinstance(order, dict) and order and "query_list" not in order:
        skipped["summary_ordering: an object without query_list"] += 1
    _plain(b, "summary_ordering", order.get("query_list", []) if isinstance(order, dict)
           else order, skipped)
    for s in segs:
        s.pop("hhmm_start_s")
    return log, b.items


def import_release(folder: Path) -> Imported:
    files = sorted(folder.glob("simulation_*_annotation.json"))
    if not files:
        raise UserError(f"{folder}: no simulation_*_annotation.json files; pass the folder of "
                        "the X-LeBench release annotations")
    out = Imported(items={s: [] for s in TASKS})
    unreadable: list[DataError] = []
    for path in files:
        try:
            log, items = read_release_file(path, out.skipped)
        except DataError as exc:  # one broken file never stops the others
            unreadable.append(exc)
            out.skipped[f"files: not release JSON ({path.name})"] += 1
            continue
        if log["lifelog_id"] in out.logs:
            raise DataError(str(path), "$.metadata", f"life log {log['lifelog_id']} appears "
                            "in two files", "keep one file per life log")
        out.logs[log["lifelog_id"]] = log
        for sub, its in items.items():
            out.items[sub] += its
    if unreadable and not out.logs:
        raise unreadable[0]
    return out


def write_import(imp: Imported, out: Path) -> None:
    """All files in a temporary folder beside ``out``, then one rename: never half-written."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.import-"))
    try:
        for sub, items in imp.items.items():
            write_jsonl(tmp / "annotations" / f"{sub}.jsonl",
                        sorted(items, key=lambda it: it["item_id"]))
        for lid, log in imp.logs.items():
            write_json(tmp / "lifelogs" / f"{lid}.json", log)
        write_json(tmp / "import.json", {
            "lifelogs": len(imp.logs),
            "items": {s: len(v) for s, v in imp.items.items()},
            "skipped": dict(sorted(imp.skipped.items()))})
        tmp.rename(out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
