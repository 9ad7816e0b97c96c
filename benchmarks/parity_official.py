"""Run the papers' official evaluators on the parity fixtures and print what they compute: the
expected values of `tests/eval/test_parity_vidsitu.py` and `tests/eval/test_parity_multihop.py`.

The official code is not vendored: fetch it at the commits the tests name and point this
script at the folders (the fetched trees, unchanged), e.g.::

    python benchmarks/parity_official.py vidsitu --vidsitu VidSitu/vidsitu_code \\
        --coval coval@2be2d07 --coco coco-caption@ba713bf --site extra-site-packages
    python benchmarks/parity_official.py multihop --multihop MultiHop-EgoQA/benchmark/metrics

``--coco`` is the folder holding TheShadow29/coco-caption's ``pycocoevalcap`` package, with
``meteor/meteor-1.5.jar`` and ``meteor/data/paraphrase-en.gz`` copied in from the PyPI
package (the fork's repository keeps them out of git); ``--site`` holds ``yacs`` and ``fire``
(``evl_fns`` imports them). The multihop part runs MultiHop-EgoQA's ``answering_metrics``
with PyPI's pycocoevalcap 1.2, as its requirements pin. Java must be on the PATH (Meteor).
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "eval"))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))
import parity_fixtures as fx  # noqa: E402


def _official_window(events: list[dict], annotator: int) -> dict:
    out = {}
    for k, ev in enumerate(events, start=1):
        by = ev.get("roles_by_annotator") or [ev["roles"]]
        roles = by[annotator] if annotator < len(by) else ev["roles"]
        out[f"Ev{k}"] = {"VerbID": ev["verbs_gt"][0] if ev["verbs_gt"] else "",
                         "Args": {fx.OFFICIAL_KEYS[r]: v for r, v in roles.items()}}
    return out


def vidsitu(args: argparse.Namespace) -> dict:
    sys.path[:0] = [args.coco, args.coval, args.vidsitu, *([args.site] if args.site else [])]
    import evl_fns
    from yacs.config import CfgNode

    cfg = CfgNode({"debug_mode": True})
    out = {corpus: {case: _vidsitu_case(evl_fns, cfg, fx.windows(n), case)
                    for case in fx.CASES} for corpus, n in fx.CORPORA.items()}
    out["relations"] = {case: _relations_case(evl_fns, cfg, case)
                        for case in ("perfect", "corrupted", "constant")}
    out["verbs_disagreeing"] = {case: _verbs_case(evl_fns, cfg, case) for case in fx.VERB_CASES}
    return out


def _official_verbs(events: list[dict]) -> dict:
    """An event's verbs as VidSitu's evaluator receives them: every annotator's (each
    narration pass's verbs as it names them), with their repeats."""
    return {f"Ev{k}": [v for verbs in fx.passes_of(ev) for v in verbs]
            for k, ev in enumerate(events, start=1)}


def _verbs_case(evl_fns: Any, cfg: Any, case: str) -> dict:
    windows = fx.verb_windows()
    gts = {i: _official_verbs(events) for i, events in enumerate(windows)}
    hyps = {i: {f"Ev{k}": p for k, p in enumerate(fx.verb_predictions(events, case, i),
                                                   start=1)}
            for i, events in enumerate(windows)}
    got = evl_fns.EvlFn_Vb(cfg, {}, ["acc"]).vb_classf_metrics_all(hyps, gts)
    return {k: float(got[k]) for k in ("Per_Ev_Top_1", "Per_Ev_Top_5", "recall_macro_1_th_0",
                                       "recall_macro_1_th_9", "num_vbs_thresh_9")}


