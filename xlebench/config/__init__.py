"""Typed configuration schemas (registered in Hydra's ConfigStore) and config helpers."""
