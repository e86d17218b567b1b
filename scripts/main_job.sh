#!/usr/bin/env bash
# The main job on bundled data: set up, extend MiniLM to 1024 positions with E_repeat, write BM25
# candidates, train and evaluate a zero-shot linker on fixtures/zeshel_demo, print ranked links,
# then link a paragraph with spaCy against a knowledge base of the demo entities.
# Everything it writes goes to $LONGENT_RUN_DIR (default runs/main_job).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
bin=.venv/bin
run="${LONGENT_RUN_DIR:-runs/main_job}"
case "$run" in /*) ;; *) run="$(pwd)/$run" ;; esac  # absolute: archives record the model path
export LONGENT_DEMO_MODEL="$run/minilm-1024" LONGENT_DEMO_CANDIDATES="$run/candidates"
mkdir -p "$run"

echo "== 1/6 extend all-MiniLM-L6-v2 from 512 to 1024 positions (E_repeat)"
if [ ! -f "$LONGENT_DEMO_MODEL/config.json" ]; then
  minilm="$("$bin/python" -c 'from allennlp_longent.config_defaults import packaged_minilm; print(packaged_minilm())')"
  "$bin/longent" extend-positions "$minilm" "$LONGENT_DEMO_MODEL" --max-length 1024 --init repeat
else
  echo "already at $LONGENT_DEMO_MODEL"
fi

echo "== 2/6 BM25 candidates for the demo worlds"
"$bin/longent" bm25-candidates fixtures/zeshel_demo --top-k 4 --output-dir "$LONGENT_DEMO_CANDIDATES" --overwrite

echo "== 3/6 train the cross-encoder on four worlds, validate on a fifth (log: $run/train.log)"
if ! "$bin/allennlp" train training_configs/zeshel/demo_minilm.jsonnet -s "$run/linker" -f \
  --include-package allennlp_longent 2>&1 | tee "$run/train.log" | awk '
    /gradient_descent_trainer - Epoch [0-9]+\/|console_logger - +(Training|loss|normalized_acc_macro) / {
      sub(/^.* - allennlp[.a-z_]+ - /, "  "); print; fflush()
    }'; then
  tail -n 30 "$run/train.log" >&2
  echo "training failed: see $run/train.log" >&2
  exit 1
fi

echo "== 4/6 evaluate on the unseen test world (desert_caravans)"
"$bin/allennlp" evaluate "$run/linker/model.tar.gz" fixtures/zeshel_demo/mentions/test.json \
  --output-file "$run/test_metrics.json" --include-package allennlp_longent >"$run/evaluate.log" 2>&1 \
  || { tail -n 30 "$run/evaluate.log" >&2; exit 1; }

echo "== 5/6 ranked links"
"$bin/python" scripts/show_links.py "$run/linker/model.tar.gz" fixtures/zeshel_demo/mentions/test.json \
  --limit 5 --metrics "$run/test_metrics.json" 2>"$run/show_links.log" \
  || { tail -n 30 "$run/show_links.log" >&2; exit 1; }

echo "== 6/6 spaCy: entity_ruler + longent_linker on a paragraph, against a KB of the demo entities"
"$bin/longent" kb build "$run/kb" fixtures/zeshel_demo/documents/*.json --overwrite
"$bin/python" scripts/link_paragraph.py "$run/linker/model.tar.gz" "$run/kb" 2>"$run/spacy.log" \
  || { tail -n 30 "$run/spacy.log" >&2; exit 1; }
