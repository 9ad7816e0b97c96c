"""Vision-language models with no downloads: what an API model receives (frame count, size,
order, clock labels) over the loopback server, a tiny randomly initialised LLaVA through the
real transformers path on CPU (and CUDA when present), VLM captions cached per source segment,
and second runs that make no model call."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import pytest
from PIL import Image

from tests.conftest import run_cli, run_inprocess
from xlebench.config.schema import TransformersVLMConfig, VLMConfig
from xlebench.render.frames import FrameSpec
from xlebench.systems.baselines.end_to_end import EndToEnd
from xlebench.systems.captioners import VLMCaptioner
from xlebench.tasks.recipe.registry import load_recipe
from xlebench.testing.loopback import LoopbackLLMServer, Reply
from xlebench.vlm.client import make_vlm
from xlebench.vlm.messages import Frame

LOG = {"lifelog_id": "x-short", "segments": [
    {"index": 0, "video_uid": "v", "start_s": 25200, "end_s": 25260, "source_start_s": 0.0,
     "source_end_s": 60.0},
    {"index": 1, "video_uid": "w", "start_s": 30000, "end_s": 30060, "source_start_s": 0.0,
     "source_end_s": 60.0}]}
ITEM = {"item_id": "x-short-object_retrieval-000", "subtask": "object_retrieval",
        "query": "Where is the pot in the record provided for the 07:00 - 07:01 time period?",
        "period": {"start_s": 25200, "end_s": 25260}}
RECIPES = {"object_retrieval": load_recipe("object_retrieval")}


def _frames(tmp: Path, n: int) -> list[Frame]:
    """n JPEG frames of 560x420 over the two segments, each a different colour."""
    out = []
    for k in range(n):
        seg = LOG["segments"][k * 2 // n]
        t = seg["start_s"] + (k % (n // 2)) * 60 / (n // 2)
        path = tmp / f"f{k:03d}.jpg"
        Image.new("RGB", (560, 420), (k * 9 % 256, 40, 200)).save(path, format="JPEG")
        out.append(Frame(path, f"{int(t) // 3600:02d}:{int(t) % 3600 // 60:02d}:"
                               f"{int(t) % 60:02d}", t))
    return out


def _images(body: dict) -> list[tuple[str, tuple[int, int]]]:
    """(clock label before it, image size) of every image part the model received."""
    out, label = [], ""
    for m in body["messages"]:
        for part in m["content"] if isinstance(m["content"], list) else []:
            if part["type"] == "text":
                label = part["text"].strip().rstrip(":")
            else:
                data = base64.b64decode(part["image_url"]["url"].split(",", 1)[1])
                out.append((label.split("\n")[-1], Image.open(io.BytesIO(data)).size))
    return out


def test_an_api_model_receives_the_frames_in_order_with_their_clock(tmp_path: Path) -> None:
    frames = _frames(tmp_path, 40)
    with LoopbackLLMServer(lambda body: Reply("[07:00:10 - 07:00:20]")) as srv:
        vlm = make_vlm(VLMConfig(backend="litellm", model="openai/tiny-vlm",
                                 api_base=srv.base_url, max_images=16, backoff_s=0.01),
                       tmp_path / "cache")
        system = EndToEnd(vlm, lambda log: frames)
        assert system.respond([ITEM], RECIPES, LOG) == {ITEM["item_id"]: "[07:00:10 - 07:00:20]"}
        (body,) = srv.requests
        seen = _images(body)
        assert len(seen) == 16, "subsampled to the backend's image limit"
        assert {size for _, size in seen} == {(560, 420)}
        clocks = [c for c, _ in seen]
        assert clocks == sorted(clocks) and clocks[0] == frames[0].clock
        assert clocks[-1] == frames[-1].clock, "first and last frames kept"
        text = json.dumps(body)
        assert "The following frames are recorded during time of [07:00:00 \\u2013 07:01:00]" \
            in text and ITEM["query"] in text and "[HH:MM:SS - HH:MM:SS]" in text
        system.respond([ITEM], RECIPES, LOG)
        assert srv.request_count == 1, "the second run is answered from the cache"


def test_the_notes_strategy_covers_every_frame_in_chunks(tmp_path: Path) -> None:
    frames = _frames(tmp_path, 40)
    with LoopbackLLMServer(lambda body: Reply("[07:00:00 - 07:00:05] C holds a pot")) as srv:
        vlm = make_vlm(VLMConfig(backend="litellm", model="openai/tiny-vlm",
                                 api_base=srv.base_url, max_images=16, backoff_s=0.01,
                                 frames_strategy="notes"), tmp_path / "cache")
        EndToEnd(vlm, lambda log: frames).respond([ITEM], RECIPES, LOG)
        counts = [len(_images(b)) for b in srv.requests]
    assert sorted(counts[:3]) == [8, 16, 16] and counts[3] == 0, "three chunks, then one text-only answer"
    assert "Notes taken from all the frames" in json.dumps(srv.requests[-1])


def _tiny_vlm(folder: Path, cache: Path, **kw):
    return make_vlm(TransformersVLMConfig(backend="transformers", model="tiny", path=str(folder),
                              max_tokens=6, **kw), cache)


def test_a_tiny_transformers_vlm_answers_in_batches_and_caches(tiny, tmp_path: Path) -> None:
    frames = _frames(tmp_path, 8)
    vlm = _tiny_vlm(tiny, tmp_path / "cache", batch_size=4, device="cpu")
    system = EndToEnd(vlm, lambda log: frames)
    items = [dict(ITEM, item_id=f"i{k}", query=f"Question {k}?") for k in range(5)]
    first = system.respond(items, RECIPES, LOG)
    assert len(first) == 5 and all(isinstance(v, str) for v in first.values())
    assert vlm.live_calls == 5 and vlm.device == "cpu"
    again = _tiny_vlm(tiny, tmp_path / "cache", batch_size=4, device="cpu")
    assert EndToEnd(again, lambda log: frames).respond(items, RECIPES, LOG) == first
    assert again.live_calls == 0, "a second run makes no model call"


def test_likelihood_scoring_picks_the_most_likely_option_wherever_it_stands(
        tiny, tmp_path: Path) -> None:
    """EgoSchema's per-option scoring on the tiny model: the reply is the option with the
    highest mean token log-likelihood, and shuffling the options moves the pick with it."""
    from xlebench.systems.baselines.end_to_end import PROMPT, _with_frames, blocks
    from xlebench.systems.baselines.likelihood import ANSWER_FORMAT, NO_OPTIONS, Likelihood

    frames = _frames(tmp_path, 4)
    vlm = _tiny_vlm(tiny, tmp_path / "cache", device="cpu")
    options = ["C cooks pasta.", "C walks the dog in the park.", "C reads.", "C washes the car",
               "C sleeps all day long."]
    messages = _with_frames(PROMPT, blocks(frames, LOG), question="What does C do?",
                            answer_format=ANSWER_FORMAT)
    scores = vlm.option_logprobs(messages, options)
    assert all(s < 0 for s in scores) and len(set(scores)) == len(options)
    best = options[max(range(5), key=lambda k: scores[k])]
    system = Likelihood(vlm, lambda log: frames)
    for shift in range(3):
        shown = options[shift:] + options[:shift]
        item = dict(ITEM, item_id=f"m{shift}", query="What does C do?",
                    provenance={"question": "What does C do?"},
                    answer={"options": shown, "label": 0})
        reply = system.respond([item], RECIPES, LOG)[f"m{shift}"]
        assert reply == f"Option {shown.index(best)}"
    assert system.respond([dict(ITEM, answer={"text": "x"})], RECIPES, LOG) == {
        ITEM["item_id"]: NO_OPTIONS}
    with pytest.raises(Exception, match="vlm=transformers"):
        Likelihood(object(), lambda log: frames)


@pytest.mark.parametrize("rule", ["end_to_end_likelihood", "end_to_end_yes"])
def test_a_likelihood_reply_is_scored_right_on_both_neptune_views(tiny, tmp_path: Path,
                                                                  rule: str) -> None:
    """Both per-option rules on the tiny model: the option they pick is scored as that option
    on the open-ended view (ShortAnswer) and on the multiple-choice view (ChoiceAccuracy) —
    right when it is the label, wrong otherwise; P("Yes") asks one prompt per option."""
    from xlebench.eval.scorers import ChoiceAccuracy, ScoreSettings, ShortAnswer
    from xlebench.systems.baselines.likelihood import Likelihood, YesLikelihood

    frames = _frames(tmp_path, 4)
    vlm = _tiny_vlm(tiny, tmp_path / "cache", device="cpu")
    system = (Likelihood if rule == "end_to_end_likelihood" else YesLikelihood)(
        vlm, lambda log: frames)
    options = ["C cuts the onion", "C washes the onion", "C peels the onion",
               "C fries the onion", "C grates the onion"]
    question = "What does C do that changes the onion"
    item = dict(ITEM, item_id="n-0", query=question, provenance={"question": question},
                answer={"options": options, "label": 0, "text": options[0], "shape": "phrase"})
    asked = []
    score = vlm.option_logprobs

    def recorded(messages: list[dict], texts: list[str]) -> list[float]:
        asked.append((json.dumps(messages, default=str), texts))
        return score(messages, texts)
    vlm.option_logprobs = recorded
    picked = int(system.respond([item], RECIPES, LOG)["n-0"].removeprefix("Option "))
    if rule == "end_to_end_yes":  # one prompt per option, each scoring "Yes"
        assert [t for _, t in asked] == [["Yes"]] * 5
        assert all(f'Is the answer \\"{o}\\" correct?' in m for (m, _), o in zip(
            asked, options, strict=True))
    else:
        assert [t for _, t in asked] == [options]
    for label in range(5):
        answer = {"options": options, "label": label, "text": options[label]}
        reply = f"Option {picked}"
        open_ended = ShortAnswer().score({"answer": {**answer, "shape": "phrase"}}, reply,
                                         ScoreSettings())["answer_acc"]
        choice = ChoiceAccuracy().score({"answer": answer}, reply, ScoreSettings())["acc"]
        assert open_ended == choice == float(label == picked)


@pytest.mark.parametrize("arch", ["llava", "qwen2_vl"])
def test_likelihood_runs_the_frames_once_with_the_scores_of_a_pass_per_option(
        tiny, tmp_path: Path, arch: str) -> None:
    """Option scores from one pass over the prompt and a batch of options on its cache equal
    the scores of a full pass per option (frames included each time)."""
    from xlebench.systems.baselines.end_to_end import PROMPT, _with_frames, blocks
    from xlebench.testing.tiny_vlm import random_qwen2_vl
    from xlebench.vlm.transformers_backend import TransformersVLM

    if arch == "llava":
        vlm = _tiny_vlm(tiny, tmp_path / "c", device="cpu")
    else:
        vlm = TransformersVLM(TransformersVLMConfig(backend="transformers", model="q"), tmp_path / "c",
                              loaded=random_qwen2_vl("tiny", seed=3))
    messages = _with_frames(PROMPT, blocks(_frames(tmp_path, 4), LOG),
                            question="What does C do?", answer_format="One sentence.")
    options = ["C cooks pasta.", "C walks the dog in the park after lunch.", "C reads.", "x"]
    reference = vlm._option_logprobs_each
    vlm._option_logprobs_each = lambda *a: pytest.fail("fell back to a pass per option")
    shared = vlm.option_logprobs(messages, options)
    prompt, frames = vlm._prompt(messages)
    each = reference(prompt, vlm._images(frames), options)
    assert shared == pytest.approx(each, abs=1e-4)
    assert len(set(each)) == len(options)


def test_questions_of_a_log_share_one_encoding_of_its_frames(tiny, tmp_path: Path,
                                                            monkeypatch) -> None:
    """Encode once, ask many: the same tokens as separate requests, the frames' prefix run
    once per batch of a log's questions, the questions decoded as one batch after it."""
    from xlebench.vlm.transformers_backend import TransformersVLM

    frames = _frames(tmp_path, 6)
    items = [dict(ITEM, item_id=f"i{k}", query=f"What did I do at step {k}?") for k in range(8)]
    separate = _tiny_vlm(tiny, tmp_path / "a", batch_size=1, device="cpu", temperature=0.0,
                         prefix_cache=False)
    alone = EndToEnd(separate, lambda log: frames).respond(items, RECIPES, LOG)
    runs = []
    original = TransformersVLM._shared_prefix

    def counted(self, prompts):
        runs.append(len(prompts))
        return original(self, prompts)

    monkeypatch.setattr(TransformersVLM, "_shared_prefix", counted)
    shared = _tiny_vlm(tiny, tmp_path / "b", batch_size=8, device="cpu", temperature=0.0)
    processor = type(shared._loaded[0])
    with_images = []
    call = processor.__call__

    def seen(self, *args, **kw):
        with_images.append(kw.get("images") is not None)
        return call(self, *args, **kw)
    monkeypatch.setattr(processor, "__call__", seen)
    from xlebench.vlm import transformers_backend
    packed, decoded = transformers_backend.packed_greedy, []
    monkeypatch.setattr(transformers_backend, "packed_greedy", lambda model, cache, tails, *a:
                        decoded.append((len(tails), cache.get_seq_length()))
                        or packed(model, cache, tails, *a))
    assert EndToEnd(shared, lambda log: frames).respond(items, RECIPES, LOG) == alone
    assert runs == [8], "one prefix for the log's eight questions"
    assert len(decoded) == 1 and decoded[0][0] == 8, "the eight questions decode together"
    assert sum(with_images) == 1, "the frames are preprocessed once, not once per question"
    assert len(set(alone.values())) > 1, "the answers depend on the question"


