"""Rules that reorder a span's first ``k`` candidates by its label and words against what each
page is (:mod:`~allennlp_longent.linking.kinds`). Each moves a group of those ``k`` before or
after the others, keeping each group's order, and marks the moved ones with the evidence
:mod:`~allennlp_longent.linking.label_conflict` reads; none of them decides NIL.

``type_order`` moves the candidates among the first ``k`` whose kind clashes with the span's label
(:func:`kinds.clashes`) after the others, keeping each group's order; the
NIL decision is not touched; a mention that is the bare title of exactly one of the ``k`` keeps
their order whatever its label. It was chosen on the free-text dev sets (docs/linking.md, "Labels
against pages" and round 18).

Events and works also meet their labels: ``definition_order`` puts them first for an EVENT or a
WORK_OF_ART span and after the others for a person, place or product span. A title of address
gives a gender ("Mrs Rusk"): ``gender_order`` puts the persons whose page's pronouns give the
other one after the others.

A place span also prefers, when no candidate's title is its name, a candidate whose title is its
name with a word for a kind of place ("the Oast" is the River Oast, not the Great Oast Flood):
``place_order``. An ORG span whose first candidate is no organisation prefers the organisations
whose title writes it ("Calderwick" beat Harrowfield: Calderwick RFC, not the town):
``organisation_order`` (round 22, chosen on the free-text dev sets).

A mention that is the bare title of exactly one of the first ``k`` puts it first, read with a
street abbreviation written out ("Pellow St." is Pellow Street; a first "St" is a saint):
``title_order``. The first stage weighs a title among other evidence, and on free text it put
"St Ida's Church" under the saint and "Josiah Pellow" under the engine named after him; a rule
after it (article agreement: "the Mary Roe" is no person) may still move it.

A name written with an initial ("L. Ambros") prefers, among the first ``k``, the candidates whose
title writes that initial beside that name word ("Ludovic Ambros", not "Clara Ambros"):
``initial_order`` (:func:`allennlp_longent.linking.names.initial_pairs`). A name that is no
candidate's title prefers the candidates whose page gives it as their other name ("was called the
Hohrain Tramway until 1921"): ``alias_order`` (:func:`allennlp_longent.linking.names.page_aliases`);
for a product, event or work span, not a settlement or a natural feature so called (round 43).

A common-noun span ("the fortress", "her well", "airport") names its entity by its kind: it
prefers, among the first ``k``, the candidates whose page defines them with that noun ("Qasr Tamit
is a mud-brick fortress", "A caravanserai.") or whose bare title ends with it ("Ghadamor
Airfield"): ``noun_order``. A noun no page writes ("the castle") is left to
:mod:`allennlp_longent.linking.descriptors`.

A title with a bracketed qualifier whose kind clashes with the span's label is not the span's
name: "Long Reuben" labelled PERSON is the skater known by that name, not the bare title of "Long
Reuben (song)" (:func:`kinds.qualified_against`, :func:`naming_titles`, read by the title and alias
rules).

A span labelled with a kind of ``DEFINED_KINDS`` that is a person's or a place's bare title goes to
the vessel, event or work of its label whose title writes the name (``named_after``: "Ingrid Åsland"
labelled PRODUCT is the research vessel), and a person span that is a thing's bare title to the
person whose title writes it (``_person_named``: "Brannoc" is the knight, not his sword). A LOC span
prefers the natural feature and a FAC span the built place named alike when the first candidate is
of the other kind or a settlement (``setting_order``: "Galdetind" labelled FAC is the ski resort;
since round 34 a LOC span's first candidate only needs to be no natural feature: "Sulema" labelled
LOC is the river, not the town). A name whose last word is a kind of place or body
(``kinds.named_kind``: "Skjærvik University Hospital") names no entity whose page does not write
that kind of itself (``kinds.names_other_kind``; the component makes such a span NIL). Chosen in
round 23 on the free-text dev sets (docs/linking.md, round 23). Since round 33 the kind may be said
in another language or with another English word, by the name's last word or, in a language that
writes it first, its first ("Kaarnakosken asema", "Masjid Watugilang", "Khumbuza chorus":
:mod:`kind_words`), for the order only (:func:`kinds.kind_named`), not for the NIL rule. A state's
name ("Republic of Ozodiston") names no page whose title and kind nouns do not say so, however often
a city's page writes that it lies there (``kinds.state_before_of``, round 31).

English writes no article before a person's name: "the Mary Roe" is the locomotive, "the Vell
company" the brewery. ``article_order`` moves, for a name written after "the", the candidates read
as persons whose own page does not name them after "the" ("The Mary Roe is a steam locomotive")
after the others of the first ``k``; a title or role ("the Duke of Marrowgate", "the Bishop") keeps
its order. A person span followed by a lower-case noun ("the Vane fight", "the Moura years":
:func:`kinds.modifies_noun`) is that noun's modifier, the article is the noun's, and the rule leaves
it alone when a person among the first ``k`` has a title that writes the name
(:func:`person_titled`). """
import re
from typing import TYPE_CHECKING, AbstractSet, Callable, FrozenSet, List, Optional, Sequence

