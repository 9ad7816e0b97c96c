"""The leaderboard: each row's floor is the full benchmark's, whatever system sorts first."""

from __future__ import annotations

from xlebench.eval.leaderboard import leaderboard, leaderboard_markdown


def _table(n: int, mean: float, floor: float, member: str = "prior") -> dict:
    cell = {"metric": "R@1", "mean": mean, "ci95": [mean - 0.1, mean + 0.1], "n": n,
            "floor": {"mean": floor, "member": member}}
    return {"rows": {"people_retrieval": {"all": cell}}}


def test_floor_comes_from_the_full_benchmark_not_the_first_system() -> None:
    """A system scored on ten logs sorts first ("end_to_end" < "oracle_..."): its subset's
    floor (100.0 on 59 items) must not head the row of the whole benchmark's 400 items."""
    tables = {"end_to_end@scripted": _table(59, 0.2, 1.0, "question_memory"),
              "oracle_text_retrieval": _table(400, 0.3, 0.119)}
    row = leaderboard(tables)["rows"][0]
    assert row["n"] == 400 and row["floor"]["mean"] == 0.119
    assert row["cells"]["end_to_end@scripted"]["floor"]["mean"] == 1.0
    assert "floor" not in row["cells"]["oracle_text_retrieval"]
    md = leaderboard_markdown(leaderboard(tables))
    line = next(x for x in md.splitlines() if x.startswith("| people_retrieval"))
    assert "| 400 | 11.9 (prior) |" in line
    assert "n=59, floor 100.0 (question_memory)" in line


def test_a_row_no_system_applies_to_still_shows_its_metric_n_and_floor() -> None:
    """The paper command's only system reads no source of the authors' library: its cells
    are n/a, and the row shows the metric, n and floor its validity check computed (they
    were "–")."""
    table = {"rows": {}, "not_applicable": {"single_summary": "no narrations"},
             "validity": {"single_summary": {"metric": "rougeL_content", "items": 502,
                                             "blind": {"mean": 0.104, "member": "constant"}}}}
    row = leaderboard({"oracle_text_retrieval": table})["rows"][0]
    assert (row["metric"], row["n"], row["floor"]["mean"]) == ("rougeL_content", 502, 0.104)
    md = leaderboard_markdown(leaderboard({"oracle_text_retrieval": table}))
    assert "| single_summary | rougeL_content | 502 | 10.4 (constant) | n/a (no source) |" in md


def test_order_of_systems_does_not_change_the_row() -> None:
    a = {"z-full": _table(400, 0.3, 0.119), "a-subset": _table(59, 0.2, 1.0)}
    b = dict(reversed(list(a.items())))
    assert leaderboard(a)["rows"][0]["floor"] == leaderboard(b)["rows"][0]["floor"]


def test_results_folders_name_the_whole_model_identity() -> None:
    """Providers, backends and local folders whose names end alike never share a folder."""
    from xlebench.systems.base import Model

    models = [Model("openai/Qwen/Qwen2-VL-7B-Instruct", "litellm", "vlm"),
              Model("hosted_vllm/Qwen/Qwen2-VL-7B-Instruct", "litellm", "vlm"),
              Model("Qwen2-VL-7B-Instruct", "litellm", "vlm"),
              Model("scripted", "scripted", "vlm"),
              Model("openai/scripted", "litellm", "vlm"),
              Model("scripted", "litellm", "vlm"),
              Model("gpt-4o-mini", "replay", "answerer"),
              Model("gpt-4o-mini", "litellm", "answerer"),
              Model("qwen", "transformers", "vlm", "/models/a/qwen"),
              Model("qwen", "transformers", "vlm", "/models/b/qwen"),
              Model("a--b", "litellm", "vlm"), Model("a/b", "litellm", "vlm")]
    slugs = [m.slug for m in models]
    assert len(set(slugs)) == len(slugs), slugs
    assert slugs[0] == "openai--Qwen--Qwen2-VL-7B-Instruct" and slugs[3] == "scripted"
    assert all(s.replace("-", "").replace(".", "").replace("_", "").isalnum() for s in slugs)
