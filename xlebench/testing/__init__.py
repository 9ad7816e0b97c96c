"""Test doubles shipped with the package, so tests, benchmarks and plug-in authors share them:
the scripted LLM, the loopback OpenAI-compatible server and its fault-injecting proxy, and the
tiny randomly initialised VLMs. Nothing in the pipeline imports them."""
