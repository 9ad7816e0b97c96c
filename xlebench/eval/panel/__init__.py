"""The blind panel and the floors it prints: what a system that never sees a frame reaches.

* `xlebench.eval.panel.public`: what a submitter can read besides the video — every published
  item's text, counted once (attestation, word odds), the features the learned members read;
* `xlebench.eval.panel.blind`: the panel's members run on a benchmark's items (the scorers'
  own blind strategies, learned members cross-fitted by source video), one row set per member;
* `xlebench.eval.panel.validity`: per subtask, the floor (the panel's strongest member), the
  full-information oracle, and the verdict on the gap between them.

The learned members themselves live beside the scorers they answer for
(`xlebench.eval.scorers.learned`, `xlebench.eval.scorers.sentences`).
"""