def test_notes_on_one_chunk_share_its_frames_for_every_question(tiny, tmp_path: Path,
                                                               monkeypatch) -> None:
    """The ``notes`` strategy asks every question's notes on a chunk together: one prefix per
    chunk of frames, and the same answers as separate requests."""
    from xlebench.vlm.transformers_backend import TransformersVLM

    frames = _frames(tmp_path, 12)
    items = [dict(ITEM, item_id=f"i{k}", query=q) for k, q in enumerate(
        ["Where was the red cup?", "Count the dogs.", "What did I do at step 7?"])]
    kw = dict(device="cpu", temperature=0.0, max_images=4, frames_strategy="notes")
    alone = EndToEnd(_tiny_vlm(tiny, tmp_path / "a", batch_size=1, prefix_cache=False, **kw),
                     lambda log: frames).respond(items, RECIPES, LOG)
    runs = []
    original = TransformersVLM._shared_prefix
    monkeypatch.setattr(TransformersVLM, "_shared_prefix", lambda self, prompts: runs.append(
        len(prompts)) or original(self, prompts))
    shared = EndToEnd(_tiny_vlm(tiny, tmp_path / "b", batch_size=16, **kw),
                      lambda log: frames).respond(items, RECIPES, LOG)
    assert shared == alone
    # three chunks, each encoded once for the three questions; then the three text-only
    # answers, which share their instructions' prefix
    assert runs == [3, 3, 3, 3]


