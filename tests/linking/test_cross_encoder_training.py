"""What the cross-encoder trains on: the reader's ``context_share`` and the generator's extra
training worlds (``make_zeshel_demo.py --extra-worlds``)."""

import json

import pytest
from allennlp.common import Params
from allennlp.data import DatasetReader
from conftest import FIXTURES, load_script

from allennlp_longent.linking.documents import read_json_lines

DEMO = FIXTURES / "zeshel_demo"


def _reader(model, max_length, **kwargs):
    tokens = {"type": "extended_pretrained_transformer", "model_name": str(model),
              "max_length": max_length}
    return DatasetReader.from_params(Params({
        "type": "zeshel", "tokenizer": dict(tokens), "token_indexers": {"tokens": dict(tokens)},
        "max_length": max_length, **kwargs}))


@pytest.mark.parametrize("share, context_side", [(0.5, 10), (0.7, 14), (0.25, 5)])
def test_context_share_splits_the_budget_when_both_sides_are_long(tiny_bert_dir, share,
                                                                   context_side):
    # max_length 23 - 3 special tokens = 20 pieces; single-piece words "a" (context), "b"
    reader = _reader(tiny_bert_dir, 23, context_share=share)
    document = {"document_id": "D", "title": "c", "text": " ".join(["b"] * 40)}
    instance = reader.text_to_instance(["a"] * 30, 12, 12, [document])
    tokens = [t.text for t in instance["pairs"].field_list[0].tokens]
    first_sep = tokens.index("[SEP]")
    assert first_sep - 1 == context_side  # [CLS] then the context side with its two markers
    assert len(tokens) - first_sep - 2 == 20 - context_side
    assert len(tokens) == 23


def test_a_short_context_still_gives_its_rest_to_the_description(tiny_bert_dir):
    reader = _reader(tiny_bert_dir, 23, context_share=0.7)
    document = {"document_id": "D", "title": "c", "text": " ".join(["b"] * 40)}
    instance = reader.text_to_instance(["a"] * 3, 1, 1, [document])
    tokens = [t.text for t in instance["pairs"].field_list[0].tokens]
    assert tokens.index("[SEP]") - 1 == 3 + 2  # three words and the two markers
    assert len(tokens) == 23


@pytest.mark.parametrize("share", [0.0, 1.0, 1.5])
def test_context_share_outside_0_1_is_a_clear_error(tiny_bert_dir, share):
    with pytest.raises(ValueError, match="context_share must lie strictly between 0 and 1"):
        _reader(tiny_bert_dir, 23, context_share=share)


@pytest.fixture(scope="module")
def extra():
    load_script("make_zeshel_demo")  # puts scripts/ on the path for the modules it imports
    return load_script("zeshel_demo_extra")


@pytest.fixture(scope="module")
def extra_worlds(extra):
    return extra.build_extra_worlds(3, 60)


def _title_words(worlds):
    words = set()
    for path in (DEMO / "documents").glob("*.json"):
        if path.stem in worlds:
            words.update(w for _, d in read_json_lines(path) for w in d["title"].split())
    return words


def test_extra_worlds_share_no_name_with_the_validation_and_test_worlds(extra_worlds):
    # names of the held-apart worlds, read from the committed files; words the training worlds
    # also use ("Hall", "Siege", "of"), guild trades and inn names (shared by every world by
    # design) are not names
    held_apart = _title_words({"frost_fjords", "lantern_isles"})
    training = _title_words({"amber_coast", "reed_rivers", "sky_isles", "salt_wastes",
                             "iron_hills"})
    text = load_script("zeshel_demo_text")
    shared = {plural.title() for _, _, plural in text.OCCUPATIONS}
    shared |= {word for inn in text.INN_NAMES for word in inn.split()}
    names = {w.strip("()") for w in held_apart - training} - shared
    assert len(names) > 40
    for world in extra_worlds:
        words = {w.strip("()") for e in world.entities for w in e.title.split()}
        words |= {w for text in world.texts.values() for w in text.split() if w[:1].isupper()}
        assert not words & names, world.names.name


