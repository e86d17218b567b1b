"""docs/linking_walkthrough.md, "Link your own knowledge base", run end to end: its bash block,
as written, on a tiny knowledge base this test writes (one world, `{id, title, description}`
lines as `longent kb build` reads them, and zeshel mentions), then the archive from spaCy with
only ``kb`` and ``model`` set."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT

PAGE = REPO_ROOT / "docs" / "linking_walkthrough.md"
STEPS = re.compile(r"## The steps\n\n<!-- readme-test: skip [^\n]*-->\n```bash\n(.*?)```", re.S)

# (id, title, what it is); every description names two others, and those are the mentions
PLACES = [
    ("E0", "Mara Quill", "a painter of the coast"),
    ("E1", "Quill Harbour", "a fishing town"),
    ("E2", "Tollan Ferry", "a boat that carries letters"),
    ("E3", "Vell Island", "an island of cliffs"),
    ("E4", "Arbor Lighthouse", "a tower on the rocks"),
    ("E5", "Osk Velleran", "an admiral of the old navy"),
    ("E6", "Port Velleran", "a harbour named after an admiral"),
    ("E7", "Grey Sea", "the sea west of the islands"),
    ("E8", "Vell Bridge", "a stone bridge"),
    ("E9", "Osk Tower", "a watch tower"),
]


def write_knowledge_base(data: Path) -> dict:
    """``data/documents/coast.json`` and ``data/mentions/{train,val,test}.json``."""
    (data / "documents").mkdir(parents=True)
    (data / "mentions").mkdir()
    splits: dict = {"train": [], "val": [], "test": []}
    with open(data / "documents" / "coast.json", "w", encoding="utf-8") as out:
        for i, (entity, title, what) in enumerate(PLACES):
            near = [PLACES[(i + 1) % len(PLACES)], PLACES[(i + 3) % len(PLACES)]]
            words = f"{title} is {what} .".split()
            for k, (other, other_title, _) in enumerate(near):
                lead = ["It", "looks", "over"] if k == 0 else ["People", "often", "talk", "of"]
                start = len(words) + len(lead)
                words += lead + other_title.split() + ["."]
                split = "train" if i < 6 else "val" if i < 8 else "test"
                splits[split].append({
                    "mention_id": f"M{i}{k}", "corpus": "coast", "context_document_id": entity,
                    "start_index": start, "end_index": start + len(other_title.split()) - 1,
                    "label_document_id": other, "text": other_title})
            out.write(json.dumps({"id": entity, "title": title,
                                  "description": " ".join(words)}) + "\n")
    for split, mentions in splits.items():
        (data / "mentions" / f"{split}.json").write_text(
            "".join(json.dumps(m) + "\n" for m in mentions))
    return splits


def test_link_your_own_knowledge_base_end_to_end(tmp_path):
    [steps] = STEPS.findall(PAGE.read_text(encoding="utf-8"))
    splits = write_knowledge_base(tmp_path / "data")
    text = tmp_path / "text.txt"
    text.write_text("Mara Quill painted Vell Island from the deck of the Tollan Ferry .\n")
    run = tmp_path / "run"
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT), OMP_NUM_THREADS="1",
               DATA=str(tmp_path / "data"), RUN=str(run), TEXT=str(text),
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", steps], cwd=REPO_ROOT, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{done.stdout[-3000:]}\n{done.stderr[-5000:]}"

    metrics = json.loads((run / "test_metrics.json").read_text())
    assert metrics["mentions"] == len(splits["test"]) == 4
    assert metrics["chance"] == pytest.approx(1 / len(PLACES))
    assert {"cascade_right", "first_stage_right", "cross_encoder_right", "bm25_right",
            "bm25_without_own_page_right", "dense_right", "recall_first_stage_at_64"} <= set(
                metrics)
    assert "accuracy@1 with 95 % Wilson interval" in done.stdout
    links = [json.loads(line) for line in (run / "links.jsonl").read_text().splitlines()]
    assert len(links) == 1 and links[0]["text"].startswith("Mara Quill")

    import spacy

    import allennlp_longent.components  # noqa: F401

    nlp = spacy.blank("en")
    nlp.add_pipe("entity_ruler").add_patterns([{"label": "PERSON", "pattern": "Mara Quill"},
                                               {"label": "DATE", "pattern": "today"}])
    nlp.add_pipe("longent_linker", config={"kb": str(run / "kb"),
                                           "model": str(run / "cascade" / "model.tar.gz")})
    doc = nlp("Today Mara Quill painted the cliffs of Vell Island today .")
    status = {e.text: e._.longent_status for e in doc.ents}
    assert status["today"] == "skipped" and status["Mara Quill"] in ("linked", "nil")
    [mara] = [e for e in doc.ents if e.text == "Mara Quill"]
    assert mara._.longent_candidates[0]["first_stage_score"] is not None
