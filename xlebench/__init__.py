"""xlebench: a Hydra-driven life-log simulator and benchmark compiler (X-LeBench, rebuilt)."""

__version__ = "0.1.0"
