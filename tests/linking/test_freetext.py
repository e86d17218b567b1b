"""Free-text sets: the fixtures' spans and ids are checked, bad input names its line, and the
counting of accuracy and NIL precision/recall matches a hand count."""

import json
import subprocess
import sys

import pytest
import spacy
from conftest import FIXTURES, REPO_ROOT

from allennlp_longent.linking.evaluation import LinkCounts, wilson
from allennlp_longent.linking.freetext import PARAGRAPHS_FILE, gold_docs, read_paragraphs, read_set

# every set in fixtures/freetext: format checks only, so a set not yet read stays unread
SETS = tuple(sorted(p.name for p in (FIXTURES / "freetext").iterdir() if p.is_dir()))
SCRIPT = REPO_ROOT / "scripts" / "demo_data" / "freetext_from_markup.py"


@pytest.mark.parametrize("name", SETS)
def test_every_fixture_span_is_on_token_boundaries_and_names_a_kb_entity_or_nil(name):
    data = read_set(FIXTURES / "freetext" / name)  # checks offsets, texts and ids
    docs = gold_docs(spacy.blank("en"), data.paragraphs)
    ids = {e.id for e in data.entities}
    for doc, paragraph in zip(docs, data.paragraphs):
        assert [(e.start_char, e.end_char) for e in doc.ents] == [
            (s.start_char, s.end_char) for s in paragraph.spans]
    gold = data.gold()
    assert set(gold) <= ids | {"NIL"}
    assert sum(g != "NIL" for g in gold) >= (60 if name == "test" else 30)
    assert gold.count("NIL") >= 5


@pytest.mark.parametrize("name", [n for n in SETS if (FIXTURES / "freetext" / n / "markup.txt")
                                  .is_file()])
def test_a_sets_markup_converts_to_its_paragraphs(name, tmp_path):
    folder = FIXTURES / "freetext" / name
    subprocess.run([sys.executable, str(SCRIPT), str(folder / "markup.txt"),
                    str(tmp_path / "p.jsonl")], check=True, capture_output=True)
    assert ([json.loads(line) for line in (tmp_path / "p.jsonl").read_text().splitlines()]
            == [json.loads(line) for line in (folder / PARAGRAPHS_FILE).read_text().splitlines()])


def test_the_sets_share_no_entity_or_name():
    kbs = [read_set(FIXTURES / "freetext" / name).entities for name in SETS]
    for i, first in enumerate(kbs):
        for second in kbs[i + 1:]:
            assert not {e.id for e in first} & {e.id for e in second}
            assert not {e.title for e in first} & {e.title for e in second}


def _write(tmp_path, entities, text="Ann met Bo."):
    path = tmp_path / "paragraphs.jsonl"
    path.write_text(json.dumps({"text": text, "entities": entities}) + "\n")
    return path


@pytest.mark.parametrize("entity, message", [
    ({"start_char": 0, "end_char": 3, "label": "PERSON"}, "needs the fields"),
    ({"start_char": 0, "end_char": 30, "label": "PERSON", "kb_id": "a"}, r"offsets \[0, 30\)"),
    ({"start_char": 0, "end_char": 4, "label": "PERSON", "kb_id": "a"}, "ends with a space"),
    ({"start_char": 0, "end_char": 3, "label": "PERSON", "kb_id": "a", "text": "Bo"},
     "cover 'Ann', not the span's text 'Bo'"),
    ({"start_char": 0, "end_char": 3, "label": "PERSON", "kb_id": "zz"}, "'zz' .* not in the"),
])
def test_bad_spans_name_the_file_line_and_span(tmp_path, entity, message):
    path = _write(tmp_path, [entity])
    with pytest.raises(ValueError, match=rf"paragraphs\.jsonl:1: entities\[0\]: .*{message}"):
        read_paragraphs(path, {"a"})


