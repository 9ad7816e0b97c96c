"""The answering side: systems that read a compiled benchmark and reply to its items.

Baselines, the full-information oracles, end-to-end VLMs, captioners and the frames they see sit
*over* the recipes (they read items and annotations) and *over* scoring; scoring
(`xlebench.eval`) never imports them.
"""
