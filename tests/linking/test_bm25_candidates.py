"""BM25 candidate generation: the generator, the zeshel pipeline and ``longent bm25-candidates``."""

import json

import pytest
from conftest import FIXTURES, shared_data

from allennlp_longent.commands.cli import main
from allennlp_longent.linking.candidates import CandidateGenerator
from allennlp_longent.linking.candidates.bm25 import bm25_tokens, dice, known, same_word, variant
from allennlp_longent.linking.candidates.zeshel import ZeshelCandidates, mention_query
from allennlp_longent.linking.names import unwritten_names

ZESHEL_FIXTURE = FIXTURES / "kb" / "zeshel"


def _generator(ids, texts):
    generator = CandidateGenerator.by_name("bm25")()
    generator.index(ids, texts)
    return generator


def test_ranks_by_term_match_and_leaves_out_unrelated_documents():
    generator = _generator(
        ["cat", "dog", "both"],
        ["a cat on a mat", "a dog in the yard", "the cat chased the dog around the mat"],
    )
    [found] = generator.retrieve(["cat mat"], k=5)
    assert [c.document_id for c in found] == ["cat", "both"]
    assert found[0].score > found[1].score > 0
    assert generator.retrieve(["the of a", "zebra"], k=5) == [[], []]


def test_ties_keep_index_order_and_k_cuts():
    generator = _generator(["b", "a", "c"], ["same words", "same words", "same words"])
    assert [c.document_id for c in generator.retrieve(["same"], k=2)[0]] == ["b", "a"]
    with pytest.raises(ValueError, match="k must be positive"):
        generator.retrieve(["same"], k=0)


def test_save_and_load_give_the_same_results(tmp_path):
    generator = _generator(["x", "y", "z"], ["red apple", "green apple pie", "blue sky"])
    generator.save(tmp_path)
    loaded = CandidateGenerator.load(tmp_path)
    queries = ["apple", "sky apple", "pie"]
    assert loaded.retrieve(queries, 3) == generator.retrieve(queries, 3)
    assert loaded.document_ids() == ["x", "y", "z"]


def test_collections_without_tokens_retrieve_nothing(tmp_path):
    for ids, texts in (([], []), (["only"], ["the of"])):
        generator = _generator(ids, texts)
        assert generator.retrieve(["anything"], 3) == [[]]
        generator.save(tmp_path / str(len(ids)))
        assert CandidateGenerator.load(tmp_path / str(len(ids))).retrieve(["the"], 3) == [[]]


def test_mention_query_adds_context_on_both_sides():
    words = "w0 w1 w2 M1 M2 w5 w6".split()
    assert mention_query(words, 3, 4, 0) == "M1 M2"
    assert mention_query(words, 3, 4, 2) == "w1 w2 M1 M2 w5 w6"
    assert mention_query(words, 0, 0, 3) == "w0 w1 w2 M1"


def test_fixture_gold_is_the_top_candidate():
    results = list(ZeshelCandidates(ZESHEL_FIXTURE, top_k=2).split("train", progress=False))
    assert [r.mention_id for r in results] == ["M1", "M2", "M3"]
    for result in results:
        assert result.candidates[0].document_id == result.gold_document_id
        # each world is indexed on its own
        assert len(result.candidates) <= 2
    assert {c.document_id for c in results[2].candidates} <= {"D_OSK", "D_PELL"}


def test_bad_offsets_name_the_file_and_line():
    generator = ZeshelCandidates(ZESHEL_FIXTURE, top_k=2)
    with pytest.raises(ValueError, match=r"bad_offsets\.json:2: mention offsets \[40, 41\]"):
        list(generator.split("bad_offsets", progress=False))
    with pytest.raises(FileNotFoundError, match="no mention file for split 'nope'"):
        list(generator.split("nope", progress=False))


def test_zeshel_tiny_recall_and_agreement_with_the_published_candidates():
    data = shared_data("zeshel_tiny")
    plain = lambda: CandidateGenerator.by_name("bm25")(title_weight=0)  # noqa: E731
    results = list(ZeshelCandidates(data, top_k=3, generator=plain).split("train",
                                                                          progress=False))
    published = {
        record["mention_id"]: record["tfidf_candidates"]
        for record in map(json.loads, (data / "tfidf_candidates" / "train.json").open())
    }
    assert len(results) == 4
    for result in results:
        ids = [c.document_id for c in result.candidates]
        assert result.gold_document_id in ids
        assert ids[0] == published[result.mention_id][0]
    # the context words change the query, so they can change the ranking, never the count
    with_context = list(ZeshelCandidates(data, 3, 20).split("train", progress=False))
    assert [len(r.candidates) for r in with_context] == [3, 3, 3, 3]