def test_spans_out_of_order_are_refused(tmp_path):
    spans = [{"start_char": 8, "end_char": 10, "label": "PERSON", "kb_id": "a"},
             {"start_char": 0, "end_char": 3, "label": "PERSON", "kb_id": "NIL"}]
    with pytest.raises(ValueError, match=r"entities\[1\]: starts at 0"):
        read_paragraphs(_write(tmp_path, spans), {"a"})


def test_counts_by_hand():
    gold = ["a", "b", "NIL", "NIL", "c"]
    predicted = ["a", "NIL", "NIL", "b", None]  # right: a, the first NIL; None counts as NIL
    counts = LinkCounts.of(predicted, gold)
    assert (counts.total, counts.right, counts.gold_nil, counts.predicted_nil,
            counts.nil_right) == (5, 2, 2, 3, 1)
    assert counts.nil_precision() == pytest.approx(1 / 3)
    assert counts.nil_recall() == pytest.approx(1 / 2)
    assert LinkCounts.of(["a"], ["a"]).nil_precision() is None


def test_wilson_by_hand():
    # 8 of 10, z = 1.96: centre (0.8 + 0.19208) / 1.38416, half 1.96 sqrt(0.016 + 0.009604)
    # / 1.38416
    low, high = wilson(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-4)
    assert high == pytest.approx(0.9433, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)


def test_command_counts_a_tiny_set_by_hand(tmp_path, capsys):
    from allennlp_longent.commands.cli import main

    _tiny_set(tmp_path)
    main(["freetext", str(tmp_path)])
    row = [line for line in capsys.readouterr().out.splitlines() if "retrieval alone" in line][0]
    # right: Edda Ambrell (exact title), the town, Tobias Fenn (no candidate: NIL); the event
    # named after the town goes to the town. NIL: predicted once, right once, one gold NIL
    low, high = wilson(3, 4)
    assert row.split()[5:9] == ["3/4", "0.750", f"[{low:.3f},", f"{high:.3f}]"]
    assert row.split()[9:11] == ["1/1", "1/1"]


def _tiny_set(tmp_path):
    """Three entities and one paragraph of four spans (one NIL), written to ``tmp_path``."""
    entities = [("a", "Gullhaven", "A fishing town."),
                ("b", "Herring Riot", "A riot of dockers in the fishing town."),
                ("c", "Edda Ambrell", "An inventor of lamps.")]
    (tmp_path / "kb.jsonl").write_text("".join(
        json.dumps({"id": i, "title": t, "description": d}) + "\n" for i, t, d in entities))
    text = "Edda Ambrell walked to Gullhaven with Tobias Fenn. After Gullhaven the docks burned."
    spans = [("Edda Ambrell", "c", "PERSON"), ("Gullhaven", "a", "GPE"),
             ("Tobias Fenn", "NIL", "PERSON"), ("Gullhaven", "b", "EVENT")]
    found, start = [], 0
    for surface, kb_id, label in spans:
        start = text.index(surface, start)
        found.append({"start_char": start, "end_char": start + len(surface), "label": label,
                      "kb_id": kb_id})
        start += len(surface)
    (tmp_path / "paragraphs.jsonl").write_text(json.dumps({"text": text, "entities": found}))
    return tmp_path


def test_command_takes_one_cascade_archive(tmp_path, capsys):
    """``--model``: the first-stage and cascade rows come from one ``cascade_linker`` archive.
    Its NIL option scores 1000 (every candidate's probability is ~e^-1000), so both rows say NIL
    but where a span is its first candidate's bare title, which is linked over the NIL option
    (round 23): Edda Ambrell and the town are right, the riot written "Gullhaven" goes to the
    town, Tobias Fenn is NIL; 3 of 4, NIL precision 1/1 and recall 1/1."""
    from allennlp_longent.commands.cli import main
    from allennlp_longent.commands.freetext import CASCADE, FIRST_STAGE

    (tmp_path / "set").mkdir()
    data = _tiny_set(tmp_path / "set")
    model = _archive(tmp_path / "cascade.tar.gz", weight=0.0, nil_score=1000.0)
    main(["freetext", str(data), "--model", str(model)])
    lines = capsys.readouterr().out.splitlines()
    assert f"{model}: re-ranker weight 0.0, NIL score 1000.0, temperature 1.0" in lines
    low, high = wilson(3, 4)
    for name in (FIRST_STAGE, CASCADE):
        row = [line for line in lines if name in line][0].split(name, 1)[1].split()
        assert row[:6] == ["3/4", "0.750", f"[{low:.3f},", f"{high:.3f}]", "1/1", "1/1"]
    with pytest.raises(SystemExit, match="--archive, --calibration and --first-stage are gone"):
        main(["freetext", str(data), "--archive", str(model), "--calibration", "c.json"])