from allennlp_longent.linking.candidates.bm25 import (
    bare_title,
    clips,
    fold,
    same_word,
)
from allennlp_longent.linking.definitions import (
    PERSON,
    THING,
)
from allennlp_longent.linking.kinds import (
    BUILT_NOUNS,
    DEFINED_KINDS,
    FACILITY_NOUNS,
    LAND_NOUNS,
    NATURAL_NOUNS,
    PLACE_NOUNS,
    PLACE_SPAN_LABELS,
    SETTING_NOUNS,
    SETTLEMENT_NOUNS,
    built,
    clashes,
    common_noun,
    defined_clash,
    defines,
    gender,
    holds_noun,
    kind,
    kind_named,
    kind_nouns,
    label_excludes,
    made_against,
    made_or_body,
    made_thing,
    natural,
    organisation,
    other_bearer,
    plain_title_words,
    plain_words,
    qualified_against,
    quoted,
    said_gender,
    setting_kinds,
)
from allennlp_longent.linking.names import (
    CLUB_DESIGNATORS,
    PERSON_LABELS,
    initial_pairs,
    name_words,
    page_aliases,
    spelled_out,
    title_name_words,
    title_writes,
    unwritten_on_pages,
    writes_initial,
)

if TYPE_CHECKING:
    from allennlp_longent.linking.knowledge_base import Entity

REACH_DEPTH = 16  # kind_reach looks this deep into the first stage's ranking


def is_title(mention: str, ranked: List[dict], title_of: Callable[[str], str],
             k: int) -> List[bool]:
    """Per candidate among the first ``k``: ``mention`` is its bare title (case, articles and a
    bracketed qualifier ignored)."""
    words = plain_words(mention)
    return [plain_title_words(title_of(c["id"])) == words for c in ranked[:k]]


def one_title(mention: str, ranked: List[dict], title_of: Callable[[str], str], k: int) -> bool:
    """``mention`` is the bare title of exactly one of the first ``k`` (:func:`is_title`): the
    name outweighs a label, and the label rules keep the order."""
    return sum(is_title(mention, ranked, title_of, k)) == 1


def _regroup(ranked: List[dict], k: int, flags: Sequence[bool], mark: str,
             first: bool = False, behind_clashes: bool = True) -> List[dict]:
    """``ranked`` with its first ``k`` candidates that ``flags`` marks moved after the others of
    those ``k`` (before them with ``first``), each group in its order and the moved ones marked
    ``mark``; unchanged when none or all of them are marked. Moved after, they stay before the
    others that an earlier rule moved back for clashing with the span (a mark ending in
    "clash"; round 48): "the Fox" moves the persons not named with an article after the others,
    not after the ballad that the PERSON label had put behind them all; with
    ``behind_clashes=False`` they go after those too."""
    if all(flags) or not any(flags):
        return ranked
    head, tail = ranked[:k], ranked[k:]
    moved = [{**c, mark: True} for c, x in zip(head, flags) if x]
    kept = [c for c, x in zip(head, flags) if not x]
    if first:
        return moved + kept + tail
    if not behind_clashes:
        return kept + moved + tail
    behind = [clashing(c) for c in kept]
    return ([c for c, x in zip(kept, behind) if not x] + moved
            + [c for c, x in zip(kept, behind) if x] + tail)


def clashing(candidate: dict) -> bool:
    """An earlier rule moved ``candidate`` back for clashing with the span (a mark ending in
    "clash": ``label_clash``, ``gender_clash``...)."""
    return any(key.endswith("clash") and value for key, value in candidate.items())


def naming_titles(label: Optional[str], entity_of: Callable[[str], "Entity"],
                  annotated: bool = False, bearers: AbstractSet[str] = frozenset()
                  ) -> Callable[[str], str]:
    """A ``title_of`` for the title rules of a span with ``label``: an entity's title, or "" (no
    name) for a title :func:`kinds.qualified_against` the label ("Long Reuben" labelled PERSON is
    not the bare title of "Long Reuben (song)") or, for a label set by hand (``annotated``),
    :func:`kinds.made_against` it, and for the ids of ``bearers`` (:func:`name_bearers`); every
    title as it is when ``label`` is None."""
    def title_of(entity_id: str) -> str:
        entity = entity_of(entity_id)
        against = label and (qualified_against(label, entity) or entity_id in bearers
                             or annotated and made_against(label, entity))
        return "" if against else entity.title
    return title_of


def name_bearers(label: str, mention: str, ranked: List[dict],
                 entity_of: Callable[[str], "Entity"], k: int) -> FrozenSet[str]:
    """For a span whose ``label`` was set by hand: the ids among the first ``k`` whose bare title is
    ``mention`` but whose kind ``label`` excludes (:func:`kinds.label_excludes`), when another of
    the first ``k`` that it does not exclude writes every name word of ``mention`` in its title. The
    name is shared by its bearer and a thing named after it, and the label says which: "Santa
    Iluminada" labelled FAC is the Shrine of Santa Iluminada, not the saint (round 27)."""
    words = plain_words(mention)
    entities = [entity_of(c["id"]) for c in ranked[:k]]
    bearers = frozenset(e.id for e in entities
                        if words and plain_title_words(e.title) == words
                        and label_excludes(label, e))
    if bearers and any(not label_excludes(label, e) and _title_writes(words, e.title)
                       for e in entities):
        return bearers
    return frozenset()