def test_a_qwen2_vl_shares_its_frames_prefix_with_the_same_answers(tmp_path: Path,
                                                                   monkeypatch) -> None:
    """Qwen2-VL (the benchmark's architecture: 3-D rotary positions over the image grid, a
    per-token type input) built in memory at a tiny size: shared-prefix answers are the
    tokens separate requests give, and the prefix runs once for the log's questions."""
    from xlebench.testing.tiny_vlm import random_qwen2_vl
    from xlebench.vlm.transformers_backend import TransformersVLM

    loaded = random_qwen2_vl("tiny", seed=3)
    frames = _frames(tmp_path, 4)
    items = [dict(ITEM, item_id=f"i{k}", query=f"What did I do at step {k}?") for k in range(4)]

    def vlm(cache: str, **kw) -> TransformersVLM:
        return TransformersVLM(TransformersVLMConfig(backend="transformers", model="qwen2-vl-tiny",
                                         max_tokens=5, temperature=0.0, **kw),
                               tmp_path / cache, loaded=loaded)

    alone = EndToEnd(vlm("a", batch_size=1, prefix_cache=False),
                     lambda log: frames).respond(items, RECIPES, LOG)
    runs = []
    original = TransformersVLM._shared_prefix
    monkeypatch.setattr(TransformersVLM, "_shared_prefix", lambda self, prompts: runs.append(
        original(self, prompts)) or runs[-1])
    shared = EndToEnd(vlm("b", batch_size=4), lambda log: frames).respond(items, RECIPES, LOG)
    assert shared == alone
    assert len(runs) == 1 and len(runs[0]) == 4, "one prefix answered the log's four questions"
    assert vlm("c").device == "cpu" and vlm("c").fingerprint()["config_sha256"]