def test_every_clue_quotes_a_fact_of_its_gold_alone_at_the_recorded_place(extra_worlds):
    clue_first = with_distractor = total = 0
    for world in extra_worlds:
        facts = {e.document_id: set(e.facts.values()) for e in world.entities}
        for m in world.mentions:
            words = world.texts[m.context.document_id].split()
            assert " ".join(words[m.start : m.end + 1]) == m.text
            fact = m.fact.split()
            at = m.end + 1 + m.clue_distance
            assert words[at : at + len(fact)] == fact, m.mention_id
            owners = [doc_id for doc_id, own in facts.items() if m.fact in own]
            assert owners == [m.gold.document_id]
            assert m.fact in world.texts[m.gold.document_id]
            clue_first += at < m.start
            between = " ".join(words[min(at, m.end + 1) : max(at, m.start)])
            others = (f for doc_id, own in facts.items() if doc_id != m.gold.document_id
                      for f in own)
            with_distractor += any(f in between for f in others)
            total += 1
    assert total == 180
    assert 0.1 * total < clue_first < 0.5 * total  # both orders occur
    assert with_distractor > 0.2 * total  # another entity's fact between mention and clue


def test_extra_worlds_are_reproducible_and_apart_from_the_demo(extra, tmp_path):
    first = dict(extra.extra_files(extra.build_extra_worlds(2, 30)))
    second = dict(extra.extra_files(extra.build_extra_worlds(2, 30)))
    assert first == second
    assert sorted(first) == sorted(
        [f"documents/{extra.extra_world_names(i).name}.json" for i in range(2)]
        + ["mentions/train.json"])
    records = [json.loads(line) for line in first["mentions/train.json"].splitlines()]
    assert len(records) == 60 and {r["corpus"] for r in records} == {
        extra.extra_world_names(i).name for i in range(2)}


@pytest.mark.parametrize("drop", [False, True])
def test_the_command_writes_worlds_and_bm25_negatives(tmp_path, drop):
    import argparse

    demo = load_script("make_zeshel_demo")
    args = argparse.Namespace(out=tmp_path / "extra", extra_worlds=1, mentions_per_world=30,
                              candidates=4, late=False, drop_own_page=drop, late_worlds=0,
                              seed=None)
    demo.write_extra(args)
    mentions = {m["mention_id"]: m for _, m in read_json_lines(args.out / "mentions/train.json")}
    lists = [r for _, r in read_json_lines(args.out / "tfidf_candidates/train.json")]
    assert len(lists) == len(mentions) == 30
    words = {}
    for _, document in read_json_lines(next((args.out / "documents").glob("*.json"))):
        words[document["document_id"]] = set(
            f"{document['title']} {document['text']}".lower().split())
    own = 0
    for record in lists:
        mention = mentions[record["mention_id"]]
        own += mention["context_document_id"] in record["tfidf_candidates"]
        assert 1 <= len(record["tfidf_candidates"]) <= 4
        for doc_id in record["tfidf_candidates"]:  # BM25 returns documents sharing a word
            assert words[doc_id] & set(mention["text"].lower().split())
    assert (own == 0) if drop else (own > 5)
    args.out = DEMO
    with pytest.raises(SystemExit, match="demo worlds stay as they are"):
        demo.write_extra(args)


@pytest.mark.parametrize("pieces, other, n, flags", [
    ([1, 2, 3, 4, 5], [9, 2, 3, 4, 8], 3, [0, 1, 1, 1, 0]),  # the shared trigram 2 3 4
    ([1, 2, 3, 4, 5], [9, 2, 3, 8, 4], 3, [0, 0, 0, 0, 0]),  # only a bigram is shared
    ([1, 2, 3, 2, 3], [2, 3], 2, [0, 1, 1, 1, 1]),
    ([1, 2], [1, 2], 3, [0, 0]),  # shorter than n
])
def test_shared_ngram_flags_by_hand(pieces, other, n, flags):
    from allennlp_longent.linking.dataset_readers.zeshel import shared_ngram_flags

    assert shared_ngram_flags(pieces, other, n) == flags


def test_match_ngram_marks_the_quoted_phrase_on_both_sides(tiny_bert_dir):
    reader = _reader(tiny_bert_dir, 64, match_ngram=2)
    context = "a b y w c d e z".split()  # single-piece words of the tiny vocabulary
    document = {"document_id": "D", "title": "f", "text": "g c d e k"}
    instance = reader.text_to_instance(context, 0, 0, [document])
    tokens = instance["pairs"].field_list[0].tokens
    flagged = [t.text for t in tokens if t.type_id == 1]
    # [CLS] [unused0] a [unused1] b y w c d e z [SEP] f [unused2] g c d e k [SEP]
    assert flagged == ["c", "d", "e", "c", "d", "e"]
    assert all(t.type_id in (0, 1) for t in tokens)