def made_order(label: str, ranked: List[dict], entity_of: Callable[[str], "Entity"],
               k: int) -> List[dict]:
    """``ranked`` with the candidates among the first ``k`` :func:`kinds.made_against` ``label``
    moved after the others, marked ``made_clash``; unchanged when all or none of them are."""
    return _regroup(ranked, k, [made_against(label, entity_of(c["id"])) for c in ranked[:k]],
                    "made_clash")


def type_order(label: str, ranked: List[dict], kind_of: Callable[[str], Optional[str]],
               k: int, mention: Optional[str] = None,
               title_of: Optional[Callable[[str], str]] = None) -> List[dict]:
    """``ranked`` (best first, each with an ``id``) with the clashing candidates among the first
    ``k`` moved after the others of those ``k``, marked ``label_clash``; unchanged when all or
    none of them clash, or when ``mention`` is the bare title of exactly one of them (the name
    outweighs a label: a small NER model calls "Galt Park" a person), but for a person span
    named like a thing named after a person (:func:`_person_named`)."""
    if mention is not None and title_of is not None and one_title(mention, ranked, title_of, k):
        return _person_named(mention, label, ranked, kind_of, title_of, k)
    return _regroup(ranked, k, [clashes(label, kind_of(c["id"])) for c in ranked[:k]],
                    "label_clash")


def _person_named(mention: str, label: str, ranked: List[dict],
                  kind_of: Callable[[str], Optional[str]], title_of: Callable[[str], str],
                  k: int) -> List[dict]:
    """For a person span that is the bare title of a thing among the first ``k``: the persons
    among them whose title writes every name word of the mention go first, marked
    ``person_title``. A sword, a ship or a hospital named after a person is written with the
    name alone ("Brannoc" labelled PERSON is Sir Brannoc Hale, not his sword Brannoc)."""
    if label not in PERSON_LABELS:
        return ranked
    titled = is_title(mention, ranked, title_of, k)
    if not any(t and kind_of(c["id"]) == THING for t, c in zip(titled, ranked)):
        return ranked
    words = [token for token, _ in name_words(mention)]
    flags = [bool(words) and kind_of(c["id"]) == PERSON and _title_writes(words, title_of(c["id"]))
             for c in ranked[:k]]
    return _regroup(ranked, k, flags, "person_title", first=True)


def _title_writes(words: Sequence[str], title: str) -> bool:
    """Every one of the name words ``words`` is a name word of ``title``
    (:func:`~allennlp_longent.linking.names.title_writes`)."""
    return all(title_writes(words, title))


def article_order(ranked: List[dict], kind_of: Callable[[str], Optional[str]],
                  with_article: Callable[[str], bool], k: int) -> List[dict]:
    """For a name written after "the": ``ranked`` with the candidates among the first ``k`` read
    as persons and not named with an article on their own page moved after the others of those
    ``k``, marked ``article_clash``; unchanged when all or none of them are such persons."""
    clash = [kind_of(c["id"]) == PERSON and not with_article(c["id"]) for c in ranked[:k]]
    return _regroup(ranked, k, clash, "article_clash")


def person_titled(mention: str, ranked: List[dict], entity_of: Callable[[str], "Entity"],
                  k: int) -> bool:
    """One of the first ``k`` candidates is read as a person (:func:`kinds.kind`) and its bare title
    writes every name word of ``mention`` ("Vane": Aldric Vane)."""
    words = {t for t, _ in name_words(mention)}
    if not words:
        return False
    for candidate in ranked[:k]:
        entity = entity_of(candidate["id"])
        if kind(entity) == PERSON and words <= title_name_words(entity.title):
            return True
    return False


# what a place span may add to a place's bare title ("Kagamihama City", "Galdetind summit")
_PLACE_SUFFIXES = frozenset("city town village summit peak".split())


def place_order(mention: str, label: str, ranked: List[dict], title_of: Callable[[str], str],
                k: int) -> List[dict]:
    """For a place span (``PLACE_SPAN_LABELS``) that is no candidate's bare title among the first
    ``k``: the candidates whose bare title is the mention's words and words of ``PLACE_NOUNS``,
    or the mention's words but a "City" or a "summit" (``_PLACE_SUFFIXES``), go first, marked
    ``place_title``; unchanged when none or all of them are such. A title whose
    bracketed qualifier is no place word names another bearer of the name ("Mirren (opera)" is
    not the bare title of "the Mirren" labelled LOC: Lake Mirren is)."""
    if label not in PLACE_SPAN_LABELS:
        return ranked
    words = plain_words(mention)
    full = [title_of(c["id"]) for c in ranked[:k]]
    titles = [plain_title_words(title) for title in full]
    named = [title for title, whole in zip(titles, full) if not other_bearer(whole)]
    if not words or words in named:
        return ranked
    place = [set(words) < set(title) and set(title) - set(words) <= PLACE_NOUNS
             or set(title) < set(words) and set(words) - set(title) <= _PLACE_SUFFIXES
             for title in titles]
    return _regroup(ranked, k, place, "place_title", first=True)