def test_an_archive_with_a_cross_encoder_adds_the_re_ranker_s_row(tmp_path, capsys):
    """The weight-1 row shows the trained re-ranker's own order, so it is there only when the
    archive holds one; every row links all four spans."""
    from tiny_linker import build_tiny_linker

    from allennlp_longent.commands.cli import main
    from allennlp_longent.commands.freetext import CASCADE, RERANKER

    (tmp_path / "set").mkdir()
    data = _tiny_set(tmp_path / "set")
    ranker, _ = build_tiny_linker(tmp_path / "tiny_linker")
    with_ranker = _archive(tmp_path / "with.tar.gz", str(ranker), rerank_k=2, weight=0.5)
    without = _archive(tmp_path / "without.tar.gz", weight=0.0)
    for model, rows in ((with_ranker, (CASCADE, RERANKER)), (without, (CASCADE,))):
        main(["freetext", str(data), "--model", str(model)])
        lines = capsys.readouterr().out.splitlines()
        assert [n for n in (CASCADE, RERANKER) if any(n in line for line in lines)] == list(rows)
        for name in rows:
            row = [line for line in lines if name in line][0].split(name, 1)[1].split()
            assert row[0].endswith("/4")


def _write_set(folder, entities, text, spans):
    folder.mkdir()
    (folder / "kb.jsonl").write_text("".join(json.dumps(e) + "\n" for e in entities))
    (folder / "paragraphs.jsonl").write_text(json.dumps({"text": text, "entities": spans}))
    return folder


def _archive(path, ranker=None, **settings):
    """A cascade archive with ``settings`` and no first stage (retrieval's scores)."""
    from allennlp_longent.linking.cascade import CascadeSettings
    from allennlp_longent.linking.models.cascade_linker import write_cascade_archive

    return write_cascade_archive(path, CascadeSettings(**settings), *([ranker] if ranker else []))


def _right(capsys, argv):
    """``longent freetext argv``: the right count of the retrieval, rules and cascade rows."""
    from allennlp_longent.commands.cli import main
    from allennlp_longent.commands.freetext import CASCADE, RETRIEVAL, RETRIEVAL_RULES

    main(["freetext", *argv])
    lines = capsys.readouterr().out.splitlines()
    return {name: line.split(name, 1)[1].split()[0]
            for name in (RETRIEVAL, RETRIEVAL_RULES, CASCADE) for line in lines if name in line}


def test_an_archive_with_the_unwritten_name_rule_adds_retrieval_with_the_rule(tmp_path, capsys):
    """"Petra Ambrell" is NIL: no page writes "Petra". Retrieval alone links it to Edda (1/2
    right); with the rule, alone or in the archive's cascade, both spans are right."""
    from allennlp_longent.commands.freetext import CASCADE, RETRIEVAL, RETRIEVAL_RULES

    data = _write_set(
        tmp_path / "set",
        [{"id": "c", "title": "Edda Ambrell", "description": "An inventor of lamps."}],
        "Petra Ambrell met Edda Ambrell.",
        [{"start_char": 0, "end_char": 13, "label": "PERSON", "kb_id": "NIL"},
         {"start_char": 18, "end_char": 30, "label": "PERSON", "kb_id": "c"}])
    for rule, expected in ((True, {RETRIEVAL: "1/2", RETRIEVAL_RULES: "2/2", CASCADE: "2/2"}),
                           (False, {RETRIEVAL: "1/2", RETRIEVAL_RULES: "1/2", CASCADE: "1/2"})):
        model = _archive(tmp_path / f"{rule}.tar.gz", weight=0.0, unwritten_nil=rule)
        assert _right(capsys, [str(data), "--model", str(model)]) == expected


