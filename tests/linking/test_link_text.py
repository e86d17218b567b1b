"""``longent link-text``: a text file in, one JSON line of linked entities per text out."""

import json

import pytest
import spacy
from tiny_linker import PARAGRAPH, RULER_PATTERNS, build_tiny_linker, cascade_of

from allennlp_longent.commands.cli import main
from allennlp_longent.linking.spacy_component import NIL


@pytest.fixture(scope="session")
def linker_files(tmp_path_factory):
    return build_tiny_linker(tmp_path_factory.getbasetemp() / "tiny_linker")


@pytest.fixture
def ruler_pipeline_dir(tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("entity_ruler").add_patterns(RULER_PATTERNS)
    nlp.to_disk(tmp_path / "ruler")
    return tmp_path / "ruler"


def test_links_each_line(linker_files, ruler_pipeline_dir, tmp_path):
    archive, kb = linker_files
    (tmp_path / "in.txt").write_text(f"{PARAGRAPH}\n\nno entities here\nVell Island\n")
    main(["link-text", str(tmp_path / "in.txt"), "--model", cascade_of(archive), "--kb", str(kb),
          "--pipeline", str(ruler_pipeline_dir), "--output", str(tmp_path / "out.jsonl"),
          "--top-k", "3", "--candidates", "2", "--doc-batch-size", "2"])
    records = [json.loads(line) for line in (tmp_path / "out.jsonl").open()]
    assert [(r["line"], len(r["entities"])) for r in records] == [(1, 6), (3, 0), (4, 1)]
    assert records[2]["text"] == "Vell Island"
    mara = records[0]["entities"][0]
    assert (mara["text"], mara["start_char"], mara["end_char"]) == ("Mara Quill", 0, 10)
    assert mara["kb_id"] == "Q_MARA" and mara["probability"] == pytest.approx(1.0)
    for entity in records[0]["entities"]:
        assert len(entity["candidates"]) <= 2
        if entity["candidates"]:
            assert entity["kb_id"] == entity["candidates"][0]["id"]
            assert entity["score"] == entity["candidates"][0]["score"]
        else:
            assert (entity["kb_id"], entity["score"]) == (NIL, None)


def test_a_pipeline_without_entities_is_refused(linker_files, tmp_path):
    spacy.blank("en").to_disk(tmp_path / "blank")
    (tmp_path / "in.txt").write_text("Vell Island\n")
    with pytest.raises(SystemExit, match="has no component that sets doc.ents"):
        main(["link-text", str(tmp_path / "in.txt"), "--model", cascade_of(linker_files[0]),
              "--kb", str(linker_files[1]), "--pipeline", str(tmp_path / "blank")])


def test_kb_titles_the_pipeline_missed_are_linked_unless_mentions_are_off(linker_files, tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("entity_ruler").add_patterns([{"label": "GPE", "pattern": "Vell Island"}])
    nlp.to_disk(tmp_path / "one_name")
    (tmp_path / "in.txt").write_text("Mara Quill sails to Vell Island .\n")
    found = {}
    for flag in ("--mentions", "--no-mentions"):
        out = tmp_path / f"{flag}.jsonl"
        main(["link-text", str(tmp_path / "in.txt"), "--model", cascade_of(linker_files[0]),
              "--kb", str(linker_files[1]), "--pipeline", str(tmp_path / "one_name"),
              "--output", str(out), "--top-k", "3", flag])
        found[flag] = [(e["text"], e["label"], e["kb_id"])
                       for e in json.loads(out.read_text())["entities"]]
    assert found["--no-mentions"] == [("Vell Island", "GPE", "Q_VELL")]
    assert [e[::2] for e in found["--mentions"]] == [("Mara Quill", "Q_MARA"),
                                                     ("Vell Island", "Q_VELL")]
    assert found["--mentions"][1] == found["--no-mentions"][0]  # the pipeline's span stays