def setting_order(mention: str, label: str, ranked: List[dict],
                  entity_of: Callable[[str], "Entity"], k: int) -> List[dict]:
    """For a LOC span whose first candidate is no natural feature (``NATURAL_NOUNS``: a built
    place, a settlement or no place at all), or a FAC span whose first candidate is a natural
    feature or a settlement (``SETTLEMENT_NOUNS``), or a GPE span whose first candidate is
    :func:`kinds.built` (:func:`_unbuilt_order`), by :func:`kinds.setting_kinds`: the candidates
    among the first ``k`` of the span's kind, and of no other, whose title writes every name word
    of the mention go first, marked ``setting``, even before a bare title. A ski resort, a wind
    farm or an airport takes the name of its mountain, island or city, a town that of its river,
    and the label says which is meant ("Galdetind" labelled FAC, "Heimøya" labelled LOC, "São
    Tarcísio airport", "Sulema" labelled LOC)."""
    if label == "GPE":
        return _unbuilt_order(mention, ranked, entity_of, k)
    wanted = SETTING_NOUNS.get(label)
    if wanted is None or not ranked:
        return ranked
    other = (FACILITY_NOUNS if wanted is NATURAL_NOUNS else NATURAL_NOUNS) | SETTLEMENT_NOUNS
    first = setting_kinds(entity_of(ranked[0]["id"]))
    if first & wanted or (label != "LOC" and not first & other):
        return ranked
    return _fitting_first(mention, ranked, entity_of, k, lambda e: bool(
        setting_kinds(e) & wanted) and not setting_kinds(e) & other)


def _fitting_first(mention: str, ranked: List[dict], entity_of: Callable[[str], "Entity"],
                   k: int, fits: Callable[["Entity"], bool]) -> List[dict]:
    """The candidates among the first ``k`` that ``fits`` and whose title writes every name
    word of the mention go first, marked ``setting`` (:func:`setting_order`)."""
    words = [token for token, _ in name_words(mention)]
    if not words:
        return ranked
    flags = [fits(e) and _title_writes(words, e.title)
             for e in (entity_of(c["id"]) for c in ranked[:k])]
    return _regroup(ranked, k, flags, "setting", first=True)


# what a span of each place label names when its first candidate is known to be no place
_PLACE_OF_LABEL = {"GPE": SETTLEMENT_NOUNS | frozenset("port harbour harbor".split()),
                   "LOC": NATURAL_NOUNS, "FAC": BUILT_NOUNS}


def placeless_order(mention: str, label: str, ranked: List[dict],
                    entity_of: Callable[[str], "Entity"], k: int) -> List[dict]:
    """For a GPE, LOC or FAC span whose first candidate, as retrieval ranks it, is known to be no
    place (:func:`kinds.made_or_body`: a beer, a song, a race, a newspaper) and whose text is not
    that candidate's title: the settlements (GPE), natural features (LOC) or built places (FAC: the
    church, not the brass band named after its saint; round 45) among the first ``k`` whose page
    writes every name word of the mention (:func:`unwritten_on_pages`) go first, marked ``setting``,
    before the other label rules move the thing after them (the mark is the evidence
    :mod:`~allennlp_longent.linking.label_conflict` reads). A place lends its name, often an older
    or another language's one, to what is made or held there, and its page says so ("Camara"
    labelled GPE is the port "European merchants called Camara", not Camara Coffee; "Lankha"
    labelled LOC is the river "Russians called the Lankha", not the song "Farewell, Lankha"; round
    44). A GPE span whose first candidate is a natural feature (:func:`kinds.natural`) puts first
    the settlements whose title writes the name or whose page gives it as a name of their own
    (:func:`~allennlp_longent.linking.names.page_aliases`: the town "formerly Blackjack", not
    Blackjack Creek; round 45)."""
    if label not in _PLACE_OF_LABEL or not ranked:
        return ranked
    first = entity_of(ranked[0]["id"])
    wanted = _PLACE_OF_LABEL[label]
    if mention.strip().lower() == first.title.lower():
        return ranked
    if made_or_body(first):
        return _written_first(mention, ranked, entity_of, k,
                              lambda e: bool(setting_kinds(e) & wanted), "setting")
    if label != "GPE" or not natural(first):
        return ranked
    # a town's page writes its river's name: it must give it as a name of its own
    words = tuple(t for t, _ in name_words(mention))
    flags = [bool(words) and bool(setting_kinds(e) & wanted)
             and (_title_writes(words, e.title) or words in page_aliases(e))
             for e in (entity_of(c["id"]) for c in ranked[:k])]
    return _regroup(ranked, k, flags, "setting", first=True)


def _written_first(mention: str, ranked: List[dict], entity_of: Callable[[str], "Entity"],
                   k: int, fits: Callable[["Entity"], bool], mark: str) -> List[dict]:
    """The candidates among the first ``k`` that ``fits`` and whose page writes every name word
    of the mention (:func:`unwritten_on_pages`, the mention read once) go first, marked
    ``mark``."""
    entities = [entity_of(c["id"]) for c in ranked[:k]]
    fitting = [fits(e) for e in entities]
    unwritten = iter(unwritten_on_pages(mention, [e for e, f in zip(entities, fitting) if f]))
    flags = [f and next(unwritten) == [] for f in fitting]
    return _regroup(ranked, k, flags, mark, first=True)


def _first_below(entities: Sequence["Entity"], k: int, depth: int,
                 fits: Callable[["Entity"], bool]) -> Optional[int]:
    """The position, from ``k`` to ``depth``, of the first of ``entities`` that ``fits``, when
    none of the first ``k`` does; None otherwise (the reach rules: :func:`kind_reach`)."""
    if any(map(fits, entities[:k])):
        return None
    return next((i for i in range(k, min(len(entities), depth)) if fits(entities[i])), None)