def test_the_rules_are_on_in_every_row_but_the_first_unless_turned_off(tmp_path, capsys):
    """"Corrander" after "Wenna Corrander": the town's page writes "Corrander" most, so each
    span on its own gets 2 of 3, and 3 of 3 with name coreference or with label agreement (a
    person is no town)."""
    from allennlp_longent.commands.freetext import CASCADE, RETRIEVAL, RETRIEVAL_RULES

    data = _write_set(
        tmp_path / "set",
        [{"id": "w", "title": "Wenna Corrander", "description": "A magistrate."},
         {"id": "p", "title": "Port Corrander", "description": "Port Corrander is a town. "
          "Corrander has a quay. The Corrander harbour is deep. Corrander lies on the coast."}],
        "Wenna Corrander rewrote the code. Later Corrander sailed to Port Corrander.",
        [{"start_char": 0, "end_char": 15, "label": "PERSON", "kb_id": "w"},
         {"start_char": 40, "end_char": 49, "label": "PERSON", "kb_id": "w"},
         {"start_char": 60, "end_char": 74, "label": "GPE", "kb_id": "p"}])
    model = _archive(tmp_path / "model.tar.gz", weight=0.0)
    off = ["--no-name-coreference", "--no-label-agreement", "--no-article-agreement",
           "--no-name-agreement", "--no-descriptors"]
    for flag, expected in (([], {RETRIEVAL: "2/3", RETRIEVAL_RULES: "3/3", CASCADE: "3/3"}),
                           (off[:1], {RETRIEVAL: "2/3", RETRIEVAL_RULES: "3/3", CASCADE: "3/3"}),
                           (off[:2], {RETRIEVAL: "2/3", RETRIEVAL_RULES: "2/3", CASCADE: "2/3"}),
                           (off, {RETRIEVAL: "2/3", CASCADE: "2/3"})):
        assert _right(capsys, [str(data), "--model", str(model), *flag]) == expected


def test_article_agreement_is_on_unless_turned_off(tmp_path, capsys):
    """A name after "the": the locomotive, not the engineer whose exact title it is."""
    from allennlp_longent.commands.freetext import RETRIEVAL, RETRIEVAL_RULES

    data = _write_set(
        tmp_path / "set",
        [{"id": "p", "title": "Mary Roe", "description": "Mary Roe was an engineer. She built "
          "the railway."},
         {"id": "e", "title": "Mary Roe (locomotive)", "description": "The Mary Roe is a steam "
          "locomotive. She runs on the railway."}],
        "We rode behind the Mary Roe to the coast.",
        # a label no rule reads (CoNLL's MISC): a PRODUCT span would avoid the person by itself
        [{"start_char": 19, "end_char": 27, "label": "MISC", "kb_id": "e"}])
    assert _right(capsys, [str(data)]) == {RETRIEVAL: "0/1", RETRIEVAL_RULES: "1/1"}
    assert _right(capsys, [str(data), "--no-article-agreement"]) == {
        RETRIEVAL: "0/1", RETRIEVAL_RULES: "0/1"}


