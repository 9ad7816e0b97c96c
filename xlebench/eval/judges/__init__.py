"""Judges of free-form replies, and the people they stand beside.

* `xlebench.eval.judges.llm`: LLM judges (the paper's own and Neptune's), each a versioned
  prompt, as a metric beside the rule-based ones;
* `xlebench.eval.judges.dev`: the judges' development set, built from the benchmark's own
  references and perturbations of them;
* `xlebench.eval.judges.check`: a judge is used only where its F1 on that set passes
  ``eval.min_judge_f1`` (its threshold, for P(TRUE), chosen there);
* `xlebench.eval.judges.human`: the human rows — annotators against each other, and a filled
  human-evaluation sheet scored like a system.
"""