def settlement_reach(label: str, mention: str, entities: Sequence["Entity"], k: int,
                     depth: int = REACH_DEPTH) -> Optional[int]:
    """For a GPE span whose first candidate is no settlement and none of whose first ``k`` is a
    settlement that gives the mention as another name of its own
    (:func:`~allennlp_longent.linking.names.page_aliases`): the position, from ``k`` to
    ``depth``, of the first settlement that does ("Ambora" labelled GPE: the town "known as
    Ambora" until the eighteenth century, below the feni, the race and the book that kept the
    name); None otherwise. The component moves it into the first ``k`` (:func:`kind_reach`)."""
    words = tuple(t for t, _ in name_words(mention))
    if label != "GPE" or not words or not entities:
        return None

    def gives(entity: "Entity") -> bool:
        return bool(setting_kinds(entity) & _PLACE_OF_LABEL["GPE"]) \
            and words in page_aliases(entity)

    if setting_kinds(entities[0]) & _PLACE_OF_LABEL["GPE"]:
        return None
    return _first_below(entities, k, depth, gives)


def product_order(mention: str, label: str, ranked: List[dict],
                  entity_of: Callable[[str], "Entity"], k: int) -> List[dict]:
    """For a PRODUCT span whose first candidate is no :func:`kinds.made_thing` (a mountain, a
    festival, a brewery) and whose text is not that candidate's title: the made things among
    the first ``k`` whose page writes every name word of the mention go first, marked
    ``product``. The mirror of :func:`placeless_order`: a cheese, a spirit or a beer takes the
    name of its mountain, its village or its maker ("Tziddiri" labelled PRODUCT is Pecorino
    Tzìddiri, not Monte Tzìddiri; round 45)."""
    if label != "PRODUCT" or not ranked:
        return ranked
    first = entity_of(ranked[0]["id"])
    if made_thing(first) or mention.strip().lower() == first.title.lower():
        return ranked
    return _written_first(mention, ranked, entity_of, k, made_thing, "product")


def organisation_reach(label: str, mention: str, entities: Sequence["Entity"], k: int,
                       depth: int = REACH_DEPTH) -> Optional[int]:
    """For an ORG span none of whose first ``k`` candidates is an organisation
    (:func:`kinds.organisation`) whose bare title writes every word of the mention: the position,
    from ``k`` to ``depth``, of the first that is; None otherwise ("Pettigrove's" labelled ORG: the
    firm Pettigrove & Sons, below the street, the founder and his son; round 45). The component
    moves it into the first ``k`` for :func:`organisation_order`; none when the first candidate's
    title writes a family firm's name (:func:`_firm_titled`). Titles are read as
    :func:`_named_organisations` reads them: the mention's every word first, its family name
    alone only when no organisation down to ``depth`` writes them all."""
    if label != "ORG" or not _org_words(mention) or entities and _firm_titled(mention, entities[0]):
        return None
    named = set(e.id for e, f in zip(entities, _named_organisations(mention, entities[:depth]))
                if f)
    return _first_below(entities, k, depth, lambda e: e.id in named)


def _unbuilt_order(mention: str, ranked: List[dict], entity_of: Callable[[str], "Entity"],
                   k: int) -> List[dict]:
    """:func:`setting_order` for a GPE span whose first candidate is :func:`kinds.built`: a country,
    a city or a region is no building, so the candidates among the first ``k`` that are neither
    built nor a person (:func:`kinds.clashes`) and whose title writes every name word of the mention
    go first, marked ``setting`` ("Motukava" is the kingdom, not the Royal Free Church of Motukava;
    round 43)."""
    if not ranked or not built(entity_of(ranked[0]["id"])):
        return ranked
    return _fitting_first(mention, ranked, entity_of, k,
                          lambda e: not built(e) and not clashes("GPE", kind(e)))


def kind_name_order(mention: str, ranked: List[dict], entity_of: Callable[[str], "Entity"],
                    k: int, label: Optional[str] = None) -> List[dict]:
    """For a name whose last word names a kind of place or body (:func:`kinds.kind_named`): the
    candidates among the first ``k`` of that kind whose page writes every word of the name (no
    ``unwritten`` word) go first, marked ``kind_name``; the hamlet or the city the name is taken
    from goes after them ("a temple town" is a town). Unchanged when none or all do."""
    flags = [not c.get("unwritten") and kind_named(mention, entity_of(c["id"]), label)
             for c in ranked[:k]]
    return _regroup(ranked, k, flags, "kind_name", first=True)


# what a firm's name adds to its family's name, and a page may leave out ("E. Quarrier & Son",
# "Messrs. Quarrier", "Firma Quarrier", "A. Wibholm & Søn"), in English and, from general
# usage, other European languages (round 46); initials go as well
FIRM_WORDS = frozenset(fold(w) for w in """son sons bros brothers messrs firma cia cie søn sønner
    zoon zonen gebroeders sohn söhne gebrüder figli figlio fratelli filho filhos irmãos hijo hijos
    hermanos fils frères""".split())


def _org_words(mention: str) -> FrozenSet[str]:
    """The words of an ORG span that an organisation's title must write: not the letters of a
    sports club (``CLUB_DESIGNATORS``), a family firm's words (``FIRM_WORDS``), initials or a
    possessive's "s" ("Yarema's yard")."""
    return _without_initials(_every_word(mention)) - FIRM_WORDS