def test_name_agreement_is_on_unless_turned_off(tmp_path, capsys):
    """"L. Ambros": the page that writes Ambros most is Clara's, the title that writes the
    initial is Ludovic's; "Hohrain Tramway": the village's page writes Hohrain, the railway's
    page gives it as its old name."""
    from allennlp_longent.commands.freetext import RETRIEVAL, RETRIEVAL_RULES

    data = _write_set(
        tmp_path / "set",
        [{"id": "c", "title": "Clara Ambros", "description": "Clara Ambros was an astronomer. "
          "Ambros catalogued stars; the Ambros catalogue is famous. Her father was Ludovic."},
         {"id": "l", "title": "Ludovic Ambros", "description": "Ludovic Ambros found a comet."},
         {"id": "h", "title": "Hohrain", "description": "Hohrain is a village. Hohrain has a "
          "tramway station, and Hohrain cheese is sold there."},
         {"id": "r", "title": "Vennet Railway", "description": "A railway to the village, "
          "called the Hohrain Tramway until 1921."}],
        "The comet of L. Ambros was seen from the Hohrain Tramway.",
        [{"start_char": 13, "end_char": 22, "label": "PERSON", "kb_id": "l"},
         {"start_char": 41, "end_char": 56, "label": "ORG", "kb_id": "r"}])
    assert _right(capsys, [str(data)]) == {RETRIEVAL: "0/2", RETRIEVAL_RULES: "2/2"}
    assert _right(capsys, [str(data), "--no-name-agreement"]) == {
        RETRIEVAL: "0/2", RETRIEVAL_RULES: "0/2"}


def test_markup_becomes_spans_at_the_offsets_counted_by_hand(tmp_path):
    markup = tmp_path / "set.txt"
    markup.write_text("Ann met [Bo|PERSON|e1] in\n[May|DATE|-].\n\n[Cy|PERSON|NIL] left.\n")
    out = tmp_path / "paragraphs.jsonl"
    subprocess.run([sys.executable, str(SCRIPT), str(markup), str(out)], check=True)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows[0]["text"] == "Ann met Bo in May."
    assert rows[0]["entities"] == [
        {"start_char": 8, "end_char": 10, "label": "PERSON", "kb_id": "e1", "text": "Bo"},
        {"start_char": 14, "end_char": 17, "label": "DATE", "kb_id": None, "text": "May"}]
    assert rows[1] == {"text": "Cy left.", "entities": [
        {"start_char": 0, "end_char": 2, "label": "PERSON", "kb_id": "NIL", "text": "Cy"}]}


def test_markup_with_a_stray_bracket_names_its_line(tmp_path):
    markup = tmp_path / "set.txt"
    markup.write_text("Fine [Bo|PERSON|e1].\n\nBroken [Cy|PERSON].\n")
    run = subprocess.run([sys.executable, str(SCRIPT), str(markup), str(tmp_path / "o.jsonl")],
                         capture_output=True, text=True)
    assert run.returncode != 0 and "set.txt:3" in run.stderr


def test_a_set_becomes_a_zeshel_world_whose_offsets_point_at_the_span(tmp_path):
    data = _write_set(
        tmp_path / "set",
        [{"id": "p", "title": "Mary Roe", "description": "Mary Roe was an engineer."},
         {"id": "e", "title": "Mary Roe (locomotive)", "description": "The Mary Roe is an "
          "engine."}],
        "In May we rode behind the Mary Roe, and met Ann Vell.",
        [{"start_char": 3, "end_char": 6, "label": "DATE", "kb_id": None},
         {"start_char": 26, "end_char": 34, "label": "PRODUCT", "kb_id": "e"},
         {"start_char": 44, "end_char": 52, "label": "PERSON", "kb_id": "NIL"}])
    model = _archive(tmp_path / "model.tar.gz", weight=0.0)
    script = REPO_ROOT / "scripts" / "demo_data" / "freetext_to_zeshel.py"
    out = tmp_path / "world"
    subprocess.run([sys.executable, str(script), str(data), str(out), "--model", str(model),
                    "--split", "val", "--world", "w"], check=True, capture_output=True)
    documents = [json.loads(line) for line in (out / "documents" / "w.json").open()]
    assert [d["document_id"] for d in documents] == ["p", "e", "w-p0"]
    words = documents[2]["text"].split()
    [mention] = [json.loads(line) for line in (out / "mentions" / "val.json").open()]
    assert words[mention["start_index"]: mention["end_index"] + 1] == ["Mary", "Roe"]
    assert (mention["label_document_id"], mention["corpus"]) == ("e", "w")
    [listed] = [json.loads(line) for line in (out / "first_stage_candidates" / "val.json").open()]
    assert listed["mention_id"] == mention["mention_id"]
    assert sorted(listed["tfidf_candidates"]) == ["e", "p"]  # entities only, no paragraph


