"""Multiple-choice items in EgoSchema's layout: ``questions.json`` (``q_uid``, ``question``,
``option 0`` … ``option 4``), ``answers.json`` (``q_uid`` -> label) and ``id_map.json``
(``q_uid`` -> our item id, life log and the answer's seconds on the life log and in its
source videos), so EgoSchema's evaluation scripts run unchanged on life-log questions."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import Any

#: Namespace of q_uids: uuid5(NAMESPACE, item_id) is stable across machines and runs.
NAMESPACE = uuid.UUID("6f1c1f1e-7a55-4d2a-9d0b-0e6b5e8c1a11")


def is_mcq(item: dict) -> bool:
    return "options" in item["answer"] and item["answer"].get("label") is not None


def egoschema_files(items: Iterable[dict]) -> dict[str, Any]:
    questions, answers, ids = [], {}, {}
    for it in sorted((it for it in items if is_mcq(it)), key=lambda it: it["item_id"]):
        q_uid = str(uuid.uuid5(NAMESPACE, it["item_id"]))
        questions.append({"q_uid": q_uid, "question": it["query"],
                          **{f"option {k}": o for k, o in enumerate(it["answer"]["options"])}})
        answers[q_uid] = int(it["answer"]["label"])
        ids[q_uid] = {"item_id": it["item_id"], "subtask": it["subtask"],
                      "lifelog_id": it["lifelog_id"], "video": f"videos/{it['lifelog_id']}.mp4",
                      "period_s": [it["period"]["start_s"], it["period"]["end_s"]],
                      "evidence": it["evidence"]}
    return {"questions.json": questions, "answers.json": answers, "id_map.json": ids}