def test_command_writes_candidates_deterministically(tmp_path, capsys):
    data = shared_data("zeshel_tiny")
    for run in ("a", "b"):
        main(["bm25-candidates", str(data), "--splits", "train", "val", "--top-k", "4",
              "--output-dir", str(tmp_path / run), "--no-progress"])
    for split in ("train", "val"):
        first = (tmp_path / "a" / f"{split}.json").read_text()
        assert first == (tmp_path / "b" / f"{split}.json").read_text()
        records = [json.loads(line) for line in first.splitlines()]
        assert [len(r["tfidf_candidates"]) for r in records] == [4, 4, 4, 4]
        assert set(records[0]) == {"mention_id", "tfidf_candidates"}
    printed = capsys.readouterr().out
    assert "recall@4" in printed and "starwars" in printed and "macro average" in printed
    with pytest.raises(SystemExit, match="refusing to overwrite"):
        main(["bm25-candidates", str(data), "--splits", "train",
              "--output-dir", str(tmp_path / "a"), "--no-progress"])


def test_command_reports_bad_input_without_traceback(tmp_path):
    with pytest.raises(SystemExit, match=r"bad_offsets\.json:2"):
        main(["bm25-candidates", str(ZESHEL_FIXTURE), "--splits", "bad_offsets",
              "--output-dir", str(tmp_path), "--no-progress"])


TITLED = [
    ("ship", "Edda Ambrell (ship)", "A schooner named after Edda Ambrell. The Edda Ambrell sails "
     "from Port Ambrell; Edda Ambrell carried salt."),
    ("person", "Edda Ambrell", "An inventor. She built a smokeless lamp."),
    ("sister", "Mara Ambrell", "Sister of Edda Ambrell; the Ambrell family."),
    ("riot", "the Herring Riot", "A riot in Gullhaven. Gullhaven dockers burned Gullhaven."),
    ("town", "Gullhaven", "A fishing town."),
]


def _titled(title_weight):
    generator = CandidateGenerator.by_name("bm25")(title_weight=title_weight)
    generator.index_documents([{"document_id": i, "title": t, "text": x} for i, t, x in TITLED])
    return generator


def test_an_exact_title_ranks_first_then_the_qualified_title():
    plain = [[c.document_id for c in found]
             for found in _titled(0).retrieve(["Edda Ambrell", "gullhaven"], 5)]
    # the failure the title field fixes: plain BM25 puts the repeated words first
    assert plain == [["ship", "sister", "person"], ["riot", "town"]]
    titled = _titled(1.0).retrieve(["Edda Ambrell", "gullhaven", "Edda  AMBRELL (ship)"], 5)
    assert [c.document_id for c in titled[0]] == ["person", "ship", "sister"]
    assert [c.document_id for c in titled[1]] == ["town", "riot"]
    assert titled[2][0].document_id == "ship"


def test_title_score_by_hand():
    [found] = _titled(1.0).retrieve(["Mara"], 5)  # one document holds "mara": its title
    [plain] = _titled(0).retrieve(["Mara"], 5)
    top = plain[0].score
    # dice({mara}, {mara, ambrell}) = 2/3, no tier: bm25 + 1.0 * top * 2/3
    assert [c.document_id for c in found] == ["sister"]
    assert found[0].score == pytest.approx(top + top * 2 / 3)


def test_titles_survive_save_and_load(tmp_path):
    generator = _titled(1.0)
    generator.save(tmp_path)
    loaded = CandidateGenerator.load(tmp_path)
    assert loaded.config()["title_weight"] == 1.0
    assert loaded.retrieve(["Edda Ambrell"], 3) == generator.retrieve(["Edda Ambrell"], 3)
    with pytest.raises(ValueError, match="title_weight"):
        CandidateGenerator.by_name("bm25")(title_weight=-1)


def test_accents_fold_in_the_index_and_the_query():
    generator = _generator(["fjord", "isle", "town"],
                           ["Čáhppesjávri is a lake", "Heimøy is an island", "a town by the lake"])
    assert [c.document_id for c in generator.retrieve(["Cahppesjavri"], k=5)[0]] == ["fjord"]
    assert [c.document_id for c in generator.retrieve(["Heimoy"], k=5)[0]] == ["isle"]
    assert bm25_tokens("Æsir Straße Łódź") == ["aesir", "strasse", "lodz"]


