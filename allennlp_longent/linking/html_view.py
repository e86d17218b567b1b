"""Linked docs as one self-contained HTML page, in the style of spaCy's displaCy entity view.

Each mention is highlighted with its label and the entity it links to (title and probability);
hovering or focusing it shows the ranked candidates, and the title links to a row of the table
under the text, where the entity's description and every candidate are listed (``#mention-D-K``
in the address opens mention K of doc D as hovering would). ``NIL`` mentions (the linker decided
no entity fits) are marked in red; spans the linker skipped by label (dates, numbers) are marked
"not linked", apart from them. Each candidate's numbers are named: probability, combined score,
first-stage score, cross-encoder score and the retriever's own score (e.g. BM25's). The page has
inline CSS only (no script, no network) and escapes all text.

    from allennlp_longent.linking.html_view import linker_kb, render_links
    Path("links.html").write_text(render_links(docs, linker_kb(nlp)), encoding="utf-8")
"""

import zlib
from html import escape
from typing import Iterable, List, Optional, Sequence, Tuple, Union

from spacy.displacy.render import DEFAULT_LABEL_COLORS
from spacy.language import Language
from spacy.tokens import Doc, Span

from allennlp_longent.linking.knowledge_base import KnowledgeBase
from allennlp_longent.linking.spacy_component import CANDIDATES_ATTR, NIL, SKIPPED, STATUS_ATTR

# labels displaCy has no colour for get one of these, chosen by a stable hash of the label
OTHER_COLORS = ("#a8d8f0", "#f7c6a3", "#c3e6a6", "#e0c3f0", "#f5e19a", "#a9e4d7")
NIL_COLOR = "#f2f2f2"
TOOLTIP_DESCRIPTION = 300  # characters of a description shown in a title attribute
Anchors = Tuple[str, str]  # ids of a mention's mark and of its table row

STYLE = """
body { font-size: 16px; font-family: -apple-system, BlinkMacSystemFont, 'Segoe UI', Helvetica,
  Arial, sans-serif; padding: 1.5rem 2rem; color: #222; max-width: 60rem; }
h1 { font-size: 1.2rem; } h2 { font-size: 1rem; color: #555; margin-top: 2rem; }
.entities { line-height: 2.6; white-space: pre-wrap; }
mark.entity { position: relative; padding: 0.45em 0.6em; margin: 0 0.25em; line-height: 1;
  border-radius: 0.35em; white-space: nowrap; }
mark.entity:focus { outline: 2px solid #555; }
mark.nil { border: 1px dashed #999; }
.label { font-size: 0.8em; font-weight: bold; line-height: 1; vertical-align: middle;
  margin-left: 0.5rem; }
a.kb { font-size: 0.8em; line-height: 1; vertical-align: middle; margin-left: 0.4rem;
  color: #124; text-decoration: none; border-bottom: 1px dotted #124; }
a.kb.nil-tag { font-weight: bold; color: #a00; border-bottom-color: #a00; }
a.kb.skipped-tag { color: #777; border-bottom-color: #bbb; font-style: italic; }
mark.skipped { border: 1px dotted #bbb; }
.tip { display: none; position: absolute; left: 0; top: 100%; z-index: 10; margin-top: 0.3em;
  width: max-content; max-width: 24rem; padding: 0.4em 0.6em; background: #fff; color: #222;
  border: 1px solid #bbb; border-radius: 0.3em; box-shadow: 0 2px 8px rgba(0,0,0,.2);
  font-size: 0.8rem; line-height: 1.5; white-space: normal; }
.tip .row { display: block; }
.tip .about { display: block; margin-bottom: 0.3em; padding-bottom: 0.3em;
  border-bottom: 1px solid #ddd; color: #444; }
mark.entity:hover .tip, mark.entity:focus .tip, mark.entity:focus-within .tip,
mark.entity:target .tip { display: block; }
table.links { border-collapse: collapse; margin-top: 1rem; font-size: 0.85rem; width: 100%; }
table.links th, table.links td { border-top: 1px solid #ddd; padding: 0.3em 0.5em;
  text-align: left; vertical-align: top; }
table.links tr:target { background: #fff8d0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
details p { margin: 0.3em 0; max-width: 40rem; }
ol.candidates { margin: 0.3em 0; padding-left: 1.4em; }
"""


def linker_kb(nlp: Language, name: str = "longent_linker") -> KnowledgeBase:
    """The knowledge base of the pipeline's linker component (for the entity descriptions)."""
    if name not in nlp.pipe_names:
        raise ValueError(f"the pipeline has no {name!r} component (it has {nlp.pipe_names})")
    return nlp.get_pipe(name).kb


