#!/usr/bin/env bash
# The first demo paragraph (fixtures/zeshel_demo/paragraphs.jsonl) as a linked HTML page, and its screenshot in headless Chromium:
#   bash scripts/demo_html.sh [RUN_DIR (default runs/main_job)] [PNG (default docs/linked_paragraph.png)]
# Needs the main job's linker and KB (bash scripts/main_job.sh) and Chromium (apt-get install -y chromium).
# Writes RUN_DIR/paragraph.txt, RUN_DIR/ruler (entity_ruler pipeline), RUN_DIR/paragraph.{jsonl,html}.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bin=.venv/bin
run="${1:-runs/main_job}"
png="${2:-docs/linked_paragraph.png}"
[ -f "$run/cascade/model.tar.gz" ] || { echo "no cascade at $run/cascade (run scripts/main_job.sh)" >&2; exit 1; }
"$bin/python" - "$run" <<'PY'
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
run = Path(sys.argv[1])
nlp = spacy.blank("en")
nlp.add_pipe("entity_ruler").add_patterns(patterns)
nlp.to_disk(run / "ruler")
(run / "paragraph.txt").write_text(text + "\n", encoding="utf-8")
PY
rm -f "$run/paragraph.jsonl" "$run/paragraph.html"
# the calibrated cascade of the main job (first stage, re-ranker weight, NIL option): one archive
"$bin/longent" link-text "$run/paragraph.txt" --model "$run/cascade/model.tar.gz" --kb "$run/kb" \
  --pipeline "$run/ruler" --top-k 64 --candidates 4 \
  --output "$run/paragraph.jsonl" \
  --html "$run/paragraph.html" 2>"$run/paragraph.log" || { tail -n 20 "$run/paragraph.log" >&2; exit 1; }
# #mention-0-1 opens the second mention's candidate box, as hovering over it would
bash scripts/screenshot_html.sh "$run/paragraph.html" "$png" 1200,720 "#mention-0-1"
