"""The HTML view of linked docs, read back with ``html.parser`` as a browser would parse it."""

import json
import re
from html.parser import HTMLParser
from typing import Dict, List, Optional

import pytest
import spacy
from tiny_linker import PARAGRAPH, RULER_PATTERNS, build_tiny_linker, cascade_of

from allennlp_longent.commands.cli import main
from allennlp_longent.linking.html_view import linker_kb, render_links
from allennlp_longent.linking.knowledge_base import Entity, KnowledgeBase
from allennlp_longent.linking.spacy_component import NIL

ODD_ID = "Q_ODD\"<&>"
ODD_TITLE = "Old Quay <b>\"Old\" & 'New'</b>"
ODD_DESCRIPTION = "Old Quay </p><script>alert('x')</script> & a harbour &amp; \"quotes\""
ODD_TEXT = "He wrote \"<i>hi</i>\" & 'bye' <script>x</script> at Old Quay < the Grey Sea ."
MARKUP_TAGS = {
    "html", "head", "meta", "title", "style", "body", "h1", "h2", "section", "div", "mark",
    "span", "a", "table", "tr", "th", "td", "code", "strong", "details", "summary", "p", "ol",
    "li", "em",
}
DECORATION = {"label", "kb", "tip"}  # classes of the spans that mark up a mention


class Page(HTMLParser):
    """Per doc section: the visible text, the marks and the table rows, plus every tag seen."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: List[tuple] = []
        self.tags: List[str] = []
        self.ids: set = set()
        self.hrefs: List[str] = []
        self.attribute_values: List[str] = []
        self.docs: List[dict] = []

    def _inside(self, css: str) -> Optional[dict]:
        for _, attrs in reversed(self.stack):
            if css in attrs.get("class", "").split():
                return attrs
        return None

    def handle_starttag(self, tag: str, attr_list: list) -> None:
        attrs = {key: value or "" for key, value in attr_list}
        self.tags.append(tag)
        self.attribute_values.extend(attrs.values())
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if "href" in attrs:
            self.hrefs.append(attrs["href"])
        if tag == "section":
            self.docs.append({"text": "", "marks": [], "rows": [], "heading": ""})
        elif tag == "mark":
            self.docs[-1]["marks"].append(
                {**attrs, "text": "", "label": "", "kb": "", "about": "", "tip": []})
        elif tag == "span" and "cand" in attrs.get("class", "").split():
            self.docs[-1]["marks"][-1]["tip"].append({"id": attrs["data-id"], "text": ""})
        elif tag == "tr" and "data-mention" in attrs:
            self.docs[-1]["rows"].append({"cells": [], "description": "", "candidates": []})
        elif tag == "td" and self._inside_row():
            self.docs[-1]["rows"][-1]["cells"].append("")
        elif tag == "li" and self._inside_row():
            self.docs[-1]["rows"][-1]["candidates"].append(attrs["data-id"])
        if tag not in ("meta",):
            self.stack.append((tag, attrs))

    def _inside_row(self) -> bool:
        return any(tag == "tr" and "data-mention" in attrs for tag, attrs in self.stack)

    def handle_endtag(self, tag: str) -> None:
        assert self.stack and self.stack[-1][0] == tag, (tag, self.stack[-3:])
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        if not self.docs:
            return
        doc = self.docs[-1]
        tags = [tag for tag, _ in self.stack]
        if "h2" in tags:
            doc["heading"] += data
        if self._inside("entities") is not None:
            decorated = [c for c in DECORATION if self._inside(c) is not None]
            if not decorated:
                doc["text"] += data
            if "mark" in tags:
                mark = doc["marks"][-1]
                if self._inside("ent-text") is not None:
                    mark["text"] += data
                for css in ("label", "kb", "about"):
                    if self._inside(css) is not None:
                        mark[css] += data
                if self._inside("cand") is not None:
                    mark["tip"][-1]["text"] += data
        elif self._inside_row():
            row = doc["rows"][-1]
            if "td" in tags and "details" not in tags and "code" not in tags:
                row["cells"][-1] += data
            if "p" in tags:
                row["description"] += data


def parse(page: str) -> Page:
    parser = Page()
    parser.feed(page)
    parser.close()
    assert parser.stack == [], "unclosed tags"
    return parser


def check_page(parsed: Page, docs, kb: KnowledgeBase, shown: int) -> None:
    """Every mention of every doc: position, text, label, link, title, probability, candidates,
    description; the visible text equals the doc's text; only our own markup, all offline."""
    assert set(parsed.tags) <= MARKUP_TAGS, set(parsed.tags) - MARKUP_TAGS
    assert not any(value.startswith(("http", "//")) for value in parsed.attribute_values)
    assert all(href.startswith("#") and href[1:] in parsed.ids for href in parsed.hrefs)
    assert len(parsed.docs) == len(docs)
    for doc, section in zip(docs, parsed.docs):
        assert section["text"] == doc.text
        assert len(section["marks"]) == len(section["rows"]) == len(doc.ents)
        for span, mark, row in zip(doc.ents, section["marks"], section["rows"]):
            ranked = span._.longent_candidates
            assert (int(mark["data-start"]), int(mark["data-end"])) == (span.start_char,
                                                                        span.end_char)
            assert (mark["text"], mark["label"]) == (span.text, span.label_)
            assert mark["data-kb-id"] == span.kb_id_
            assert [c["id"] for c in mark["tip"]] == [c["id"] for c in ranked[:shown]]
            for candidate, tip in zip(ranked, mark["tip"]):
                assert candidate["title"] in tip["text"]
                assert f"p {candidate['probability']:.3f}" in tip["text"]
            assert row["candidates"] == [c["id"] for c in ranked[:shown]]
            assert row["cells"][1] == span.text
            if span.kb_id_ == NIL:
                assert "nil" in mark["class"].split() and mark["kb"] == NIL
                assert row["cells"][3] == NIL and row["description"] == ""
            else:
                best = ranked[0]
                assert best["id"] == span.kb_id_
                assert mark["kb"] == f"→ {best['title']} p={best['probability']:.2f}"
                assert row["cells"][3].strip() == best["title"]
                description = kb[span.kb_id_].description
                assert row["description"] == description
                assert mark["about"] in (f"{best['title']}: {description}",
                                         f"{best['title']}: {description[:300]}…")