def organisation_order(mention: str, label: str, ranked: List[dict],
                       entity_of: Callable[[str], "Entity"], k: int,
                       capitals: bool = False) -> List[dict]:
    """For an ORG span whose first candidate is no organisation (:func:`kinds.organisation`): the
    organisations among the first ``k`` whose bare title writes the mention
    (:func:`_named_organisations`) go first, marked ``organisation_title``, unless the first
    candidate's title writes a family firm's name (:func:`_firm_titled`). A town's name
    labelled ORG names its club or its firm ("Calderwick beat Harrowfield": Calderwick RFC), as a
    place span prefers a place (:func:`place_order`). A name in capitals is left alone unless
    ``capitals`` (labels set by hand, round 46: "VALLANCE" on a stamp is the firm), and then too
    when one of the first ``k`` writes it in capitals in its title, an acronym ("KWK": the mine
    KWK Kłobuszyce, not its brass band; round 47): datelines and headings write places so, and
    en_core_web_sm labels them ORG."""
    if label != "ORG" or not ranked or not _org_words(mention):
        return ranked
    if mention.isupper() and (not capitals or _acronym(mention, ranked, entity_of, k)):
        return ranked
    first = entity_of(ranked[0]["id"])
    if organisation(first) or _firm_titled(mention, first):
        return ranked
    flags = _named_organisations(mention, [entity_of(c["id"]) for c in ranked[:k]])
    return _regroup(ranked, k, flags, "organisation_title", first=True)


def _firm_titled(mention: str, entity: "Entity") -> bool:
    """The mention writes a family firm's word (``FIRM_WORDS``) and ``entity``'s bare title
    writes each of its words: the first candidate is the firm, whatever its page says it is
    ("Sarmentão & Filhos" is Sarmentão & Filhos Exportadora Ltda., whose page opens "Founded by
    ..." and defines no organisation; not the football club; round 47). Without a firm's word a
    title that writes the name is no such evidence: "Port Lorne" labelled ORG is the cricket club,
    not the town."""
    words = _every_word(mention)
    return bool(words & FIRM_WORDS) \
        and _writes_words(words, frozenset(plain_title_words(entity.title)), plural=False)


def _every_word(mention: str) -> FrozenSet[str]:
    """The words and numbers of an ORG span but the letters of a sports club and a possessive's
    "s"."""
    return frozenset(plain_words(mention)) - CLUB_DESIGNATORS - {"s"}


def _without_initials(words: FrozenSet[str]) -> FrozenSet[str]:
    return frozenset(w for w in words if len(w) > 1 or w.isdigit())


def _acronym(mention: str, ranked: List[dict], entity_of: Callable[[str], "Entity"],
             k: int) -> bool:
    """A word of two or more capitals of ``mention`` is written so in the title of one of the
    first ``k``: the capitals spell the name, not a heading's type."""
    caps = _capital_words(mention)
    return any(caps & _capital_words(entity_of(c["id"]).title) for c in ranked[:k])


def _capital_words(text: str) -> FrozenSet[str]:
    return frozenset(w for w in re.findall(r"\w+", text) if len(w) > 1 and w.isupper())


def _named_organisations(mention: str, entities: Sequence["Entity"]) -> List[bool]:
    """Per entity: an organisation whose bare title writes the ORG span ``mention``, read in
    steps, each only when no entity passes the one before (round 47: round 46 read the last
    alone, and it sent "Dimarzo & Figli" to the school named after the firm's founder):

    1. every word and number of the mention (the letters of a sports club and a possessive's "s"
       aside), each written or clipped at its front ("Yarema's yard": Yarema Shipyard; "Yarema
       470" is the boat; "Karayelioglu A.S.": Karayelioğlu Fındık A.Ş.);
    2. those but its initials ("A. Wibholm & Søn": Wibholm & Søn);
    3. its words but a family firm's (``FIRM_WORDS``) and initials, each also with a plural "s"
       (:func:`_writes_words`: "E. Quarrier & Son" is the Quarrier Distilling Company, "the
       Scarisbrooks" a firm; round 46). When several pass: those whose page writes every word of
       the mention, if not all of them do ("DIMARZO & SONS": the firm that "trades as Dimarzo &
       Sons"), else those whose title has a firm's word ("Sundaravadivels": Sundaravadivel &
       Sons, not the kabaddi club)."""
    titles = [frozenset(plain_title_words(e.title)) if organisation(e) else None
              for e in entities]
    every = _every_word(mention)
    for words in (every, _without_initials(every)):
        flags = [t is not None and bool(words) and _writes_words(words, t, plural=False)
                 for t in titles]
        if any(flags):
            return flags
    loose = _org_words(mention)
    flags = [t is not None and _writes_words(loose, t) for t in titles]
    if sum(flags) < 2:
        return flags
    unwritten = iter(unwritten_on_pages(mention, [e for e, f in zip(entities, flags) if f]))
    written = [f and not next(unwritten) for f in flags]
    if any(written) and written != flags:
        return written
    firms = [f and bool(t & FIRM_WORDS) for f, t in zip(flags, titles)]
    return firms if any(firms) else flags