def render_links(
    docs: Union[Doc, Iterable[Doc]],
    kb: KnowledgeBase,
    *,
    spans_key: Optional[str] = None,
    candidates: int = 5,
    headings: Optional[Sequence[str]] = None,
    title: str = "Linked entities",
) -> str:
    """One HTML page for ``docs`` linked by ``longent_linker`` (``doc.ents``, or
    ``doc.spans[spans_key]``); ``candidates`` ranked candidates are shown per mention and
    ``headings`` (one per doc) title each doc's section."""
    docs = [docs] if isinstance(docs, Doc) else list(docs)
    if headings is not None and len(headings) != len(docs):
        raise ValueError(f"{len(headings)} headings for {len(docs)} docs")
    if candidates < 1:
        raise ValueError(f"candidates={candidates} must be positive")
    sections = []
    for number, doc in enumerate(docs):
        heading = headings[number] if headings is not None else f"Text {number + 1}"
        sections.append(_doc_section(doc, number, heading, kb, spans_key, candidates))
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<title>{escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        f"<h1>{escape(title)}</h1>\n" + "\n".join(sections) + "\n</body>\n</html>\n"
    )


def _spans(doc: Doc, spans_key: Optional[str]) -> List[Span]:
    if spans_key is None:
        return list(doc.ents)
    return sorted(doc.spans.get(spans_key, []), key=lambda s: (s.start_char, -s.end_char))


def _doc_section(
    doc: Doc, number: int, heading: str, kb: KnowledgeBase, spans_key: Optional[str], shown: int
) -> str:
    spans = _spans(doc, spans_key)
    pieces, rows, cursor = [], [], 0
    for k, span in enumerate(spans):
        anchor = (f"mention-{number}-{k}", f"link-{number}-{k}")
        ranked = (span._.get(CANDIDATES_ATTR) or [])[:shown]
        highlighted = span.start_char >= cursor  # overlapping spans of a group: table only
        if highlighted:
            pieces.append(escape(doc.text[cursor : span.start_char]))
            pieces.append(_mark(span, k, anchor, ranked, kb))
            cursor = span.end_char
        rows.append(_row(span, k, anchor, ranked, kb, highlighted))
    pieces.append(escape(doc.text[cursor:]))
    table = (
        "<table class=\"links\">\n<tr><th>#</th><th>mention</th><th>label</th>"
        "<th>linked entity</th><th>p</th><th>combined score</th><th>description and candidates</th>"
        "</tr>\n" + "\n".join(rows) + "\n</table>"
        if rows else "<p class=\"none\">No mentions.</p>"
    )
    return (
        f"<section class=\"doc\" id=\"doc-{number}\">\n<h2>{escape(heading)}</h2>\n"
        f"<div class=\"entities\">{''.join(pieces)}</div>\n{table}\n</section>"
    )


def _linked(span: Span, ranked: List[dict]) -> Optional[dict]:
    """The candidate ``span`` is linked to, or ``None`` for ``NIL``."""
    if span.kb_id_ in ("", NIL):
        return None
    for candidate in ranked:
        if candidate["id"] == span.kb_id_:
            return candidate
    return {"id": span.kb_id_, "title": span.kb_id_, "score": None, "probability": None}


def _label_color(label: str) -> str:
    if label in DEFAULT_LABEL_COLORS:
        return DEFAULT_LABEL_COLORS[label]
    return OTHER_COLORS[zlib.crc32(label.encode("utf-8")) % len(OTHER_COLORS)]


def _description(kb: KnowledgeBase, entity_id: str) -> str:
    return kb[entity_id].description if entity_id in kb else "(not in the knowledge base)"


def _short(text: str) -> str:
    return text if len(text) <= TOOLTIP_DESCRIPTION else text[:TOOLTIP_DESCRIPTION] + "…"


def _number(value: Optional[float], digits: int) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _skipped(span: Span) -> bool:
    return span._.get(STATUS_ATTR) == SKIPPED


def _scores(candidate: dict) -> str:
    """Every number of a candidate, each named for what it is."""
    parts = [f"p {_number(candidate.get('probability'), 3)}",
             f"combined score {_number(candidate.get('score'), 3)}"]
    if candidate.get("first_stage_score") is not None:
        parts.append(f"first stage {_number(candidate['first_stage_score'], 3)}")
    if candidate.get("rerank_score") is not None:
        parts.append(f"cross-encoder {_number(candidate['rerank_score'], 3)}")
    if candidate.get("retriever_score") is not None:
        name = str(candidate.get("retriever") or "retriever")
        parts.append(f"{name.upper() if name == 'bm25' else name} score "
                     f"{_number(candidate['retriever_score'], 2)}")
    return ", ".join(parts)


