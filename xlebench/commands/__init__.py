"""The command-line entry points: `xlebench` (Hydra), `xlebench-score`, `xlebench-rebuild`,
`xlebench-import-release`, and the config checks they run before any work. Nothing below
imports them."""