@pytest.mark.parametrize("path", ["packed", "repeated"])
def test_questions_decoded_together_after_the_prefix_get_the_logits_of_separate_requests(
        tmp_path: Path, monkeypatch, path: str) -> None:
    """Qwen2-VL's 3-D positions after the shared prefix, both ways of decoding the questions
    together (packed side by side in the prefix's one row, or the prefix's cache repeated per
    question with padding before each question): every step's logits are those of the
    question asked alone (a random model's answers barely move with the question, its logits
    do)."""
    import torch

    from xlebench.systems.baselines.end_to_end import PROMPT, _with_frames, blocks
    from xlebench.testing.tiny_vlm import random_qwen2_vl
    from xlebench.vlm import transformers_backend
    from xlebench.vlm.transformers_backend import TransformersVLM

    processor, model = loaded = random_qwen2_vl("tiny", seed=3)
    vlm = TransformersVLM(TransformersVLMConfig(backend="transformers", model="q", max_tokens=3,
                                    temperature=0.0), tmp_path / "c", loaded=loaded)
    frames = _frames(tmp_path, 4)
    questions = ["Why?", "Where was the red cup after lunch?", "What did I do at step 7 of "
                 "the morning routine in the kitchen?"]
    prompts = [vlm._prompt(_with_frames(PROMPT, blocks(frames, LOG), question=q,
                                        answer_format=q)) for q in questions]

    def scores(**kw) -> torch.Tensor:
        out = generate(**kw, output_scores=True, return_dict_in_generate=True)
        seen.append(torch.stack(out.scores, 1))
        return out.sequences
    generate, seen = model.generate, []
    monkeypatch.setattr(model, "generate", scores)
    if path == "repeated":
        monkeypatch.setattr(transformers_backend, "packable", lambda *a: False)
        vlm._shared_prefix(prompts)
    else:
        forward, steps = model.forward, []
        monkeypatch.setattr(model, "forward", lambda **kw: steps.append(
            forward(**kw)) or steps[-1])
        vlm._shared_prefix(prompts)
        monkeypatch.setattr(model, "forward", forward)
        assert len(steps) == 1 + 3, "the prefix once, then one pass per decoded token"
        assert all(s.logits.shape[:2] == (1, 3) for s in steps[1:]), "all questions a step"
        seen.append(torch.stack([s.logits[0] for s in steps[1:]], 1))
    images = vlm._images(prompts[0][1])
    for text, _ in prompts:
        model.generate(**processor(text=[text], images=images, return_tensors="pt",
                                   padding=True), max_new_tokens=3, do_sample=False)
    together, alone = seen[0], torch.cat(seen[1:])
    assert together.shape == alone.shape
    assert float((together - alone).abs().max()) < 1e-5
    assert float((alone - alone[:1]).abs().max()) > 1e-3, "the questions' logits differ"


