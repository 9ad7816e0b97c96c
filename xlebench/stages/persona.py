"""Persona stage: one unit per persona (grid cell or file)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, ClassVar

from omegaconf import DictConfig, OmegaConf

from xlebench.errors import ConfigError
from xlebench.llm.client import Usage
from xlebench.llm.setup import export_usage, prompt_files, save_usage
from xlebench.persona.files import load_persona_file
from xlebench.persona.offline import generate_persona
from xlebench.persona.profile import MBTI_TYPES, Persona, persona_id
from xlebench.plan.llm import LLMPlanner
from xlebench.runner.atomic import write_jsonl
from xlebench.runner.runner import StageSpec
from xlebench.runner.stage import BaseStage, StageContext, StageResult, Unit, UnitContext


class PersonaStage(BaseStage):
    """Builds persona profiles. Ids depend only on (location, mbti, seed, member) (and file
    stem); ``per_cell`` personas per location x MBTI cell, each of its own seed and name."""

    name: ClassVar[str] = "persona"
    outputs: ClassVar[tuple[str, ...]] = ("personas.jsonl", "stats/llm_usage_persona.json")
    version: ClassVar[str] = "1"

    def __init__(
        self,
        *,
        kind: str,
        locations: list[str] | None = None,
        mbti: list[str] | None = None,
        files: list[Path] | None = None,
        llm: LLMPlanner | None = None,
        per_cell: int = 1,
    ) -> None:
        self.kind = kind
        self.per_cell = per_cell
        self.llm = llm
        if llm is not None:
            self.waits_on_network(llm.client.settings.max_concurrency)
        self.locations = list(locations or [])
        self.mbti = [m.upper() for m in (mbti or [])]
        self.files = [Path(f) for f in (files or [])]
        bad = [m for m in self.mbti if m not in MBTI_TYPES]
        if bad:
            raise ConfigError(f"persona.mbti: {bad} are not MBTI types (e.g. INTJ, ENFP)")

    def units(self, ctx: StageContext) -> list[Unit]:
        if self.kind == "files":
            # The unit id is the persona id, which for files depends on the file's content.
            return [
                Unit(load_persona_file(f, ctx.seed).persona_id, {"file": str(f)})
                for f in self.files
            ]
        return [
            Unit(persona_id(loc, m, ctx.seed, k),
                 {"location": loc, "mbti": m, **({"member": k} if k else {})})
            for loc in self.locations
            for m in self.mbti
            for k in range(self.per_cell)
        ]

    def prompt_files(self) -> list[Path]:
        return prompt_files([self.llm.prompts.persona]) if self.llm else []

    def run(self, unit: Unit, ctx: UnitContext) -> dict:
        if "file" in unit.payload:
            persona: Persona = load_persona_file(Path(unit.payload["file"]), ctx.seed)
        elif self.llm is not None:
            usage = Usage()
            persona = self.llm.persona(unit.payload["location"], unit.payload["mbti"], ctx.seed,
                                       usage, member=unit.payload.get("member", 0))
            save_usage(ctx.workdir, usage)
        else:
            persona = generate_persona(unit.payload["location"], unit.payload["mbti"], ctx.seed,
                                       member=unit.payload.get("member", 0))
        return persona.to_dict()

    def export(self, result: StageResult, dest: Path) -> dict[str, Any]:
        n = write_jsonl(dest / "personas.jsonl", result.records.values())
        model = self.llm.client.settings.model if self.llm else None
        return export_usage(model, result, dest, {"personas": n})


def build_persona_stage(cfg: DictConfig) -> StageSpec:
    from xlebench.llm.setup import llm_fingerprint
    from xlebench.stages.readers import llm_planner

    pc = cfg.persona
    if pc.kind == "files":
        files = sorted(Path(pc.dir).glob(pc.glob))
        if not files:
            raise ConfigError(
                f"persona.dir={pc.dir}: no files match {pc.glob!r}; point persona.dir at a "
                "folder of persona YAML files (see personas/ in the repository)"
            )
        digests = {f.name: hashlib.sha256(f.read_bytes()).hexdigest() for f in files}
        return StageSpec(PersonaStage(kind="files", files=files),
                         {"kind": "files", "files": digests})
    llm = llm_planner(cfg, "planner=llm (persona profiles)")
    stage = PersonaStage(kind="grid", locations=list(pc.locations), mbti=list(pc.mbti), llm=llm,
                         per_cell=int(pc.per_cell))
    fp = OmegaConf.to_container(pc, resolve=True)
    if fp.get("per_cell") == 1:  # one persona a cell: the fingerprint it always had
        fp.pop("per_cell")
    if llm is not None:
        fp["llm"] = llm_fingerprint(cfg, [llm.prompts.persona])
    return StageSpec(stage, fp)