@pytest.mark.parametrize("token, word, expected", [
    ("galdetinden", "galdetind", True),  # the page's word plus a two-letter suffix
    ("ancells", "ancell", True),
    ("lavvan", "lavvann", True),  # one edit, five letters or more
    ("corranders", "corrander", True),
    ("galdetindene", "galdetind", False),  # three letters more: a compound or a suffix
    ("galdene", "galdetind", False),  # a stem of five letters
    ("klobuszycach", "klobuszyce", True),  # case endings: a stem of seven or more letters
    ("kaarnakoskella", "kaarnakoski", True),  # and at most four letters after it
    ("orvonlahteella", "orvonlahde", False),  # six letters after the stem
    ("mettwitztal", "mettwitz", False),  # one word whole at the start of the other: a compound
    ("gorglerstr", "gorglerbahn", False),  # two longer tails: a compound's second parts
    ("kourkoulakeio", "kourkoulakis", False),
    ("fjord", "fjords", True),
    ("bay", "bays", False),  # the shorter word needs five letters
    ("seyhun", "seyhoun", True),
    ("harbour", "harvest", False),
])
def test_variant(token, word, expected):
    assert variant(token, word) is expected


def test_a_name_with_a_case_ending_retrieves_its_page():
    texts = ["Kłobuszyce is a mining town", "Kłodawa is a salt town"]
    generator = _generator(["coal", "salt"], texts)
    assert generator.retrieve(["w Kłobuszycach"], k=5)[0][0].document_id == "coal"
    assert unwritten_names("Kłobuszycach", {"klobuszyce"}) == set()
    assert unwritten_names("Kłodawach", {"klobuszyce"}) == {"klodawach"}


def test_an_unknown_query_word_takes_the_indexed_words_it_is_a_variant_of():
    texts = ["Galdetind is a peak above Galde", "Galde is a village", "Sølvfjorden is a fjord"]
    generator = _generator(["peak", "village", "fjord"], texts)
    assert generator.retrieve(["Galdetinden"], k=5)[0][0].document_id == "peak"
    assert generator.retrieve(["Sølvfjord"], k=5)[0][0].document_id == "fjord"
    # a word some page writes is never expanded: "galde" does not bring in "galdetind"
    assert [c.document_id for c in generator.retrieve(["Galde"], k=5)[0]] == ["village", "peak"]
    plain = CandidateGenerator.by_name("bm25")(expand_unknown=False)
    plain.index(["peak", "village", "fjord"], texts)
    assert plain.retrieve(["Galdetinden"], k=5) == [[]]


def test_a_word_written_otherwise_retrieves_the_page_the_name_rules_say_writes_it():
    """A query word with no variant on any page (no shared start, no one-letter edit) still
    retrieves a page whose name the name rules read as the same name: romanised another way
    (vowel and consonant spellings) or the full name of a pet name."""
    texts = ["Pyinmakan is a river town", "Margaret Macrory kept the mill's books",
             "Bandar Qamar is a port"]
    generator = _generator(["town", "clerk", "port"], texts)
    assert [c.document_id for c in generator.retrieve(["Pinmakan"], k=5)[0]] == ["town"]
    assert [c.document_id for c in generator.retrieve(["Auntie Maggie"], k=5)[0]] == ["clerk"]
    assert [c.document_id for c in generator.retrieve(["Bunder Kumar"], k=5)[0]] == ["port"]
    # a name that sounds like no page's stays without candidates, and so does a short word
    assert generator.retrieve(["Ottoline"], k=5) == [[]]
    assert generator.retrieve(["Kum"], k=5) == [[]]
    # the names rules agree: the page writes both words
    assert unwritten_names("Pinmakan", {"pyinmakan"}, {"pyinmakan"}) == set()


def test_an_index_saved_before_folding_keeps_its_tokens(tmp_path):
    assert json.loads(_saved(tmp_path / "new", fold_accents=True))["folded"] is True
    # as an index written before accents were folded: unfolded tokens, no "folded", old config
    ids = json.loads(_saved(tmp_path / "old", fold_accents=False))
    ids.pop("folded")
    (tmp_path / "old" / "document_ids.json").write_text(json.dumps(ids))
    (tmp_path / "old" / "generator.json").write_text(json.dumps({"type": "bm25"}))
    old = CandidateGenerator.load(tmp_path / "old")
    assert old.fold_accents is False and old.tokens("Heimøy") == ["heimøy"]
    assert [c.document_id for c in old.retrieve(["Heimøy"], k=5)[0]] == ["isle"]


