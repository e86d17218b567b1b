#!/usr/bin/env bash
# The checks that need a CUDA device, in one short run: the versions, the CUDA tests (Long-LUKE's
# attention on the path `attention_backend: auto` takes there, and the cross-encoder trained with
# use_amp), then one BERT-base layer of Long-LUKE against dense LUKE and Hugging Face's
# LongformerLayer at 4k and 16k words, in fp32 and under bf16 autocast (about 3 minutes each on an
# H100). Logs and the benchmark's JSON go to OUT_DIR.
#
# Usage: bash scripts/checks/gpu_check.sh OUT_DIR [PYTHON]   (from the repository root, with the
# package's dependencies importable by PYTHON, default python3). PRECISIONS="bf16" runs only the
# bf16 benchmark (default "none bf16": fp32 without TF32, then bf16 autocast).
set -u
out=${1:?usage: gpu_check.sh OUT_DIR [PYTHON]}
python=${2:-python3}
mkdir -p "$out"
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"

nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv | tee "$out/env.txt"
"$python" - <<'EOF' 2>&1 | tee -a "$out/env.txt"
import sys
import torch, transformers, allennlp.version
print(f"python {sys.version.split()[0]}, torch {torch.__version__} (CUDA {torch.version.cuda}), "
      f"transformers {transformers.__version__}, allennlp {allennlp.version.VERSION}, "
      f"device {torch.cuda.get_device_name()}")
EOF

status=0
timeout 200 "$python" -m pytest -q -s -p no:cacheprovider tests/modules/test_cuda_attention.py \
    tests/linking/test_cuda_training.py 2>&1 | tee "$out/pytest.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

for precision in ${PRECISIONS:-none bf16}; do
    timeout 280 "$python" scripts/benchmarks/benchmark_long_luke.py --device cuda --repeats 5 \
        --autocast "$precision" --lengths 4096 16384 --json "$out/layer_cuda_$precision.json" \
        --no-plot 2>&1 | tee "$out/benchmark_$precision.log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
done
exit $status
