"""Pipeline stages: plain classes plugged into the runner by `xlebench.pipeline`."""
