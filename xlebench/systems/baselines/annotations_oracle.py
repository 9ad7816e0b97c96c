"""``oracle_annotations``: each recipe's full-information oracle — the answer re-derived from the
exact annotations the item was built from (a consistency check, the ceiling of what the
annotations support; never a baseline). The annotate stage keeps the replies; the respond stage
binds them at setup."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from xlebench.systems.base import Made, SystemKind, Systems

NO_ORACLE = "There is no information available: this recipe has no offline oracle."


@dataclass
class AnnotationsOracle:
    """Replies of the recipes' full-information oracles, kept by the annotate stage."""

    replies: dict[str, str] = field(default_factory=dict)
    name: str = "oracle_annotations"
    reads: str = "the exact annotations each item was built from (its recipe's own oracle)"
    version: str = "1"

    def respond(self, items: list[dict], recipes: dict, log: dict) -> dict[str, str]:
        return {it["item_id"]: self.replies.get(it["item_id"], NO_ORACLE) for it in items}


def make(name: str, cfg: Any, out: Systems) -> Made:
    out.annotations = AnnotationsOracle()
    return out.annotations, {"system": name, "version": AnnotationsOracle.version}, None


SYSTEMS = (SystemKind("oracle_annotations", make),)
