"""LLM access for every LLM-backed component: versioned prompts, a disk response cache,
a litellm client with bounded retries and concurrency, and schema-validated JSON answers."""