def test_several_sets_become_one_zeshel_folder_and_a_span_without_candidates_is_left_out(
        tmp_path):
    """Two sets, one folder: a world per set, all linked spans in one mentions file. "Qorvath"
    shares no word with any page, so it has no candidate; the zeshel reader refuses an empty
    list, so the span is left out and counted."""
    entities = [{"id": "p", "title": "Mary Roe", "description": "Mary Roe was an engineer."},
                {"id": "e", "title": "Mary Roe (locomotive)", "description": "The Mary Roe is "
                 "an engine."}]
    one = _write_set(tmp_path / "one", entities, "We rode behind the Mary Roe.",
                     [{"start_char": 19, "end_char": 27, "label": "PRODUCT", "kb_id": "e"}])
    two = _write_set(tmp_path / "two", entities, "Mary Roe met Qorvath.",
                     [{"start_char": 0, "end_char": 8, "label": "PERSON", "kb_id": "p"},
                      {"start_char": 13, "end_char": 20, "label": "PERSON", "kb_id": "p"}])
    model = _archive(tmp_path / "model.tar.gz", weight=0.0)
    script = REPO_ROOT / "scripts" / "demo_data" / "freetext_to_zeshel.py"
    out = tmp_path / "worlds"
    run = subprocess.run([sys.executable, str(script), str(one), str(two), str(out), "--model",
                          str(model), "--split", "train"], check=True, capture_output=True,
                         text=True)
    assert sorted(p.name for p in (out / "documents").iterdir()) == [
        "freetext_one.json", "freetext_two.json"]
    mentions = [json.loads(line) for line in (out / "mentions" / "train.json").open()]
    assert [(m["corpus"], m["text"]) for m in mentions] == [("freetext_one", "Mary Roe"),
                                                           ("freetext_two", "Mary Roe")]
    lists = [json.loads(line) for line in (out / "first_stage_candidates" / "train.json").open()]
    assert [c["mention_id"] for c in lists] == [m["mention_id"] for m in mentions]
    assert "freetext_two: 1 linked spans, gold among the first 4 for 1; 1 without any " \
        "candidate left out" in run.stdout


def test_labels_flag_says_where_the_set_s_labels_come_from(tmp_path, capsys):
    """"Nana Kokwaa" labelled PERSON, gold NIL: the lagoon's page is a place's, the fisherman's
    title writes none of the name. Set by hand (the default), the label is believed: NIL, 1/1;
    from a NER (``--labels ner``), the name is: the lagoon, 0/1."""
    from allennlp_longent.commands.freetext import CASCADE

    data = _write_set(
        tmp_path / "set",
        [{"id": "l", "title": "Kokwaa Lagoon", "description": "Kokwaa Lagoon is a lagoon. It "
          "is closed to fishing in August; the Kokwaa opens in September."},
         {"id": "k", "title": "Kobina Asmah", "description": "Kobina Asmah is a fisherman. He "
          "fishes from Kokwaa beach and he sings."}],
        "They pray to Nana Kokwaa for fish.",
        [{"start_char": 13, "end_char": 24, "label": "PERSON", "kb_id": "NIL"}])
    model = _archive(tmp_path / "model.tar.gz", weight=0.0, temperature=0.1)
    assert _right(capsys, [str(data), "--model", str(model)])[CASCADE] == "1/1"
    assert _right(capsys, [str(data), "--model", str(model), "--labels", "ner"])[CASCADE] == "0/1"