@pytest.fixture(scope="session")
def linker_files(tmp_path_factory):
    return build_tiny_linker(tmp_path_factory.getbasetemp() / "tiny_linker")


@pytest.fixture
def odd_kb(linker_files, tmp_path):
    """The fixture KB plus an entity whose title and description are full of markup."""
    kb = KnowledgeBase.load(linker_files[1])
    kb.add([Entity(ODD_ID, ODD_TITLE, ODD_DESCRIPTION)])
    kb.save(tmp_path / "kb")
    return tmp_path / "kb"


def pipeline(archive, kb_dir, **config):
    nlp = spacy.blank("en")
    patterns = RULER_PATTERNS + [{"label": "PLACE & <SEA>", "pattern": "the Grey Sea"},
                                 {"label": "ENTITY", "pattern": "Old Quay"}]
    nlp.add_pipe("entity_ruler").add_patterns(patterns)
    nlp.add_pipe("longent_linker",
                 config={"model": cascade_of(archive), "kb": str(kb_dir), **config})
    return nlp


def test_every_mention_its_link_candidates_and_escaping(linker_files, odd_kb):
    nlp = pipeline(linker_files[0], odd_kb, top_k=3)
    docs = list(nlp.pipe([PARAGRAPH, ODD_TEXT, "nothing to link here ."]))
    kb = linker_kb(nlp)
    page = render_links(docs, kb, candidates=2, headings=["first", "odd <h1>", "none"])
    parsed = parse(page)
    check_page(parsed, docs, kb, shown=2)
    assert [d["heading"] for d in parsed.docs] == ["first", "odd <h1>", "none"]
    linked = [e.kb_id_ for d in docs for e in d.ents]
    assert NIL in linked and len(set(linked) - {NIL}) >= 2  # both kinds are checked
    quay = [m for m in parsed.docs[1]["marks"] if m["text"] == "Old Quay"]
    assert [(m["data-kb-id"], m["kb"]) for m in quay] == [(ODD_ID, f"→ {ODD_TITLE} p=1.00")]
    assert "PLACE & <SEA>" in [m["label"] for m in parsed.docs[1]["marks"]]
    assert "<script>" not in page and "<b>" not in page and "<i>" not in page


def test_below_threshold_is_nil_with_its_candidates_shown(linker_files):
    nlp = pipeline(*linker_files, top_k=3, threshold=1.01)
    doc = nlp(PARAGRAPH)
    assert all(e.kb_id_ == NIL for e in doc.ents)
    assert any(e._.longent_candidates for e in doc.ents)
    check_page(parse(render_links(doc, linker_kb(nlp))), [doc], linker_kb(nlp), shown=5)