@pytest.mark.parametrize("prefix_cache", [False, True])
def test_logs_answered_together_get_the_answers_each_gets_alone(tiny, tmp_path: Path,
                                                                prefix_cache: bool) -> None:
    """Batches across life logs (`vlm.logs_per_batch`): two logs' questions meet in one
    padded batch (or one prefix per log), and every answer is the token sequence a separate
    request gives."""
    from xlebench.vlm.lockstep import run_lockstep
    from xlebench.vlm.transformers_backend import TransformersVLM

    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    days = [_frames(tmp_path / "a", 6), _frames(tmp_path / "b", 2)]
    questions = ["What did I do at step 3?", "Where was the red cup after lunch?",
                 "Count the dogs.", "Why?", "What did I do at step 7 of the morning routine?"]
    items = [dict(ITEM, item_id=f"i{k}", query=q) for k, q in enumerate(questions)]
    one = _tiny_vlm(tiny, tmp_path / "one", batch_size=1, device="cpu", temperature=0.0,
                    prefix_cache=False)
    alone = [EndToEnd(one, lambda log, f=f: f).respond(items, RECIPES, LOG) for f in days]
    together = _tiny_vlm(tiny, tmp_path / "two", batch_size=16, device="cpu",
                         temperature=0.0, prefix_cache=prefix_cache)
    batches = []
    padded = TransformersVLM._padded
    together._padded = lambda prompts: batches.append(len(prompts)) or padded(together,
                                                                              prompts)
    answers = run_lockstep([lambda f=f: EndToEnd(together, lambda log: f).respond(
        items, RECIPES, LOG) for f in days])
    assert answers == alone
    assert alone[0] != alone[1] and len(set(alone[0].values())) > 1, "answers vary"
    assert batches == ([] if prefix_cache else [10]), "one batch held both logs' questions"


@pytest.mark.ffmpeg
def test_the_respond_stage_answers_logs_in_waves_with_the_same_replies(
        tmp_path: Path) -> None:
    """``vlm.logs_per_batch=2``: the demo's two logs are answered together (the model's
    calls batched round by round), and every reply is the one a log-by-log run gives."""
    args = (*ARGS, "eval.captioner=vlm", "eval.e2e_frames=12",
            "eval.systems=[socratic,end_to_end]")
    replies = {}
    for n in (1, 2):
        ran = run_inprocess(tmp_path / str(n), *args, f"vlm.logs_per_batch={n}")
        assert ran.rc == 0, ran.text[-3000:]
        replies[n] = {p.parent.name: json.loads(
            p.read_text())["responses"] for p in sorted(
            (tmp_path / str(n) / "cache" / "respond").glob("*/units/*/record.json"))}
        activity = _activity(_summaries(tmp_path / str(n))[-1], "respond")
        assert (activity.get("calls batched across logs", 0) > 0) == (n == 2), activity
    assert len(replies[1]) == 4 and replies[1] == replies[2]