def _writes_words(words: AbstractSet[str], title: FrozenSet[str], plural: bool = True) -> bool:
    """Every word of ``words`` is a word of ``title``, clips one at its front ("yard" of "Yarema
    Shipyard": :func:`clips`) or, with ``plural``, is one with a plural "s" ("the Scarisbrooks",
    round 46)."""
    return all(w in title or plural and w[-1:] == "s" and w[:-1] in title or clips(w, title)
               for w in words)


def initial_order(mention: str, ranked: List[dict], title_of: Callable[[str], str],
                  k: int) -> List[dict]:
    """For a mention with initials (:func:`~allennlp_longent.linking.names.initial_pairs`): the
    candidates among the first ``k`` whose bare title writes every one of them go first, marked
    ``initial_title``, but not one whose kind the span's label excludes (marked ``label_clash`` by
    :func:`type_order`: "E. Quarrier & Son" labelled ORG is the firm, not Elias Quarrier; round
    47); unchanged when none or all of them do."""
    pairs = initial_pairs(mention)
    if not pairs:
        return ranked
    titles = [bare_title(title_of(c["id"])) for c in ranked[:k]]
    flags = [all(writes_initial(t, p) for p in pairs) and not c.get("label_clash")
             for t, c in zip(titles, ranked)]
    return _regroup(ranked, k, flags, "initial_title", first=True)


def alias_order(mention: str, ranked: List[dict], entity_of: Callable[[str], "Entity"],
                k: int, label: Optional[str] = None) -> List[dict]:
    """For a mention that is no bare title among the first ``k`` (:func:`is_title`, with
    :func:`naming_titles` for ``label``): the candidates whose page gives its name words as
    another name of theirs go first, marked ``alias``, but not one that ``label`` excludes
    (:func:`kinds.label_excludes`: "Ada" labelled a person is not the hospital "known in the town as
    the Ada", "Nashlik" labelled LOC not the race "known as the Nashlik"; round 44), nor, for a
    span labelled as a product, an event or a work (``DEFINED_KINDS``), a settlement or a natural
    feature (:func:`kinds.setting_kinds`: "Macuriján" labelled PRODUCT is the rum, not the town once
    called Macuriján; round 43); unchanged when none or all of them do."""
    mention = spelled_out(mention)  # "Harrowfield Iron Co." for "Harrowfield Iron Company"
    words = tuple(t for t, _ in name_words(mention))
    if not words or any(is_title(mention, ranked, naming_titles(label, entity_of), k)):
        return ranked
    head = [entity_of(c["id"]) for c in ranked[:k]]
    flags = [words in page_aliases(e) and not (label and label_excludes(label, e))
             and not (label in DEFINED_KINDS and setting_kinds(e) & LAND_NOUNS) for e in head]
    return _regroup(ranked, k, flags, "alias", first=True)


def expansion_order(expanded: Sequence["Entity"], ranked: List[dict], k: int) -> List[dict]:
    """For an abbreviated mention with exactly one expansion (``expanded``,
    :func:`allennlp_longent.linking.names.expansion`: "SC Itaquara", Sport Clube Itaquara): that
    candidate goes first among the first ``k``, marked ``expansion``; unchanged when the mention
    has none or several, or the expansion is not among them."""
    if len(expanded) != 1:
        return ranked
    head = ranked[:k]
    flags = [c["id"] == expanded[0].id for c in head]
    if not any(flags):
        return ranked
    if len(head) == 1:
        return [{**head[0], "expansion": True}] + ranked[1:]
    return _regroup(ranked, k, flags, "expansion", first=True)


def noun_order(mention: str, ranked: List[dict], entity_of: Callable[[str], "Entity"],
               k: int) -> List[dict]:
    """For a common-noun span (:func:`kinds.common_noun`): the candidates among the first ``k``
    whose :func:`kinds.kind_nouns` hold its head noun (or the head without a plural "s" or "es"),
    alone or ending a compound (:func:`kinds.holds_noun`), go first, marked ``kind_noun``; unchanged
    when none or all of them do."""
    head = common_noun(mention)
    if head is None:
        return ranked
    heads = {head}
    if head.endswith("s") and len(head) > 3:
        heads |= {head[:-1], head[:-2]} if head.endswith("es") else {head[:-1]}
    flags = [not c.get("label_clash") and holds_noun(heads, kind_nouns(entity_of(c["id"])))
             for c in ranked[:k]]
    return _regroup(ranked, k, flags, "kind_noun", first=True)


def definition_order(label: str, ranked: List[dict], entity_of: Callable[[str], "Entity"],
                     k: int, mention: str,
                     title_of: Optional[Callable[[str], str]] = None) -> List[dict]:
    """For each kind of ``DEFINED_KINDS`` (events, works, vehicles; :func:`kinds.defines`): a span
    with that kind's label puts the candidates among the first ``k`` of that kind first, marked with
    the label in lower case ("Salma festival": the festival, not the well), unless a page never
    writes one of the span's name words (``unwritten``: "Tomoe Festival" is no other festival); a
    span of ``NEITHER_LABELS`` or of the other kind's label puts them after the others, marked
    ``<label>_clash`` ("Bir Salma" the quarter, not the Festival of Bir Salma). When ``mention`` is
    the bare title of exactly one of them (``title_of``, by default :func:`naming_titles`), only
    :func:`named_after` may move them."""
    title_of = title_of or naming_titles(label, entity_of)
    if one_title(mention, ranked, title_of, k):
        return named_after(label, mention, ranked, entity_of, k, title_of)
    for kind_label, nouns in DEFINED_KINDS.items():
        flags = [defines(entity_of(c["id"]), nouns) for c in ranked[:k]]
        mark = kind_label.lower()
        if label == kind_label:
            promoted = [f and not c.get("unwritten") for f, c in zip(flags, ranked[:k])]
            ranked = _regroup(ranked, k, promoted, mark, first=True)
        elif defined_clash(label, kind_label):
            ranked = _regroup(ranked, k, flags, f"{mark}_clash")
    return ranked


