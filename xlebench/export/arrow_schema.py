"""The Arrow schemas of the Hugging Face export (`xlebench.export.hf`): one for every
subtask's items, one for the life logs. Their own module, so that the dataset card
(`xlebench.export.card`) describes the columns the export writes without importing it.
"""

from __future__ import annotations

import pyarrow as pa

SPAN = pa.list_(pa.float64())
EVIDENCE = pa.struct([("video_uid", pa.string()), ("source_start_s", pa.float64()),
                      ("source_end_s", pa.float64())])
CERTIFICATE = pa.struct([("seconds", pa.float64()), ("n_subclips", pa.int64()),
                         ("source", pa.string()), ("upper_bound", pa.bool_())])
ITEMS = pa.schema([
    ("item_id", pa.string()), ("task", pa.string()), ("subtask", pa.string()),
    ("lifelog_id", pa.string()), ("category", pa.string()), ("query", pa.string()),
    ("answer_text", pa.string()),
    ("answer_spans", pa.list_(SPAN)),
    ("answer_counts", pa.list_(pa.struct([("action", pa.string()), ("count", pa.int64())]))),
    ("answer_order", pa.list_(pa.int64())),
    ("options", pa.list_(pa.string())),
    ("label", pa.int64()),
    ("answer_extra", pa.string()),
    ("period_start_s", pa.float64()), ("period_end_s", pa.float64()),
    ("evidence", pa.list_(EVIDENCE)),
    ("certificate", CERTIFICATE),
    ("provenance", pa.string()),
    ("extra", pa.string()),
    ("video", pa.string()),
])
SEGMENT = pa.struct([("index", pa.int64()), ("video_uid", pa.string()),
                     ("start_s", pa.float64()), ("end_s", pa.float64()),
                     ("source_start_s", pa.float64()), ("source_end_s", pa.float64()),
                     ("relaxation", pa.string()), ("score", pa.float64())])
LIFELOGS = pa.schema([
    ("lifelog_id", pa.string()), ("persona_id", pa.string()), ("category", pa.string()),
    ("n_chunks", pa.int64()), ("start_s", pa.float64()), ("end_s", pa.float64()),
    ("video_s", pa.float64()), ("segments", pa.list_(SEGMENT)), ("video", pa.string()),
])
