"""End-to-end scoring of free-text sets (the spans a NER finds) and ``longent end-to-end``."""

import pytest
import spacy
from test_freetext import _tiny_set

from allennlp_longent.linking.end_to_end import SpanCounts, score
from allennlp_longent.linking.freetext import GoldSpan, Paragraph

TEXT = "Edda Ambrell met Tobias Fenn in Gullhaven on 3 May near the Herring Riot."


def _paragraph():
    def span(surface, kb_id, label):
        start = TEXT.index(surface)
        return GoldSpan(start, start + len(surface), label, kb_id, "test")

    spans = (span("Edda Ambrell", "c", "PERSON"), span("Tobias Fenn", "NIL", "PERSON"),
             span("Gullhaven", "a", "GPE"), span("3 May", None, "DATE"))
    return Paragraph(TEXT, spans, "test")


def _doc(ents):
    doc = spacy.blank("en")(TEXT)
    spans = []
    for surface, kb_id in ents:
        start = TEXT.index(surface)
        spans.append(doc.char_span(start, start + len(surface), label="X", kb_id=kb_id))
    doc.ents = spans
    return doc


def test_links_count_only_at_the_gold_offsets_by_hand():
    # right: Edda Ambrell; "Edda" alone is found nowhere; Tobias Fenn linked NIL is no link; the
    # riot is linked but is no gold span; Gullhaven is found but linked to the riot
    doc = _doc([("Edda Ambrell", "c"), ("Tobias Fenn", "NIL"), ("Gullhaven", "b"),
                ("Herring Riot", "b")])
    counts = score([doc], [_paragraph()])
    assert counts == SpanCounts(gold=2, found=2, linked=3, right=1)
    assert counts.precision() == pytest.approx(1 / 3)
    assert counts.recall() == pytest.approx(1 / 2)
    assert counts.f1() == pytest.approx(2 * (1 / 3) * (1 / 2) / (1 / 3 + 1 / 2))
    shifted = score([_doc([("Edda", "c"), ("Gullhaven", "a")])], [_paragraph()])
    assert shifted == SpanCounts(gold=2, found=1, linked=2, right=1)


def test_counts_add_up_and_a_doc_count_must_match():
    total = SpanCounts(gold=2, found=1, linked=2, right=1)
    total += SpanCounts(gold=3, found=3, linked=1, right=1)
    assert total == SpanCounts(gold=5, found=4, linked=3, right=2)
    assert SpanCounts().f1() == 0.0
    with pytest.raises(ValueError, match="1 docs for 2 paragraphs"):
        score([_doc([])], [_paragraph(), _paragraph()])


def test_command_links_what_the_ner_finds_with_and_without_longent_mentions(tmp_path, capsys):
    from allennlp_longent.commands.cli import main

    _tiny_set(tmp_path)
    main(["end-to-end", str(tmp_path)])
    rows = {line.split("  ")[1].strip(): line.split() for line in capsys.readouterr().out
            .splitlines() if "retrieval alone" in line}
    assert set(rows) == {"NER spans, retrieval alone", "longent_mentions, retrieval alone"}
    with_titles = rows["longent_mentions, retrieval alone"]
    # every title the set's paragraph writes is an entity of the doc: Edda Ambrell and the
    # two Gullhavens (the town and the riot named after it, gold 1 of 2 at the same offsets)
    found, gold = map(int, with_titles[-1].split("/"))
    assert gold == 3 and found == 3


def test_command_refuses_an_unknown_row_and_a_missing_set(tmp_path, capsys):
    from allennlp_longent.commands.cli import main

    _tiny_set(tmp_path)
    with pytest.raises(SystemExit, match="'no such row': no such row .rows: .'NER spans, retri"):
        main(["end-to-end", str(tmp_path), "--require", "no such row"])
    assert capsys.readouterr().out == ""  # refused before the NER ran
    with pytest.raises(SystemExit, match="missing"):
        main(["end-to-end", str(tmp_path / "missing")])
