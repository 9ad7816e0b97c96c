"""Every option of every config group composes, every experiment composes, typos fail."""

from __future__ import annotations

import pytest
from hydra import compose, initialize_config_dir
from hydra.errors import ConfigCompositionException
from omegaconf import OmegaConf

from tests.conftest import CONF
from xlebench.commands.configstore import register

register()

REQUIRED = {"library=ego4d": ["library.root=/data/ego4d"],
            "library=xlebench_release": ["library.path=/data/video_info.json"],
            "neptune=mmh": ["tasks.neptune_qa.filters.1.verdicts=/data/sheet.csv"],
            "neptune=mma": ["tasks.neptune_qa.filters.1.transcripts=/data/speech.json"],
            "neptune=mmh_balanced": ["tasks.neptune_qa.filters.1.verdicts=/data/sheet.csv"],
            "neptune=mma_balanced": ["tasks.neptune_qa.filters.1.transcripts=/data/speech.json"]}


def _options() -> list[str]:
    out = []
    for group_dir in sorted(p for p in CONF.rglob("*") if p.is_dir()):
        group = str(group_dir.relative_to(CONF))
        if group.startswith("hydra"):
            continue
        for f in sorted(group_dir.glob("*.yaml")):
            out.append(f"{group}={f.stem}")
    return out


def _compose(overrides: list[str]):
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        return compose("config", overrides=overrides)


@pytest.mark.parametrize("option", _options())
def test_every_option_composes(option: str) -> None:
    cfg = _compose([option, *REQUIRED.get(option, [])])
    OmegaConf.to_container(cfg, resolve=True, throw_on_missing=True)


def test_every_option_file_starts_with_a_comment() -> None:
    for f in CONF.rglob("*.yaml"):
        first = f.read_text().splitlines()[0]
        assert first.startswith("#"), f"{f} must start with a one-line comment"


def test_experiment_paper_is_the_paper_grid() -> None:
    cfg = _compose(["experiment=paper"])
    assert cfg.name == "paper"
    assert len(cfg.persona.locations) * len(cfg.persona.mbti) == 144
    assert dict(cfg.simulation.lengths) == {"short": 4, "medium": 9, "long": 15}


@pytest.mark.parametrize("typo", ["library.n_vidoes=5", "sed=1", "matcher.top_k_sampel=2",
                                  "planner.min_chunks=many", "render.fsp=3",
                                  "tasks.action_counting.window_length_s=[9]",
                                  "eval.bootstrp=5", "tasks=[object_retreival]"])
def test_typos_fail_at_compose_time(typo: str) -> None:
    with pytest.raises(ConfigCompositionException):
        _compose([typo])


def test_missing_required_path_is_reported() -> None:
    cfg = _compose(["library=xlebench_release"])
    with pytest.raises(Exception, match="path"):
        OmegaConf.to_container(cfg.library, throw_on_missing=True)


def test_every_option_file_names_its_code() -> None:
    """From conf/<group>/<option>.yaml to the code in one hop."""
    for f in sorted(CONF.rglob("*.yaml")):
        rel = f.relative_to(CONF)
        if rel.parts[0] in ("hydra", "experiment") or rel.name == "config.yaml":
            continue
        code = [line.split(":", 1)[1].strip() for line in f.read_text().splitlines()
                if line.startswith("# Code:")]
        assert code and (CONF.parent / code[0]).is_file(), f"{rel} names no existing module"


def test_every_option_file_names_its_schema() -> None:
    """From conf/<group>/<option>.yaml to the typed schema that checks it, in one hop (recipe
    parameters: the recipe module the Code line names declares them)."""
    import importlib

    for f in sorted(CONF.rglob("*.yaml")):
        rel = f.relative_to(CONF)
        text = f.read_text()
        if "/schema/" not in text or rel.parts[0] == "tasks":
            continue
        named = [line.split(":", 1)[1].strip() for line in text.splitlines()
                 if line.startswith("# Schema:")]
        assert named, f"{rel} names no schema"
        path, cls = named[0].split(":")
        module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
        assert hasattr(module, cls), f"{rel}: {named[0]} does not exist"


def test_transformers_knobs_belong_to_the_transformers_schema_only() -> None:
    """``vlm.device`` and its kin are the in-process backend's: another backend refuses them at
    compose time, the transformers group accepts them."""
    from hydra.errors import ConfigCompositionException

    cfg = _compose(["vlm=transformers", "vlm.path=/models/x", "vlm.device=cpu",
                    "vlm.dtype=float32", "vlm.prefix_cache=false"])
    assert (cfg.vlm.device, cfg.vlm.dtype, cfg.vlm.prefix_cache) == ("cpu", "float32", False)
    assert "device" not in _compose(["vlm=litellm"]).vlm
    for backend in ("scripted", "litellm"):
        with pytest.raises(ConfigCompositionException):
            _compose([f"vlm={backend}", "vlm.device=cuda"])