def _mark(span: Span, k: int, anchor: Anchors, ranked: List[dict], kb: KnowledgeBase) -> str:
    linked = _linked(span, ranked)
    skipped = _skipped(span)
    color = _label_color(span.label_) if linked else NIL_COLOR
    kind = "" if linked else " skipped" if skipped else " nil"
    attrs = (
        f"id=\"{anchor[0]}\" class=\"entity{kind}\" tabindex=\"0\" "
        f"style=\"background: {color}\" "
        f"data-mention=\"{k}\" data-kb-id=\"{escape(span.kb_id_ or ('' if skipped else NIL))}\" "
        f"data-start=\"{span.start_char}\" data-end=\"{span.end_char}\""
    )
    if linked:
        about = escape(_short(_description(kb, linked["id"])))
        tag = (
            f"<a class=\"kb\" href=\"#{anchor[1]}\" title=\"{about}\">"
            f"→ {escape(linked['title'])} <span class=\"p\">p={_number(linked['probability'], 2)}"
            "</span></a>"
        )
    elif skipped:
        tag = f"<a class=\"kb skipped-tag\" href=\"#{anchor[1]}\">not linked</a>"
    else:
        tag = f"<a class=\"kb nil-tag\" href=\"#{anchor[1]}\">{NIL}</a>"
    tip_rows = [
        f"<span class=\"row cand\" data-id=\"{escape(c['id'])}\">{i}. {escape(c['title'])} "
        f"— {_scores(c)}</span>"
        for i, c in enumerate(ranked, start=1)
    ] or ["<span class=\"row\">" + (f"label {escape(span.label_)} is not linked (the linker's "
                                     "skip_labels)" if skipped
                                     else "no candidate in the knowledge base") + "</span>"]
    if linked:
        tip_rows.insert(0, f"<span class=\"about\"><strong>{escape(linked['title'])}</strong>: "
                           f"{about}</span>")
    elif ranked:
        tip_rows.insert(0, f"<span class=\"about\">{NIL}: the NIL option is likelier than the "
                           "best candidate, or the best is below the threshold</span>")
    return (
        f"<mark {attrs}><span class=\"ent-text\">{escape(span.text)}</span>"
        f"<span class=\"label\">{escape(span.label_)}</span>{tag}"
        f"<span class=\"tip\">{''.join(tip_rows)}</span></mark>"
    )


def _row(
    span: Span, k: int, anchor: Anchors, ranked: List[dict], kb: KnowledgeBase, highlighted: bool
) -> str:
    linked = _linked(span, ranked)
    if linked:
        entity = f"{escape(linked['title'])} <code>{escape(linked['id'])}</code>"
        description = (f"<details><summary>description</summary>"
                       f"<p>{escape(_description(kb, linked['id']))}</p></details>")
    elif _skipped(span):
        entity = "<em>not linked</em> (label skipped)"
        description = ""
    else:
        entity = f"<strong>{NIL}</strong>"
        description = ""
    candidates = "".join(
        f"<li data-id=\"{escape(c['id'])}\" title=\"{escape(_short(_description(kb, c['id'])))}\">"
        f"{escape(c['title'])} <code>{escape(c['id'])}</code> {_scores(c)}</li>"
        for c in ranked
    )
    listing = (f"<details><summary>{len(ranked)} candidate(s)</summary>"
               f"<ol class=\"candidates\">{candidates}</ol></details>" if ranked
               else "no candidate")
    note = "" if highlighted else " <em>(overlaps an earlier mention; not highlighted)</em>"
    linked_p = linked["probability"] if linked else None
    linked_score = linked["score"] if linked else None
    return (
        f"<tr id=\"{anchor[1]}\" data-mention=\"{k}\"><td class=\"num\">"
        + (f"<a href=\"#{anchor[0]}\">{k + 1}</a>" if highlighted else str(k + 1)) + "</td>"
        f"<td>{escape(span.text)}{note}</td><td>{escape(span.label_)}</td><td>{entity}</td>"
        f"<td class=\"num\">{_number(linked_p, 3)}</td>"
        f"<td class=\"num\">{_number(linked_score, 3)}</td><td>{description}{listing}</td></tr>"
    )
