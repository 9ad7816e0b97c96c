"""Exports of a compiled benchmark into the formats other tools read: a Hugging Face parquet
dataset with its card (`hf`), lmms-eval task folders (`lmms`), the X-LeBench release layout and
its importer (`release`, `release_import`), and the EgoSchema layout (`egoschema`)."""