def _saved(directory, fold_accents: bool) -> str:
    generator = CandidateGenerator.by_name("bm25")(fold_accents=fold_accents)
    generator.index(["isle"], ["Heimøy is an island"])
    generator.save(directory)
    return (directory / "document_ids.json").read_text()


def test_same_word_is_stricter_than_variant_and_dice_counts_it():
    assert same_word("galdetinden", "galdetind") and same_word("lavvan", "lavvann")
    assert not same_word("port", "porter") and variant("port", "porter")  # short forms: variant
    assert same_word("seyhun", "seyhoun") and not same_word("alex", "alexander")
    assert known("lindqvists", frozenset({"lindqvist", "verft"}))
    assert not known("porter", frozenset({"port"}))
    assert dice(["galdetinden"], ["galdetind"]) == 1.0
    assert dice(["port", "ambrell"], ["porter", "ambrell"]) == 0.5


def test_a_name_clipped_at_its_front_and_a_compound_written_joined():
    from allennlp_longent.linking.candidates.bm25 import clipped_front, joined_split

    assert clipped_front("tunde", "babatunde") and clipped_front("bert", "albert")
    assert not clipped_front("tunde", "xtunde")  # one letter dropped: not a clipped name
    assert not clipped_front("ert", "albert")  # three letters are too few
    assert not clipped_front("tunda", "babatunde")
    words = {"ile", "osa", "lagoon", "il"}
    assert joined_split("ileosa", words) == ("ile", "osa")
    assert joined_split("ilosa", words) is None  # "il" is under three letters
    assert joined_split("ileosas", words) is None
    # round 27: three words joined, as a hashtag writes a name; no more than ``parts``
    words |= {"trans", "villa", "rica"}
    assert joined_split("transvillarica", words) == ("trans", "villa", "rica")
    assert joined_split("transvillarica", words, parts=2) is None
    assert joined_split("ileosavilla", words, parts=3) == ("ile", "osa", "villa")
    assert known("tunde", frozenset({"babatunde", "adewusi"}))
    assert not known("unde", frozenset({"babatunde"}))  # known clips from five letters


def test_an_unknown_word_takes_the_words_it_clips_then_the_words_it_joins():
    texts = ["Babátúndé Adéwùsì is a historian", "Ilé-Ọ̀sà is a lagoon city",
             "Tunbridge is a town"]
    generator = _generator(["historian", "city", "town"], texts)
    assert generator._query_tokens("Tunde") == ["babatunde"]
    assert generator.retrieve(["Professor Tunde"], k=5)[0][0].document_id == "historian"
    assert generator._query_tokens("Ileosa") == ["ile", "osa"]
    assert generator.retrieve(["Ileosa"], k=5)[0][0].document_id == "city"
    # a prefix variant comes first: "tunbridges" is "tunbridge", never split or clipped
    assert generator._query_tokens("Tunbridges") == ["tunbridge"]
    assert generator._query_tokens("Zyrtek") == []  # nothing to take: no candidates


def test_a_word_written_joined_counts_as_the_title_s_two_words():
    from allennlp_longent.linking.candidates.bm25 import name_match, unjoined

    assert unjoined(["ileosa", "city"], ["ile", "osa"]) == ["ile", "osa", "city"]
    assert unjoined(["ile"], ["ile", "osa"]) == ["ile"]
    assert name_match(["ileosa"], "Ileosa", "Ilé-Ọ̀sà") == (1.0, 0.0)
    assert name_match(["osaile"], "Osaile", "Ilé-Ọ̀sà") == (1.0, 0.0)  # as a bag of words
    assert name_match(["ilesa"], "Ilesa", "Ilé-Ọ̀sà") == (0.0, 0.0)  # "sa" is no title word


def test_round_26_doubled_letters_and_a_changed_first_letter():
    assert same_word("villarubias", "villarrubia")  # a doubled letter written single, a suffix
    assert same_word("tagballoc", "tagbaloc")
    assert not same_word("ada", "adda") and not same_word("anna", "ana")  # short names differ
    assert not same_word("villarubias", "villanueva")
    texts = ["Porthgarreg is a harbour town", "Cwmeurin is a quarry village",
             "Dorthea is a ship"]
    generator = _generator(["town", "village", "ship"], texts)
    # a mutation changes the first letter, which the prefix buckets would miss
    assert generator.retrieve(["Borthgarreg"], k=5)[0][0].document_id == "town"
    assert generator.retrieve(["Gwmeurin"], k=5)[0][0].document_id == "village"
    assert generator.retrieve(["Brthgarreg"], k=5) == [[]]  # two letters off: nothing