def test_link_text_writes_the_page(linker_files, tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("entity_ruler").add_patterns(RULER_PATTERNS)
    nlp.to_disk(tmp_path / "ruler")
    (tmp_path / "in.txt").write_text(f"{PARAGRAPH}\n\nVell Island & <Grey Sea>\n")
    main(["link-text", str(tmp_path / "in.txt"), "--model", cascade_of(linker_files[0]),
          "--kb", str(linker_files[1]), "--pipeline", str(tmp_path / "ruler"), "--top-k", "3",
          "--candidates", "2", "--output", str(tmp_path / "out.jsonl"),
          "--html", str(tmp_path / "out.html")])
    records = [json.loads(line) for line in (tmp_path / "out.jsonl").open()]
    parsed = parse((tmp_path / "out.html").read_text(encoding="utf-8"))
    assert [d["heading"] for d in parsed.docs] == ["in.txt, line 1", "in.txt, line 3"]
    for record, section in zip(records, parsed.docs):
        assert section["text"] == record["text"]
        marks: List[Dict[str, str]] = section["marks"]
        assert [(m["text"], m["data-kb-id"]) for m in marks] == [
            (e["text"], e["kb_id"]) for e in record["entities"]
        ]
        assert [[c["id"] for c in m["tip"]] for m in marks] == [
            [c["id"] for c in e["candidates"]] for e in record["entities"]
        ]


def test_bad_arguments_are_named(linker_files):
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match="no 'longent_linker' component"):
        linker_kb(nlp)
    doc = nlp("Vell Island")
    with pytest.raises(ValueError, match="2 headings for 1 docs"):
        render_links(doc, KnowledgeBase(), headings=["a", "b"])


def test_overlapping_spans_of_a_group_keep_their_rows(linker_files):
    from spacy.tokens import Span

    nlp = spacy.blank("en")
    nlp.add_pipe("longent_linker", config={"model": cascade_of(linker_files[0]),
                                           "kb": str(linker_files[1]), "spans_key": "sc"})
    doc = nlp.make_doc("Mara Quill sailed to Vell Island .")
    doc.spans["sc"] = [Span(doc, 4, 6, "PLACE"), Span(doc, 0, 2, "PERSON"), Span(doc, 1, 2, "X")]
    doc = nlp(doc)
    section = parse(render_links(doc, linker_kb(nlp), spans_key="sc")).docs[0]
    assert section["text"] == doc.text
    assert [m["text"] for m in section["marks"]] == ["Mara Quill", "Vell Island"]
    assert [r["cells"][1] for r in section["rows"]] == [
        "Mara Quill", "Quill (overlaps an earlier mention; not highlighted)", "Vell Island"
    ]
    assert section["marks"][0]["data-kb-id"] == "Q_MARA"


def _mark_of(page: str, text: str) -> str:
    marks = re.findall(r"<mark .*?</mark>", page, re.S)
    return [m for m in marks if f">{text}</span>" in m][0]  # the first of its mentions


def test_skipped_spans_are_told_apart_from_nil_decisions_and_scores_are_named(linker_files):
    nlp = spacy.blank("en")
    nlp.add_pipe("entity_ruler").add_patterns(
        RULER_PATTERNS + [{"label": "DATE", "pattern": "Every morning"}])
    config = {"model": cascade_of(linker_files[0]), "kb": str(linker_files[1]), "top_k": 3}
    nlp.add_pipe("longent_linker", config={**config, "threshold": 1.01})  # nothing reaches it
    doc = nlp(PARAGRAPH)
    status = {e.text: e._.longent_status for e in doc.ents}
    assert status["Every morning"] == "skipped" and status["Mara Quill"] == "nil"
    assert doc.ents[0]._.longent_candidates[0]["retriever"] == "bm25"
    page = render_links(doc, linker_kb(nlp))
    skipped, nil = _mark_of(page, "Every morning"), _mark_of(page, "Mara Quill")
    assert "skipped-tag" in skipped and "nil-tag" not in skipped and NIL not in skipped
    assert "nil-tag" in nil and "not linked" not in nil
    # every number of a candidate says what it is; the uncalibrated cascade has no first stage
    assert "combined score" in nil and "cross-encoder" in nil and "BM25 score" in nil
    assert "first stage" not in nil
    linked = spacy.blank("en")
    linked.add_pipe("entity_ruler").add_patterns(RULER_PATTERNS)
    linked.add_pipe("longent_linker", config=config)
    # the fixture KB has no Tollan Ferry: no candidate, a NIL decision; the others are linked
    assert {(e.text, e._.longent_status) for e in linked(PARAGRAPH).ents} == {
        ("Mara Quill", "linked"), ("Grey Sea", "linked"), ("Arbor Lighthouse", "linked"),
        ("Tollan Ferry", "nil"), ("Vell Island", "linked")}
