"""DocRED documents as linking worlds: held-out sentences are the context and appear in no page,
offsets point at the mention, and the gold is the first candidate of its document's entities."""

from conftest import load_script


def _mention(name, sentence, start, end, kind="PER"):
    return {"name": name, "sent_id": sentence, "pos": [start, end], "type": kind}


DOC = {
    "title": "Anna Vell",
    "sents": [["Anna", "Vell", "was", "born", "in", "Korr", "."],
              ["Vell", "rowed", "for", "New York", "."],
              ["In", "Korr", ",", "Vell", "taught", "."],
              ["It", "rained", "in", "1990", "."]],
    "vertexSet": [
        [_mention("Anna Vell", 0, 0, 2), _mention("Vell", 1, 0, 1), _mention("Vell", 2, 3, 4)],
        [_mention("Korr", 0, 5, 6, "LOC"), _mention("Korr", 2, 1, 2, "LOC")],
        [_mention("New York", 1, 3, 4, "LOC")],
        [_mention("1990", 3, 3, 4, "TIME")],
    ],
}


def test_a_document_becomes_a_world_whose_pages_hold_no_held_out_sentence():
    worlds = load_script("docred_linking_worlds")
    documents, mentions, candidates = worlds.world(DOC, 7, max_candidates=8)
    by_id = {d["document_id"]: d for d in documents}
    context = [d for d in documents if d["title"].endswith("(context)")][0]
    # Vell is held out in sentence 2 (its last); Korr's last sentence is taken, so it is not
    # queried; New York and the date have one sentence or a skipped type
    assert [m["text"] for m in mentions] == ["Vell"]
    assert context["text"] == "In Korr , Vell taught ."
    [mention] = mentions
    words = context["text"].split()
    assert words[mention["start_index"]:mention["end_index"] + 1] == ["Vell"]
    gold = by_id[mention["label_document_id"]]
    assert gold["title"] == "Anna Vell" and "taught" not in gold["text"]
    assert all("taught" not in d["text"] for d in documents if d is not context)
    assert candidates[0]["tfidf_candidates"][0] == gold["document_id"]
    titles = {by_id[i]["title"] for i in candidates[0]["tfidf_candidates"]}
    assert titles == {"Anna Vell", "Korr", "New York"}  # no page for the date


def test_a_token_with_a_space_is_counted_as_the_reader_counts_words():
    worlds = load_script("docred_linking_worlds")
    doc = {**DOC, "vertexSet": [
        [_mention("Anna Vell", 0, 0, 2), _mention("New York", 1, 3, 4, "LOC")],
        [_mention("Vell", 2, 3, 4), _mention("Anna", 1, 0, 1)],
    ]}
    documents, mentions, _ = worlds.world(doc, 0, max_candidates=8)
    context = [d for d in documents if d["title"].endswith("(context)")][0]
    for mention in mentions:
        words = context["text"].split()
        assert " ".join(words[mention["start_index"]:mention["end_index"] + 1]) == mention["text"]
    assert "New York" in [m["text"] for m in mentions]


def test_shared_name_renames_every_other_candidate_to_the_gold_and_swaps_their_mentions():
    worlds = load_script("docred_linking_worlds")
    doc = {"title": "Two rowers",
           "sents": [["Anna", "Vell", "beat", "Ola", "Dunn", "."],
                     ["Dunn", "coached", "in", "Korr", "."],
                     ["Vell", "taught", "in", "Korr", "."],
                     ["Anna", "Vell", "rowed", "."]],
           "vertexSet": [
               [_mention("Anna Vell", 0, 0, 2), _mention("Vell", 2, 0, 1),
                _mention("Anna Vell", 3, 0, 2)],
               [_mention("Ola Dunn", 0, 3, 5), _mention("Dunn", 1, 0, 1)],
               [_mention("Korr", 1, 3, 4, "LOC"), _mention("Korr", 2, 3, 4, "LOC")],
           ]}
    documents, mentions, candidates = worlds.world(doc, 3, max_candidates=3, shared_name=True)
    by_id = {d["document_id"]: d for d in documents}
    vell = next(m for m in mentions if m["text"] == "Anna Vell")
    listed = next(c["tfidf_candidates"] for c in candidates
                  if c["mention_id"] == vell["mention_id"])
    assert listed[0] == vell["label_document_id"] and len(listed) == 3
    # Vell's own page writes each mention of her as her title (sentence 2's "Vell" too)
    assert by_id[listed[0]]["text"] == ("Anna Vell Anna Vell beat Ola Dunn . "
                                        "Anna Vell taught in Korr .")
    # held out: sentence 3 for Vell, 1 for Dunn, so Dunn's page keeps sentence 0 and Korr's 2.
    # The person comes before the place, both renamed "Anna Vell", their mentions swapped with
    # hers: the renamed Dunn beat Ola Dunn, the real Vell taught in the renamed Korr
    dunn, korr = (by_id[i] for i in listed[1:])
    assert dunn["title"] == korr["title"] == "Anna Vell"
    assert dunn["text"] == "Anna Vell Ola Dunn beat Anna Vell ."
    assert korr["text"] == "Anna Vell Korr taught in Anna Vell ."
    assert all(i in by_id for i in listed)


def test_both_kinds_of_world_share_the_folder_the_main_job_trains_on(tmp_path):
    """main_job.sh appends plain and --shared-name worlds to the generated ones; neither kind
    overwrites the other, and every listed candidate is a page of its mention's world."""
    import json
    import subprocess
    import sys

    from conftest import REPO_ROOT

    source = tmp_path / "dev.json"
    source.write_text(json.dumps([DOC, {**DOC, "title": "Again"}]))
    script = REPO_ROOT / "scripts/demo_data/docred_linking_worlds.py"
    for kind in ([], ["--shared-name"]):
        subprocess.run([sys.executable, str(script), str(source), str(tmp_path / "extra"),
                        "--docs", "0", "2", "--candidates", "4", *kind], check=True)
    mentions = [json.loads(line) for line in open(tmp_path / "extra/mentions/train.json")]
    listed = {json.loads(line)["mention_id"]: json.loads(line)["tfidf_candidates"]
              for line in open(tmp_path / "extra/first_stage_candidates/train.json")}
    assert sorted(m["corpus"] for m in mentions) == [
        "docred_0000", "docred_0001", "docred_shared_0000", "docred_shared_0001"]
    for mention in mentions:
        world = tmp_path / "extra/documents" / f"{mention['corpus']}.json"
        pages = {json.loads(line)["document_id"] for line in open(world)}
        assert set(listed[mention["mention_id"]]) <= pages
        assert mention["context_document_id"] in pages
    main_job = (REPO_ROOT / "scripts/main_job.sh").read_text()
    assert 'for kind in "" --shared-name; do' in main_job
    assert 'docred_linking_worlds.py "$prose" "$LONGENT_DEMO_EXTRA"' in main_job
