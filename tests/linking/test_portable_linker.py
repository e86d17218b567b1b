"""A linker archive and a spaCy pipeline moved to another directory, with the run folder and the
transformer checkpoint deleted, load in a fresh process and give the same links."""

import json
import shutil
import subprocess
import sys

import pytest
import spacy
from tiny_linker import PARAGRAPH, RULER_PATTERNS, build_tiny_linker, cascade_of

from allennlp_longent.modules.portable import TRANSFORMERS_DIR

PREDICT = """
import json, sys
from allennlp.common.util import import_module_and_submodules
from allennlp.models.archival import load_archive
from allennlp.predictors import Predictor
import_module_and_submodules("allennlp_longent")
predictor = Predictor.from_archive(load_archive(sys.argv[1]), "cross_encoder_linker")
print(json.dumps(predictor.predict_json(json.loads(sys.argv[2]))["ranked"]))
"""

LINK = """
import json, sys
import spacy
doc = spacy.load(sys.argv[1])(sys.argv[2])
print(json.dumps([[e.text, e.kb_id_, [[c["id"], c["score"]] for c in e._.longent_candidates]]
                  for e in doc.ents]))
"""

QUERY = {
    "context": "Mara Quill painted the Grey Sea from the Arbor Lighthouse .",
    "mention_start": 0,
    "mention_end": 1,
    "candidates": [
        {"document_id": "Q_MARA", "title": "Mara Quill", "text": "a painter of the sea"},
        {"document_id": "Q_GREY", "title": "Grey Sea", "text": "the sea west of Vell Island"},
    ],
}


def fresh(script: str, *args: str, cwd) -> list:
    done = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True,
                          cwd=cwd)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def moved(tmp_path_factory):
    """Links made where the linker was trained, then the archive and a saved pipeline moved
    elsewhere with everything they were made from deleted."""
    root = tmp_path_factory.mktemp("portable")
    archive, kb = build_tiny_linker(root / "train")
    nlp = spacy.blank("en")
    nlp.add_pipe("entity_ruler").add_patterns(RULER_PATTERNS)
    nlp.add_pipe("longent_linker", config={"model": cascade_of(archive), "kb": str(kb), "top_k": 3})
    links = [[e.text, e.kb_id_, [[c["id"], c["score"]] for c in e._.longent_candidates]]
             for e in nlp(PARAGRAPH).ents]
    nlp.to_disk(root / "pipeline")
    ranked = fresh(PREDICT, str(archive), json.dumps(QUERY), cwd=root)
    elsewhere = root / "elsewhere"
    elsewhere.mkdir()
    shutil.copy(archive, elsewhere / "model.tar.gz")
    shutil.move(str(root / "pipeline"), str(elsewhere / "pipeline"))
    shutil.rmtree(root / "train")
    return elsewhere, links, ranked


def test_archive_holds_the_transformer_config_and_tokenizer(moved):
    import tarfile

    with tarfile.open(moved[0] / "model.tar.gz") as archive:
        names = archive.getnames()
    copies = {name.split("/")[1] for name in names if name.startswith(TRANSFORMERS_DIR + "/")}
    assert len(copies) == 1
    copy = f"{TRANSFORMERS_DIR}/{copies.pop()}"
    assert {f"{copy}/config.json", f"{copy}/tokenizer_config.json"} <= set(names)
    assert not any(name.endswith((".safetensors", ".bin")) for name in names)  # weights.th only


def test_moved_archive_ranks_identically(moved):
    elsewhere, _, ranked = moved
    again = fresh(PREDICT, str(elsewhere / "model.tar.gz"), json.dumps(QUERY), cwd=elsewhere)
    assert [c["document_id"] for c in again] == [c["document_id"] for c in ranked]
    assert [c["score"] for c in again] == [c["score"] for c in ranked]


def test_moved_pipeline_links_identically(moved):
    elsewhere, links, _ = moved
    saved = elsewhere / "pipeline" / "longent_linker"
    assert (saved / "model.tar.gz").is_file() and (saved / "kb" / "entities.jsonl").is_file()
    assert str(elsewhere.parent) not in (saved / "cfg.json").read_text()  # no absolute path
    meta = json.loads((elsewhere / "pipeline" / "meta.json").read_text())
    assert any(r.startswith("allennlp-longent") for r in meta["requirements"])
    again = fresh(LINK, str(elsewhere / "pipeline"), PARAGRAPH, cwd=elsewhere)
    assert [(t, k, [i for i, _ in c]) for t, k, c in again] == [
        (t, k, [i for i, _ in c]) for t, k, c in links
    ]
    assert [s for *_, c in again for _, s in c] == pytest.approx(
        [s for *_, c in links for _, s in c], abs=1e-6
    )