@pytest.mark.gpu
def test_the_tiny_vlm_on_cuda(tiny, tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    vlm = _tiny_vlm(tiny, tmp_path / "cache", batch_size=8)
    assert vlm.device == "cuda" and vlm._loaded[1].dtype == torch.bfloat16
    out = EndToEnd(vlm, lambda log: _frames(tmp_path, 8)).respond([ITEM], RECIPES, LOG)
    assert isinstance(out[ITEM["item_id"]], str)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_shared_prefix_and_batches_across_logs_on_cuda(tmp_path: Path, dtype: str) -> None:
    """On CUDA, tiny Qwen2-VL: the shared prefix (questions decoded together) and two logs
    batched together give the answers separate requests give (float32: exactly; bfloat16:
    the same for at least 7 of 8 greedy answers, batched bf16 kernels may break a near tie);
    likelihood scoring runs there too."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    from xlebench.testing.tiny_vlm import random_qwen2_vl
    from xlebench.vlm.lockstep import run_lockstep
    from xlebench.vlm.transformers_backend import TransformersVLM

    loaded = random_qwen2_vl("tiny", device="cuda", dtype=dtype, seed=3)
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    days = [_frames(tmp_path / "a", 6), _frames(tmp_path / "b", 4)]
    items = [dict(ITEM, item_id=f"i{k}", query=q) for k, q in enumerate(
        ["Why?", "Where was the red cup after lunch?", "Count the dogs.", "Step 7?"])]

    def vlm(cache: str, **kw) -> TransformersVLM:
        return TransformersVLM(TransformersVLMConfig(backend="transformers", model="q", max_tokens=5,
                                         temperature=0.0, **kw), tmp_path / cache,
                               loaded=loaded)
    one = vlm("one", batch_size=1, prefix_cache=False)
    assert one.device.startswith("cuda")
    alone = [EndToEnd(one, lambda log, f=f: f).respond(items, RECIPES, LOG) for f in days]
    for name, kw in (("shared", {}), ("padded", {"prefix_cache": False})):
        together = vlm(name, batch_size=16, **kw)
        got = run_lockstep([lambda f=f, v=together: EndToEnd(v, lambda log: f).respond(
            items, RECIPES, LOG) for f in days])
        same = sum(g[k] == a[k] for g, a in zip(got, alone, strict=True) for k in a)
        assert same == 8 if dtype == "float32" else same >= 7, (name, got, alone)
    scores = one.option_logprobs(_with_frames_request(days[0]), ["C cooks.", "C reads."])
    assert all(s < 0 for s in scores)


def _with_frames_request(frames: list[Frame]) -> list[dict]:
    from xlebench.systems.baselines.end_to_end import PROMPT, _with_frames, blocks

    return _with_frames(PROMPT, blocks(frames, LOG), question="What does C do?",
                        answer_format="One sentence.")


def _video(path: Path, seconds: int, colour: tuple[int, int, int]) -> Path:
    """A small mp4 written with PyAV (no ffmpeg binary): 2 fps, 64x48."""
    import av

    with av.open(str(path), "w") as out:
        stream = out.add_stream("mpeg4", rate=2)
        stream.width, stream.height, stream.pix_fmt = 64, 48, "yuv420p"
        for k in range(seconds * 2):
            frame = av.VideoFrame.from_image(Image.new("RGB", (64, 48), colour))
            frame.pts = k
            for packet in stream.encode(frame):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)
    return path


def test_vlm_captions_are_cached_per_source_segment(tmp_path: Path) -> None:
    media = {"v": _video(tmp_path / "v.mp4", 60, (200, 0, 0)),
             "w": _video(tmp_path / "w.mp4", 60, (0, 0, 200))}
    vlm = make_vlm(VLMConfig(backend="scripted", max_images=8), tmp_path / "vlm")
    cap = VLMCaptioner(vlm, media.__getitem__, tmp_path / "frames", FrameSpec(560, 420, 1.0),
                       tmp_path / "captions")
    caps = cap.captions(LOG)
    assert [c.virtual_s for c in caps] == [25200, 25230, 30000, 30030]
    assert caps[0].text.startswith("C is busy in the recording, seen in 8 frames from 07:00:00")
    assert vlm.live_calls == 4
    # Another log reusing video v (placed elsewhere in its day): no new caption is made.
    other = {"lifelog_id": "y-short", "segments": [dict(LOG["segments"][0], start_s=40000,
                                                       end_s=40060)]}
    moved = cap.captions(other)
    assert vlm.live_calls == 4 and [c.virtual_s for c in moved] == [40000, 40030]
    assert moved[0].text == caps[0].text, "the same segment's caption, on the new clock"


def test_the_attribute_prompt_answers_first_and_keeps_the_last_sentence(tmp_path: Path
                                                                       ) -> None:
    """``eval.caption_prompt=eval/caption_attributes.v1`` (Neptune C.2.1): the model is asked
    its attribute questions before one sentence; the caption is that sentence, the whole
    reply is kept beside it in the cache."""
    from xlebench.llm.client import Completion
    from xlebench.systems.captioners import caption_line

    asked: list[str] = []

    class Answers:
        max_images = 8

        def fingerprint(self) -> dict:
            return {"model": "answers"}

        def answer_batch(self, batch: list) -> list:
            asked.extend("".join(p for m in r for p in m["content"] if isinstance(p, str))
                         for r in batch)
            return [Completion("Mood: calm\nAction: cutting\nObjects: a knife\nPlace: a "
                               "kitchen\nPeople: nobody\nCaption: C cuts an onion in the "
                               "kitchen.", 0, 0, 0.0, False) for _ in batch]
    media = {"v": _video(tmp_path / "v.mp4", 30, (200, 0, 0))}
    log = {"lifelog_id": "x-short", "segments": [LOG["segments"][0]]}
    cap = VLMCaptioner(Answers(), media.__getitem__, tmp_path / "frames",
                       FrameSpec(560, 420, 1.0), tmp_path / "captions",
                       prompt="eval/caption_attributes.v1")
    (only,) = cap.captions(log)
    assert only.text == "C cuts an onion in the kitchen."
    assert "Question(Mood): Describe the general mood" in asked[0]
    assert "write a single sentence as caption" in asked[0]
    cached = json.loads(next((tmp_path / "captions").rglob("*.json")).read_text())
    assert cached["reply"].startswith("Mood: calm") and cached["text"] == only.text
    assert caption_line("C walks to the door.") == "C walks to the door."
    plain = VLMCaptioner(Answers(), media.__getitem__, tmp_path / "frames",
                         FrameSpec(560, 420, 1.0), tmp_path / "captions")
    assert plain.key != cap.key, "another prompt, other captions"


ARGS = ("library.n_videos=60", "matcher/embedder=hashing", "persona.locations=[Japan]",
        "persona.mbti=[INTJ,ESFP]", "render=none", "eval.bertscore=false",
        "eval.bootstrap=20")


@pytest.mark.ffmpeg
def test_every_system_runs_offline_with_the_scripted_vlm(tmp_path: Path) -> None:
    ran = run_inprocess(tmp_path, *ARGS, "eval.captioner=vlm", "eval.e2e_frames=24",
                        "eval.systems=[oracle_text_retrieval,socratic,retrieve_socratic,"
                        "end_to_end,oracle_certificate_frames]", "eval.max_logs=1")
    assert ran.rc == 0, ran.text[-3000:]
    results = tmp_path / "benchmarks" / "demo" / "results"
    assert sorted(p.name for p in results.iterdir() if p.is_dir()) == [
        "end_to_end@scripted", "oracle_certificate_frames@scripted", "oracle_text_retrieval",
        "retrieve_socratic@scripted", "socratic@scripted"]
    assert "ORACLE" in (results / "oracle_certificate_frames@scripted" / "table.md").read_text()
    md = (results / "socratic@scripted" / "table.md").read_text()
    assert "ORACLE" not in md and "Evaluated on 1 of 2 life logs" in md and "STAND-IN" in md
    assert "ORACLE" in (results / "oracle_text_retrieval" / "table.md").read_text()
    again = run_inprocess(tmp_path, *ARGS, "eval.captioner=vlm", "eval.e2e_frames=24",
                          "eval.systems=[oracle_text_retrieval,socratic,retrieve_socratic,"
                          "end_to_end]", "eval.max_logs=1", "force=[respond]")
    assert again.rc == 0
    first, second = (_activity(run, "respond") for run in _summaries(tmp_path)[-2:])
    assert first["model calls"] > 0 and first["frames"] > 0
    assert "model calls" not in second, "a second run makes no model call"
    assert 0 < second["cached replies"] <= first["model calls"] + first.get("cached replies", 0)
    assert second.get("captions", 0) == 0, "captions come from the caption cache"
    assert "respond: " in again.text


def _summaries(root: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(root.glob("runs/*/*/run_summary.json"))]


def _activity(summary: dict, stage: str) -> dict[str, int]:
    return next(s for s in summary["stages"] if s["stage"] == stage)["activity"]


@pytest.mark.slow
def test_shards_split_the_replies_and_a_last_run_merges(tmp_path: Path) -> None:
    """Two shard jobs from nothing (plan is sharded too): each does its share of plan, waits
    for the other's, then its share of respond; the merge run computes no reply."""
    args = [*ARGS, "eval.systems=[oracle_text_retrieval,end_to_end]", "eval.e2e_frames=12"]
    sweep = run_cli(tmp_path, "-m", *args, "shard.index=0,1", "shard.count=2",
                    "hydra/launcher=submitit_local", timeout=600)
    assert sweep.returncode == 0
    assert not list((tmp_path / "benchmarks").rglob("manifest.json")), "shards publish nothing"
    markers = list((tmp_path / "cache" / "respond").glob("*/done/*.json"))
    assert len(markers) == 4, "2 systems x 2 logs, each computed by exactly one shard"
    per_job = [next(s for s in summary["stages"] if s["stage"] == "respond")["done"]
               for summary in map(json.loads, (p.read_text() for p in sorted(
                   (tmp_path / "multirun").glob("*/*/*/run_summary.json"))))]
    assert per_job == [2, 2], "even shares, each job its own"
    merged = run_cli(tmp_path, *args)
    assert "respond" in merged.stderr
    summary = json.loads(sorted((tmp_path / "runs").glob("*/*/run_summary.json"))[-1]
                         .read_text())
    respond = next(s for s in summary["stages"] if s["stage"] == "respond")
    assert (respond["done"], respond["cached"]) == (0, 4)
    assert (tmp_path / "benchmarks" / "demo" / "results" / "end_to_end@scripted" / "table.md"
            ).is_file()


def test_certificate_frames_come_from_the_evidence_spans_only(monkeypatch) -> None:
    """EgoSchema's certificate chooses the frames: spread over the evidence spans in
    proportion to their lengths, labelled on the day's clock, nothing from elsewhere."""
    import xlebench.systems.frames as F

    asked: dict[str, list[float]] = {}

    def fake(media, uid, times, root, spec):
        asked[uid] = list(times)
        return {t: f"{uid}-{t}.jpg" for t in times}
    monkeypatch.setattr(F, "frames_at", fake)
    item = {"evidence": [{"video_uid": "v", "source_start_s": 10.0, "source_end_s": 20.0},
                         {"video_uid": "w", "source_start_s": 0.0, "source_end_s": 30.0}]}
    frames = F.evidence_frames(item, LOG, 8, lambda uid: Path(uid), Path("/f"), None)
    assert len(asked["v"]) == 2 and len(asked["w"]) == 6  # 10 s and 30 s of 40
    assert all(10 <= t <= 20 for t in asked["v"]) and all(0 <= t <= 30 for t in asked["w"])
    assert [f.clock for f in frames][:2] == ["07:00:12", "07:00:17"]
    assert frames == sorted(frames, key=lambda f: f.virtual_s)


def test_batches_hold_requests_of_similar_shape(tmp_path: Path) -> None:
    """Padding-aware batching: uncached requests are chunked by frames, then by length, so a
    chunk pads to requests like its own; replies come back in the callers' order."""
    from xlebench.vlm.cached import CachedVLM
    from xlebench.vlm.messages import message

    chunks: list[list[int]] = []

    class Lengths(CachedVLM):
        def _generate(self, batch):
            chunks.append([len(m[0]["content"][0]) for m in batch])
            return [str(len(m[0]["content"][0])) for m in batch]
    vlm = Lengths(VLMConfig(backend="scripted", model="x", batch_size=2), tmp_path / "c")
    lengths = [40, 3, 39, 4, 41, 2]
    out = vlm.answer_batch([[message("user", "q" * n)] for n in lengths])
    assert [c.text for c in out] == [str(n) for n in lengths]
    assert chunks == [[2, 3], [4, 39], [40, 41]]


def _compiled_equals_eager(tmp_path: Path, device: str) -> None:
    from xlebench.testing.tiny_vlm import random_qwen2_vl
    from xlebench.vlm.transformers_backend import TransformersVLM

    frames = _frames(tmp_path, 4)
    items = [dict(ITEM, item_id=f"i{k}", query=f"What did I do at step {k}?") for k in range(3)]

    def answers(cache: str, **kw) -> dict:
        vlm = TransformersVLM(TransformersVLMConfig(backend="transformers", model="q",
                                                    max_tokens=5, temperature=0.0, **kw),
                              tmp_path / cache, loaded=random_qwen2_vl(
                                  "tiny", device=device, dtype="float32", seed=3))
        return EndToEnd(vlm, lambda log: frames).respond(items, RECIPES, LOG)
    eager = answers("eager")
    assert answers("compiled", compile="blocks") == eager


@pytest.mark.slow
def test_compiled_blocks_answer_as_the_eager_model(tmp_path: Path) -> None:
    """``vlm.compile=blocks``: the vision blocks and the decoder layers' MLPs and norms
    compiled with dynamic shapes, the same greedy answers (float32, CPU)."""
    from xlebench.testing.tiny_vlm import random_qwen2_vl
    from xlebench.vlm.compiled import compile_blocks

    assert compile_blocks(object()) == 0  # another layout: left as it is
    processor, model = random_qwen2_vl("tiny", seed=3)
    layers = len(model.model.language_model.layers)
    assert compile_blocks(model) == len(model.model.visual.blocks) + 3 * layers
    _compiled_equals_eager(tmp_path, "cpu")


@pytest.mark.gpu
def test_compiled_blocks_answer_as_the_eager_model_on_cuda(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    _compiled_equals_eager(tmp_path, "cuda")
