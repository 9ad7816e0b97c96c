"""The dataset card (``README.md``) of the Hugging Face export: YAML header with one config
per subtask, then what a user needs before trusting or sharing the data — statistics, the
Ego4D licence note, how to rebuild the videos, and the xlebench configuration that produced it.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa
import yaml

from xlebench.export.arrow_schema import ITEMS, LIFELOGS

LICENCE = (
    "The annotations are derived from Ego4D (narrations, NLQ, moments) and are subject to the "
    "[Ego4D licence](https://ego4ddataset.com/ego4d-license/): use requires your own signed "
    "Ego4D licence. **No video is redistributed.** `video` columns name "
    "`videos/<lifelog_id>.mp4`, which you rebuild from your own Ego4D download with "
    "`xlebench-rebuild <benchmark folder> --media-root <ego4d root>` (the render sidecars under "
    "`videos/*.json` hold the output-time mapping and checksums to verify the result).")


def _features(schema: pa.Schema | pa.StructType) -> list[dict[str, Any]]:
    """An Arrow schema in the card's ``dataset_info.features`` form (what `datasets` reads
    instead of guessing types from the files)."""
    return [{"name": f.name, **_feature(f.type)} for f in schema]


def _feature(t: pa.DataType) -> dict[str, Any]:
    if pa.types.is_struct(t):
        return {"struct": _features(t)}
    if pa.types.is_list(t):
        inner = t.value_type
        if pa.types.is_struct(inner):
            return {"list": _features(inner)}
        return {"sequence": _feature(inner).get("dtype") or _feature(inner)}
    names = {pa.string(): "string", pa.float64(): "float64", pa.int64(): "int64",
             pa.bool_(): "bool"}
    return {"dtype": names[t]}


def dataset_id(name: str, fingerprints: Mapping[str, str]) -> str:
    """A name no other compiled benchmark shares (the compiling run's annotate fingerprint):
    `datasets` caches a folder's data under its dataset name, so two exports called alike
    would otherwise read each other's rows."""
    return f"xlebench_{name}_{fingerprints.get('annotate', '')[:8]}".rstrip("_")


def _header(subtasks: Sequence[str], pretty: str, name: str, rows: Mapping[str, int],
            n_logs: int, num_bytes: Mapping[str, int]) -> str:
    """The card's YAML: configs and ``dataset_info`` with each split's examples and Arrow
    bytes (``datasets`` ignores, with a warning per config, a split without ``num_bytes``)."""

    configs = [{"config_name": s, "data_files": [{"split": "test", "path": f"data/{s}.parquet"}]}
               for s in subtasks]
    configs.append({"config_name": "lifelogs",
                    "data_files": [{"split": "test", "path": "lifelogs.parquet"}]})
    info = [{"dataset_name": name, "config_name": s, "features": _features(ITEMS),
             "splits": [_split(rows[s], num_bytes.get(s, 0))]} for s in subtasks]
    info.append({"dataset_name": name, "config_name": "lifelogs",
                 "features": _features(LIFELOGS),
                 "splits": [_split(n_logs, num_bytes.get("lifelogs", 0))]})
    head = {"pretty_name": pretty, "license": "other", "license_name": "ego4d-license",
            "task_categories": ["video-text-to-text"], "language": ["en"],
            "tags": ["egocentric", "long-video", "ego4d", "x-lebench", "xlebench"],
            "configs": configs, "dataset_info": info}
    return "---\n" + yaml.safe_dump(head, sort_keys=False, width=100) + "---\n"


def _split(n: int, size: int) -> dict[str, Any]:
    return {"name": "test", "num_bytes": int(size), "num_examples": int(n)}


def _duration_rows(logs: Sequence[Mapping[str, Any]]) -> list[str]:
    rows = ["| category | life logs | minutes of video max / mean / min | segments mean |",
            "|---|---|---|---|"]
    by: dict[str, list] = {}
    for log in logs:
        by.setdefault(log["category"], []).append(log)
    for cat, group in sorted(by.items()):
        mins = [sum(s["source_end_s"] - s.get("source_start_s", 0.0) for s in g["segments"]) / 60
                for g in group]
        segs = statistics.mean(len(g["segments"]) for g in group)
        rows.append(f"| {cat} | {len(group)} | {max(mins):.0f} / {statistics.mean(mins):.0f} / "
                    f"{min(mins):.0f} | {segs:.1f} |")
    return rows


def _item_rows(items: Mapping[str, Sequence[Mapping[str, Any]]]) -> list[str]:
    cats = sorted({it["category"] for its in items.values() for it in its})
    rows = ["| subtask | task | " + " | ".join(cats) + " | all |",
            "|---|---|" + "---|" * (len(cats) + 1)]
    for sub, its in items.items():
        c = Counter(it["category"] for it in its)
        task = its[0]["task"] if its else ""
        rows.append(f"| {sub} | {task} | " + " | ".join(str(c[k]) for k in cats)
                    + f" | {len(its)} |")
    return rows


#: What the life logs are stitched from, by library kind.
SOURCES = {
    "synthetic": "xlebench's synthetic library (generated videos and annotations in Ego4D's "
                 "formats, for tests and demos: not real footage)",
    "ego4d": "Ego4D videos",
    "xlebench_release": "the Ego4D videos of the X-LeBench authors' library",
}


def dataset_card(*, name: str, items: Mapping[str, Sequence[dict]], logs: Sequence[dict],
                 config_yaml: str, fingerprints: Mapping[str, str], version: str,
                 library_kind: str = "ego4d", rendered: int = 0,
                 num_bytes: Mapping[str, int] | None = None) -> str:
    """The card's text (deterministic for the same benchmark)."""
    uids = Counter(s["video_uid"] for log in logs for s in log["segments"])
    first = next(iter(items), "object_retrieval")
    ident = dataset_id(name, fingerprints)
    lines = [
        _header(list(items), f"xlebench {name}", ident, {s: len(v) for s, v in items.items()},
                len(logs), num_bytes or {}),
        f"# xlebench benchmark `{name}`",
        "",
        f"Ultra-long egocentric life logs stitched from {SOURCES.get(library_kind, 'videos')}, "
        "with X-LeBench-style questions whose answers lie on each life log's virtual clock. "
        f"Compiled by xlebench {version}. {rendered} of {len(logs)} life logs are rendered "
        "(`videos/`, beside this card).",
        "",
        "## Loading",
        "",
        "```python",
        "import datasets",
        f"ds = datasets.load_dataset(\"<this folder>\", \"{first}\")[\"test\"]   "
        f"# dataset {ident}",
        "ds = datasets.load_dataset(\"parquet\", data_files={\"test\": "
        f"\"<this folder>/data/{first}.parquet\"}})[\"test\"]",
        "```",
        "",
        "Paths (`data/`, `video`) are relative to this folder, so it can be moved or pushed to "
        "the Hub as it is.",
        "",
        "Every subtask file has the same columns (`xlebench.export.hf.ITEMS`): times are seconds "
        "from the first day's 00:00 on the life log's clock (past midnight they go on beyond "
        "86400); `answer_spans` are `[start, end]` pairs, `answer_counts` `{action, count}`, "
        "`answer_order` the summary indices in order, `options`/`label` multiple choice; "
        "`answer_extra`, `provenance` and `extra` are JSON text. "
        "`xlebench.export.hf.row_to_item` turns a row back into the item xlebench scores.",
        "",
        "## Statistics",
        "",
        f"{len(logs)} life logs, {sum(uids.values())} segments over {len(uids)} distinct "
        f"videos (the most used one {max(uids.values()) if uids else 0} times).",
        "",
        *_duration_rows(logs),
        "",
        *_item_rows(items),
        "",
        "## Licence and videos",
        "",
        LICENCE,
        "",
        "## Provenance",
        "",
        "Stage fingerprints of the compiled benchmark (its `manifest.json` has the rest):",
        "",
        *[f"- `{stage}`: `{fp}`" for stage, fp in sorted(fingerprints.items())],
        "",
        "The xlebench configuration that produced it (`xlebench --cfg job` of the run; API keys "
        "are never part of it):",
        "",
        "```yaml",
        config_yaml.rstrip(),
        "```",
        "",
    ]
    return "\n".join(lines)