def _relations_case(evl_fns: Any, cfg: Any, case: str) -> dict:
    from xlebench.tasks.vidsitu.event_relation import majority_votes

    windows = fx.relation_windows()
    fn = evl_fns.EvlFn_EvRel(cfg, {}, ["Top_1"])
    fn.read_gt_file = lambda split_type: None  # the fixtures stand in for the files
    fn.gts_dct = {i: [{f"Ev{e}": {"EvRel": v[e]} for e in v} for v in votes]
                  for i, votes in enumerate(windows)}
    preds = [fx.relation_predictions(majority_votes(votes)[0], case) for votes in windows]
    with tempfile.TemporaryDirectory() as tmp:
        pred_file = Path(tmp) / "pred.pkl"
        pred_file.write_bytes(pickle.dumps([
            # one label per annotator of the event (the same reply for each)
            {"ann_idx": i, "pred_evrels_ev": [[p[e]] * 3 for e in ("1", "2", "4", "5")]}
            for i, p in enumerate(preds)]))
        got = fn.simple_acc_evrel(str(pred_file))
    return {"Top_1": float(got["Top_1"]), "Macro_Top_1": float(got["Macro_Top_1"])}


def _vidsitu_case(evl_fns: Any, cfg: Any, windows: list[list[dict]], case: str) -> dict:
    preds = [fx.predictions(events, case, i) for i, events in enumerate(windows)]
    gts = {i: _official_verbs(events) for i, events in enumerate(windows)}
    hyps = {i: {f"Ev{k}": p["verbs"][:5] for k, p in enumerate(ps, start=1)}
            for i, ps in enumerate(preds)}
    verbs = evl_fns.EvlFn_Vb(cfg, {}, ["acc"]).vb_classf_metrics_all(hyps, gts)
    cap = evl_fns.EvalFnCap(cfg, None, met_keys=["cider", "bleu", "rouge", "meteor"])
    cap.gts_dct = {i: [_official_window(events, j) for j in range(
        max(ev["annotators"] for ev in events))] for i, events in enumerate(windows)}
    with tempfile.TemporaryDirectory() as tmp:
        pred_file = Path(tmp) / "pred.pkl"
        pred_file.write_bytes(pickle.dumps([
            {"ann_idx": i, "vb_output": {f"Ev{k}": p["roles"] for k, p in
                                         enumerate(ps, start=1)}}
            for i, ps in enumerate(preds)]))
        roles = cap.get_evals_from_hyp_gts_dcts(cap.prepare_hyp_gts(str(pred_file)))
    keep = ("cider", "MacroArg_cider", "MacroVb_cider", "bleu_1", "bleu_2", "rouge",
            "meteor", "lea", "lea_soft", "muc", "bcub", "ceafe")
    return {**{k: float(verbs[k]) for k in ("Per_Ev_Top_1", "Per_Ev_Top_5",
                                                 "recall_macro_1_th_0",
                                                 "recall_macro_1_th_9")},
                 **{k: float(roles[k]) for k in keep}}



def multihop(args: argparse.Namespace) -> dict:
    sys.path.insert(0, args.multihop)
    from answering_metrics import Bleu, Cider, Meteor, Rouge

    out = {}
    for c, case in enumerate(("perfect", "corrupted", "constant"), start=1):
        gts = {str(i): [a[0]] for i, a in enumerate(fx.ANSWERS)}
        res = {str(i): [a[c].replace("\n", "")] for i, a in enumerate(fx.ANSWERS)}
        out[case] = {"BLEU-4": Bleu(4).compute_score(gts, res)[0][3],
                     "METEOR": Meteor().compute_score(gts, res)[0],
                     "ROUGE-L": float(Rouge().compute_score(gts, res)[0]),
                     "CIDEr": float(Cider().compute_score(gts, res)[0])}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=["vidsitu", "multihop"])
    parser.add_argument("--vidsitu", help="folder of VidSitu's evl_fns.py")
    parser.add_argument("--coval", help="folder holding coval's package (2be2d07)")
    parser.add_argument("--coco", help="folder holding the coco-caption pycocoevalcap")
    parser.add_argument("--site", help="folder holding yacs and fire")
    parser.add_argument("--multihop", help="folder of MultiHop-EgoQA's answering_metrics.py")
    args = parser.parse_args()
    print(json.dumps((vidsitu if args.part == "vidsitu" else multihop)(args), indent=1,
                     sort_keys=True))


if __name__ == "__main__":
    main()
