"""Evaluation: response parsing, exact metrics, baselines and the results table."""