def test_one_endpoint_schema_serves_every_model_client() -> None:
    from dataclasses import fields

    from xlebench.config.schema import EndpointConfig, LLMConfig, VLMConfig

    shared = {f.name for f in fields(EndpointConfig)}
    assert shared <= {f.name for f in fields(LLMConfig)} and shared <= {
        f.name for f in fields(VLMConfig)}
    assert issubclass(LLMConfig, EndpointConfig) and issubclass(VLMConfig, EndpointConfig)
    for group in ("llm", "answerer", "judge"):
        cfg = _compose([f"{group}=litellm"])
        assert cfg[group].backend == "litellm" and cfg[group].max_concurrency >= 1


@pytest.mark.parametrize("experiment", [None, *sorted(p.stem for p in (CONF / "experiment")
                                                      .glob("*.yaml"))])
def test_no_config_sets_the_run_mode(experiment: str | None) -> None:
    """`xlebench` skips Hydra's mode probe (a whole extra composition) on the premise that no
    config of ours sets ``hydra.mode``; an experiment that did would need the probe back."""
    overrides = [f"experiment={experiment}"] if experiment else []
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        cfg = compose("config", overrides=overrides, return_hydra_config=True)
    assert cfg.hydra.mode is None


def test_neptunes_subsets_are_its_filters() -> None:
    """Neptune-MMA: the QAD filter, then what the whole clip's speech alone answers dropped;
    Neptune-MMH: the QAD filter, then the raters' sheet, dropping what audio alone answers."""
    mma = _compose(["neptune=mma", *REQUIRED["neptune=mma"]]).tasks.neptune_qa.filters
    assert [f.kind for f in mma] == ["qad_rank", "transcript_only"]
    assert mma[0].seeds == 3 and mma[0].drop_if_correct_at_least == 2
    assert mma[1].scope == "clip"
    mmh = _compose(["neptune=mmh", *REQUIRED["neptune=mmh"]]).tasks.neptune_qa.filters
    assert [f.kind for f in mmh] == ["qad_rank", "raters"]
    assert "audio" in list(mmh[1].drop)


@pytest.mark.parametrize("subset", ["mma", "mmh"])
def test_a_subset_under_neptunes_name_drops_by_neptunes_rule(subset: str) -> None:
    """Neptune defines MMA and MMH by "dropped when right in 2 of 3 seeds": under its names
    every reader filter drops what its reader answers (decided per item, never balanced over
    the benchmark); the balanced variant is ours and has a name of its own."""
    from xlebench.tasks.screening.filters import READER_FILTERS, balances

    item = {"answer": {"options": ["a", "b", "c", "d", "e"], "label": 0}}
    for name, balanced in ((subset, False), (f"{subset}_balanced", True)):
        option = f"neptune={name}"
        specs = OmegaConf.to_container(_compose([option, *REQUIRED[option]])
                                       .tasks.neptune_qa.filters)
        readers = [s for s in specs if s["kind"] in READER_FILTERS]
        assert readers and all(balances(s, item) is balanced for s in readers), name
        assert [s["kind"] for s in specs] == [s["kind"] for s in OmegaConf.to_container(
            _compose([f"neptune={subset}", *REQUIRED[f"neptune={subset}"]])
            .tasks.neptune_qa.filters)]


def test_a_recipes_parameters_outside_tasks_name_how_to_set_them(tmp_path) -> None:
    """conf/tasks/neptune_mcq.yaml tells how to set neptune_qa's parameters; that command
    composes, and setting them with neptune_qa left out says to add it."""
    import re

    from xlebench.api import compile as xb_compile
    from xlebench.errors import ConfigError

    text = (CONF / "tasks" / "neptune_mcq.yaml").read_text()
    said = re.search(r"compile neptune_qa beside it: (tasks=\S+) (tasks\.neptune_qa\.\S+?)\)",
                     text)
    assert said, "the comment no longer says how"
    cfg = _compose([said.group(1), said.group(2)])
    assert list(cfg.tasks.neptune_qa.capabilities) == ["TO", "CT"]
    with pytest.raises(ConfigError, match=r"neptune_qa is a recipe not among "
                       r"tasks=\[neptune_mcq\]; add it .*tasks=\[neptune_mcq,neptune_qa\]"):
        xb_compile(["tasks=[neptune_mcq]", "tasks.neptune_qa.capabilities=[TO]"],
                   outputs=tmp_path)


def test_the_paper_experiment_prints_table_5s_layout() -> None:
    assert _compose(["experiment=paper"]).eval.layout == "paper"
    assert _compose([]).eval.layout == "validity"