def test_match_ngram_needs_the_pairs_layout(tiny_bert_dir):
    with pytest.raises(ValueError, match="match_ngram needs the pairs layout"):
        _reader(tiny_bert_dir, 64, match_ngram=2, layout="separate")


def test_late_fact_worlds_put_every_fact_beyond_512_pieces_and_within_1024():
    from allennlp_longent.config_defaults import packaged_minilm
    from allennlp_longent.linking.dataset_readers.zeshel import ZeshelReader
    from allennlp_longent.modules.extended_transformer import (
        ExtendedPretrainedTransformerTokenizer,
    )

    load_script("make_zeshel_demo")
    extra = load_script("zeshel_demo_extra")
    windows = load_script("zeshel_demo_windows")
    (world,) = extra.late_fact_worlds(1, 20)
    assert world.names.name.startswith("late_000_")
    tokenizer = ExtendedPretrainedTransformerTokenizer(packaged_minilm(), max_length=1024)
    for length, expected in ((512, False), (1024, True)):
        reader = ZeshelReader(tokenizer, max_length=length)
        for mention in world.mentions:
            in_context, in_description = windows.fact_in_pair(reader, world, mention)
            assert in_context  # the clue is near the mention
            assert in_description == expected, (length, mention.mention_id)


def test_the_curve_script_counts_from_the_epoch_metrics(tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.json").write_text(json.dumps({
        "data_loader": {"batches_per_epoch": 5, "batch_size": 8},
        "validation_dataset_reader": {"top_k": 2}}))
    for epoch, accuracy in ((0, 0.25), (1, 0.75)):
        (run / f"metrics_epoch_{epoch}.json").write_text(json.dumps({
            "epoch": epoch, "validation_mentions": 4.0, "training_loss": 0.5,
            "validation_unnormalized_acc_micro": accuracy}))
    data = tmp_path / "data"
    (data / "mentions").mkdir(parents=True)
    (data / "mentions" / "val.json").write_text("".join(
        json.dumps({"mention_id": m, "label_document_id": g}) + "\n"
        for m, g in (("m1", "A"), ("m2", "B"), ("m3", "C"), ("m4", "D"))))
    candidates = tmp_path / "candidates"
    candidates.mkdir()
    (candidates / "val.json").write_text("".join(
        json.dumps({"mention_id": m, "tfidf_candidates": c}) + "\n"
        for m, c in (("m1", ["A", "X"]), ("m2", ["X", "B"]), ("m3", ["C"]), ("m4", ["X", "Y"]))))
    monkeypatch.setattr("sys.argv", ["curve", str(run), "--candidates", str(candidates),
                                     "--data", str(data)])
    load_script("cross_encoder_curve").main()
    out = capsys.readouterr().out
    assert "gold among the first 2 candidates for 3" in out
    assert "| 40 | 1/4 = 0.250 [" in out and "| 80 | 3/4 = 0.750 [" in out
    # chance: 1/2 + 1/2 + 1/1 over the mentions whose gold is a candidate; first stage: m1, m3
    assert "2.0/4 = 0.500" in out and "first stage @1 (same candidates) | 2/4 = 0.500" in out


def test_the_main_job_trains_on_the_first_stage_negatives_it_writes():
    """The main job's re-ranker reads its training negatives from the folder main_job.sh fills
    with `longent first-stage-candidates` on the generated worlds, not from BM25's lists, while
    validation still reads the demo's first-stage candidates."""
    import _jsonnet
    from conftest import REPO_ROOT

    from allennlp_longent.config_defaults import config_defaults

    defaults = config_defaults()
    config = json.loads(_jsonnet.evaluate_file(
        str(REPO_ROOT / "training_configs/zeshel/demo_minilm_extra.jsonnet"), ext_vars=defaults))
    extra = defaults["LONGENT_DEMO_EXTRA"]
    assert config["train_data_path"] == f"{extra}/mentions/train.json"
    assert config["dataset_reader"]["candidates_dir"] == f"{extra}/first_stage_candidates"
    assert config["validation_dataset_reader"]["candidates_dir"] == defaults[
        "LONGENT_DEMO_CANDIDATES"]
    script = (REPO_ROOT / "scripts/main_job.sh").read_text()
    assert ('first-stage-candidates "$run/first_stage/model.tar.gz" "$LONGENT_DEMO_EXTRA"'
            in script)
    assert '--splits train --output-dir "$LONGENT_DEMO_EXTRA/first_stage_candidates"' in script
