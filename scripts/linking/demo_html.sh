#!/usr/bin/env bash
# The first demo paragraph (fixtures/zeshel_demo/paragraphs.jsonl) as a linked HTML page, and its screenshot in headless Chromium:
#   bash scripts/linking/demo_html.sh [RUN_DIR (default runs/main_job)] [PNG (default docs/linked_paragraph.png)] [OUT_DIR (default runs/demo_html)]
# Needs the main job's linker and KB (bash scripts/main_job.sh) and Chromium (apt-get install -y chromium).
# Only reads RUN_DIR (the main job's results); writes OUT_DIR/paragraph.txt, OUT_DIR/ruler
# (entity_ruler pipeline), OUT_DIR/paragraph.{jsonl,html,log} and PNG.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
bin=.venv/bin
run="${1:-runs/main_job}"
png="${2:-docs/linked_paragraph.png}"
out="${3:-runs/demo_html}"
[ -f "$run/cascade/model.tar.gz" ] || { echo "no cascade at $run/cascade (run scripts/main_job.sh)" >&2; exit 1; }
mkdir -p "$out"
"$bin/python" - "$out" <<'PY'
import sys
from pathlib import Path

import spacy

import json

# the first demo paragraph, and an entity_ruler that finds its gold spans by their text
record = json.loads(Path("fixtures/zeshel_demo/paragraphs.jsonl").read_text().splitlines()[0])
text = record["text"]
patterns = [
    {"label": e["label"], "pattern": text[e["start_char"]:e["end_char"]]} for e in record["entities"]
]
out = Path(sys.argv[1])
nlp = spacy.blank("en")
nlp.add_pipe("entity_ruler").add_patterns(patterns)
nlp.to_disk(out / "ruler")
(out / "paragraph.txt").write_text(text + "\n", encoding="utf-8")
PY
# the calibrated cascade of the main job (first stage, re-ranker weight, NIL option): one archive
"$bin/longent" link-text "$out/paragraph.txt" --model "$run/cascade/model.tar.gz" --kb "$run/kb" \
  --pipeline "$out/ruler" --top-k 64 --candidates 4 \
  --output "$out/paragraph.jsonl" --html "$out/paragraph.html" --overwrite \
  2>"$out/paragraph.log" || { tail -n 20 "$out/paragraph.log" >&2; exit 1; }
# #mention-0-1 opens the second mention's candidate box, as hovering over it would
bash scripts/linking/screenshot_html.sh "$out/paragraph.html" "$png" 1200,720 "#mention-0-1"