def named_after(label: str, mention: str, ranked: List[dict],
                entity_of: Callable[[str], "Entity"], k: int,
                title_of: Optional[Callable[[str], str]] = None) -> List[dict]:
    """For a span labelled with a kind of ``DEFINED_KINDS`` whose name is the bare title of a
    candidate of another kind: the candidates of the label's kind among the first ``k`` whose bare
    title writes every word of the name go first, marked with the label in lower case. A ship, a
    disaster or a song named after a person or a place is written with that name alone ("the
    Ingrid Åsland" labelled PRODUCT is the research vessel RV Ingrid Åsland, not the biologist).
    Titles are read with ``title_of``, by default :func:`naming_titles`."""
    nouns = DEFINED_KINDS.get(label)
    words = set(plain_words(mention))
    if nouns is None or not words:
        return ranked
    entities = [entity_of(c["id"]) for c in ranked[:k]]
    titled = is_title(mention, ranked, title_of or naming_titles(label, entity_of), k)
    if any(t and defines(e, nouns) for t, e in zip(titled, entities)):
        return ranked
    quoted_ids = {c["id"] for c, e in zip(ranked, entities)
                  if defines(e, nouns) and quoted(mention, e)}
    flags = [defines(e, nouns)
             and (words <= set(plain_title_words(e.title)) or c["id"] in quoted_ids)
             for c, e in zip(ranked, entities)]
    ranked = _regroup(ranked, k, flags, label.lower(), first=True)
    # the quoted title is the name's evidence, not the kind alone (label_conflict reads the mark)
    return [{**c, "quoted_title": True} if c["id"] in quoted_ids else c for c in ranked]


def kind_reach(label: str, mention: str, entities: Sequence["Entity"], k: int,
               depth: int = REACH_DEPTH) -> Optional[int]:
    """For a span whose label names a kind of ``DEFINED_KINDS`` (an event, a work, a vehicle)
    when none of its first ``k`` candidates is of that kind: the position, from ``k`` to
    ``depth``, of the first candidate that is, and whose bare title writes every name word of the
    mention ("the Haverau" labelled PRODUCT: the steamer Haverau, eighth behind the town and its
    clubs); None otherwise. The component moves it into the first ``k``."""
    nouns = DEFINED_KINDS.get(label)
    if nouns is None or any(defines(e, nouns) for e in entities[:k]):
        return None
    words = {t for t, _ in name_words(mention)}
    if not words:
        return None
    return next((i for i in range(k, min(len(entities), depth)) if defines(entities[i], nouns)
                 and words <= set(plain_title_words(entities[i].title))), None)


def gender_order(mention: str, ranked: List[dict], entity_of: Callable[[str], "Entity"],
                 k: int) -> List[dict]:
    """For a mention opened by a title of address that gives a gender (``MALE_TITLES``,
    ``FEMALE_TITLES``: "Mrs Rusk"), the persons among the first ``k`` of the other gender
    (:func:`kinds.gender`) go after all the others, marked ``gender_clash``, even those a label
    rule moved back: a title of address is as sure as a label ("Mr Sayle" is not Matilda Sayle,
    whatever else the label leaves); unchanged otherwise."""
    said = said_gender(mention)
    if said is None:
        return ranked
    flags = [gender(entity_of(c["id"])) not in (None, said) for c in ranked[:k]]
    return _regroup(ranked, k, flags, "gender_clash", behind_clashes=False)


def title_order(mention: str, ranked: List[dict], title_of: Callable[[str], str],
                k: int) -> List[dict]:
    """For a mention (:func:`~allennlp_longent.linking.names.spelled_out`) that is the bare title
    of exactly one of the first ``k`` candidates (:func:`is_title`): that one goes first, marked
    ``exact_title``; when it is none's, the one whose title is a variant of it
    (:func:`variant_titles`), marked ``variant_title``; unchanged otherwise."""
    name = spelled_out(mention)
    flags, mark = is_title(name, ranked, title_of, k), "exact_title"
    if not any(flags):
        flags, mark = variant_titles(name, ranked, title_of, k), "variant_title"
    return _regroup(ranked, k, flags, mark, first=True) if sum(flags) == 1 else ranked


def variant_titles(mention: str, ranked: List[dict], title_of: Callable[[str], str],
                   k: int) -> List[bool]:
    """Per candidate among the first ``k``: its bare title has as many words as ``mention``, each
    the :func:`~allennlp_longent.linking.candidates.bm25.same_word` as the mention's
    ("Borthgarreg", a mutation of Porthgarreg; "Villarubia" for Villarrubia; round 26)."""
    words = plain_words(mention)
    titles = [plain_title_words(title_of(c["id"])) for c in ranked[:k]]
    return [bool(words) and len(title) == len(words)
            and all(same_word(a, b) for a, b in zip(words, title)) for title in titles]
