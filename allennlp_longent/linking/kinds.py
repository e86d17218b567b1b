"""Person or not: the span's label against how a candidate's page refers to it.

A span from spaCy (or a gold span of a free-text set) carries its NER label; a knowledge base
entity carries only its page. English refers to a person with "he", "she", "his", "her" and to a
town, an inn or a company with "it" and "its", so an entity is read as

    kind(e) = person  when the pronouns that open its description's sentences are more often
                      personal than "it"/"its"/"itself",
              thing   when more often the latter,
              and when those are as many (none, often), the same count over all its pronouns;
              unknown when that ties too.

A pronoun that opens a sentence of a page is mostly its subject ("It is now a museum of his
instruments" is a house, whatever "his" refers to).

A page whose definition names an event, a work of art or a vehicle (:func:`defines`: "a rowing
race", "Gideon Rusk (play)", "a steam locomotive") is a thing whatever its pronouns: a battle's
page narrates its leaders, and a ship's calls her "she". Two clashes count: a span labelled a
person (``PERSON_LABELS``) against a *thing*, and a span that never names a person (a place, an
organisation, an event, a work, a law, a product: ``NOT_PERSON_LABELS``) against a *person*.
``type_order`` moves the clashing candidates among the first ``k`` after the others, keeping each
group's order; the NIL decision is not touched; a mention that is the bare title of exactly one
of the ``k`` keeps their order whatever its label. It was chosen on the free-text dev sets
(docs/linking.md, "Labels against pages" and round 18).

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
Reuben (song)" (:func:`qualified_against`, :func:`naming_titles`, read by the title and alias
rules).

A span labelled with a kind of ``DEFINED_KINDS`` that is a person's or a place's bare title goes
to the vessel, event or work of its label whose title writes the name (``named_after``: "Ingrid
Åsland" labelled PRODUCT is the research vessel), and a person span that is a thing's bare title
to the person whose title writes it (``_person_named``: "Brannoc" is the knight, not his sword).
A LOC span prefers the natural feature and a FAC span the built place named alike when the first
candidate is of the other kind or a settlement (``setting_order``: "Galdetind" labelled FAC is the
ski resort; since round 34 a LOC span's first candidate only needs to be no natural feature:
"Sulema" labelled LOC is the river, not the town). A name whose last word is a kind of place or body
(``named_kind``: "Skjærvik University Hospital") names no entity whose page does not write that kind
of itself (``names_other_kind``; the component makes such a span NIL). Chosen in round 23 on the
free-text dev sets (docs/linking.md, round 23). Since round 33 the kind may be said in another
language or with another English word, by the name's last word or, in a language that writes it
first, its first ("Kaarnakosken asema", "Masjid Watugilang", "Khumbuza chorus": :mod:`kind_words`),
for the order only (:func:`kind_named`), not for the NIL rule. A state's name ("Republic of
Ozodiston") names no page whose title and kind nouns do not say so, however often a city's page
writes that it lies there (``state_before_of``, round 31).

English writes no article before a person's name: "the Mary Roe" is the locomotive, "the Vell
company" the brewery. ``article_order`` moves, for a name written after "the", the candidates
read as persons whose own page does not name them after "the" ("The Mary Roe is a steam
locomotive") after the others of the first ``k``; a title or role ("the Duke of Marrowgate",
"the Bishop") keeps its order. A person span followed by a lower-case noun ("the Vane fight",
"the Moura years": :func:`modifies_noun`) is that noun's modifier, the article is the noun's, and
the rule leaves it alone when a person among the first ``k`` has a title that writes the name
(:func:`person_titled`).
"""

import re
from functools import lru_cache
from typing import TYPE_CHECKING, AbstractSet, Callable, FrozenSet, List, Optional, Sequence, Tuple

from allennlp_longent.linking.candidates.bm25 import (
    bare_title,
    bm25_tokens,
    clips,
    fold,
    qualifier_words,
    same_word,
)
from allennlp_longent.linking.definitions import (
    PERSON,
    SENTENCE_END,
    THING,
    THING_NOUNS,
    defining_head,
    defining_words,
    field_kind,
    head_kind,
    page_fields,
)
from allennlp_longent.linking.kind_words import OTHER_LANGUAGES_KINDS, groups_of, kind_groups
from allennlp_longent.linking.names import (
    CLUB_DESIGNATORS,
    FEMALE_TITLES,
    HONORIFICS,
    MALE_TITLES,
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

PERSONAL = frozenset("he she his her hers him himself herself".split())
MASCULINE = frozenset("he his him himself".split())
FEMININE = frozenset("she her hers herself".split())
IMPERSONAL = frozenset("it its itself".split())
PLACE_LABELS = frozenset({"GPE", "LOC", "FAC"})
# spans that never name a person (a ship's page may call it "she", but its definition says ship:
# VEHICLE_NOUNS)
NOT_PERSON_LABELS = PLACE_LABELS | {"ORG", "EVENT", "WORK_OF_ART", "LAW", "PRODUCT"}
# nouns that define an event; words that also name a thing or a place ("fair", "fire", "cup",
# "derby") are left out
EVENT_NOUNS = frozenset("""battle siege war riot uprising rebellion revolt mutiny massacre raid
    lockout strike flood storm earthquake eruption famine epidemic shipwreck festival regatta race
    tournament championship ceremony carnival procession pilgrimage election expedition marathon
    contest competition dispute event disaster explosion collapse accident outbreak failure
    breach scandal affair conflict landslide avalanche mudslide cyclone hurricane typhoon tsunami
    blizzard drought derailment bombing assassination coup protest rally boycott hartal bandh
    scam trial fiesta feast parade gala jubilee celebration commemoration exhibition conference
    congress convention wedding funeral coronation referendum tragedy crash sinking""".split())
# nouns that define a work of art
WORK_NOUNS = frozenset("""song ballad hymn anthem march waltz opera operetta symphony concerto
    play musical novel novella poem story book film painting portrait album""".split())
# nouns that define a vessel or a vehicle, which pages may call "she"
VEHICLE_NOUNS = frozenset("""ship liner schooner steamer steamship boat ferry lifeboat yacht
    barge tug trawler clipper locomotive engine aircraft airliner aeroplane airplane airship tram
    lorry vessel car motorboat submarine frigate cruiser warship battleship dhow sloop brig ketch
    catamaran hovercraft helicopter spacecraft tanker freighter dinghy canoe""".split())
# the prefixes of ships' names ("RV Ingrid Åsland", "MF Heimøy", "HMS Tarvey"), folded
SHIP_PREFIXES = frozenset("rv mv ms ss hms uss mf rms ps fv mt mts sv ins hmas hmcs".split())
# storms named as "Typhoon Velma", "Hurricane Hazel", "Cyclone Tracy"
STORM_PREFIXES = frozenset("typhoon hurricane cyclone".split())
# the kinds a page's definition gives, by the label of the spans that name them
DEFINED_KINDS = {"EVENT": EVENT_NOUNS, "WORK_OF_ART": WORK_NOUNS, "PRODUCT": VEHICLE_NOUNS}
REACH_DEPTH = 16  # kind_reach looks this deep into the first stage's ranking
# spans that name no event, no work and, but a PRODUCT span, no vehicle (an ORG span may name
# any: NER often calls a strike, a play or a ship so)
NEITHER_LABELS = PERSON_LABELS | PLACE_LABELS | {"PRODUCT"}
ARTICLES = frozenset({"the"})
# "of" in the titles "Battle of Tellau", "Festival de Cinema do Anil", "Ponte da Guarita"
OF_WORDS = frozenset("of de do da dos das du des di del della".split())
# words for a kind of place that prose leaves out of a place's name ("the Oast", "Kessen"), and
# the divisions of a country ("Okeodo" for Òkèodò State; round 22)
PLACE_NOUNS = frozenset("""river stream brook creek beck burn lake loch mere pond sea ocean bay
    gulf sound strait channel firth estuary harbour harbor island isle islands isles peninsula
    cape headland coast shore beach mount mountain mountains hill hills fell fells range ridge
    peak valley vale dale glen gorge canyon pass forest wood woods moor moors heath marsh fen
    plain plains desert falls waterfall rio lago lagoa monte serra sierra isla ilha
    state province county region district municipality prefecture territory""".split())
PLACE_SPAN_LABELS = frozenset({"GPE", "LOC"})
# the first words of titles that name a kind before the name, in English and the Romance
# languages (folded): "Instituto Jacira Moura", "Estádio Raimundo Feitosa", "Fort Carrow"
KIND_FIRST_WORDS = frozenset("""instituto institut istituto universidade universidad
    universita universite banco banca banque companhia compania compagnie empresa fundacao
    fundacion fondation escola escuela ecole colegio liceo hospital museo museu musee biblioteca
    bibliotheque teatro estadio stade igreja iglesia chiesa eglise catedral cattedrale palacio
    palazzo castelo castillo castello chateau ponte puente pont rio lago lac monte serra sierra
    praia playa praca plaza piazza rua calle avenida estacao estacion gare aeroporto aeropuerto
    aeroport clube sporting esporte partido partito parti movimento movimiento university bank
    fort lake mount hotel museum church college school""".split())
_WORD = re.compile(r"[a-z]+")
_IT_SAYS = re.compile(r"\bit (?:is|was|has|had|became|becomes|serves|served|houses|housed|"
                      r"holds|held|remains|stands|stood)\b")
_NAME_WORD = re.compile(r"[a-z]+|\d+")  # "Yarema 470" is not the name "Yarema"


def _words(text: str) -> Tuple[str, ...]:
    """Folded words and numbers (lower case, no accents), articles left out: "the Oast" and
    "Oast" are the same name, and so are "Sao Tarcisio" and "São Tarcísio"; "Yarema 470" is not
    "Yarema"."""
    return tuple(w for w in _NAME_WORD.findall(fold(text)) if w not in ARTICLES)


@lru_cache(maxsize=1 << 16)
def _title_words(title: str) -> Tuple[str, ...]:
    return _words(bare_title(title))


def is_title(mention: str, ranked: List[dict], title_of: Callable[[str], str],
             k: int) -> List[bool]:
    """Per candidate among the first ``k``: ``mention`` is its bare title (case, articles and a
    bracketed qualifier ignored)."""
    words = _words(mention)
    return [_title_words(title_of(c["id"])) == words for c in ranked[:k]]


def one_title(mention: str, ranked: List[dict], title_of: Callable[[str], str], k: int) -> bool:
    """``mention`` is the bare title of exactly one of the first ``k`` (:func:`is_title`): the
    name outweighs a label, and the label rules keep the order."""
    return sum(is_title(mention, ranked, title_of, k)) == 1


def _regroup(ranked: List[dict], k: int, flags: Sequence[bool], mark: str,
             first: bool = False) -> List[dict]:
    """``ranked`` with its first ``k`` candidates that ``flags`` marks moved after the others of
    those ``k`` (before them with ``first``), each group in its order and the moved ones marked
    ``mark``; unchanged when none or all of them are marked."""
    if all(flags) or not any(flags):
        return ranked
    head, tail = ranked[:k], ranked[k:]
    moved = [{**c, mark: True} for c, x in zip(head, flags) if x]
    kept = [c for c, x in zip(head, flags) if not x]
    return (moved + kept if first else kept + moved) + tail


def _by_pronouns(words: Sequence[str]) -> Optional[str]:
    personal = sum(w in PERSONAL for w in words)
    impersonal = sum(w in IMPERSONAL for w in words)
    if personal == impersonal:
        return None
    return PERSON if personal > impersonal else THING


@lru_cache(maxsize=1 << 16)
def kind(entity: "Entity") -> Optional[str]:
    """``person``, ``thing`` or None (module docstring); an event, a work or a vehicle
    (:func:`defines`) is a thing, whatever its pronouns (a battle's page narrates what its leaders
    did, a play's its hero's life, and a ship's calls her "she"); so is a page without a head or
    fields whose title opens with a kind (``KIND_FIRST_WORDS``: "Instituto Jacira Moura")."""
    if any(defines(entity, nouns) for nouns in DEFINED_KINDS.values()):
        return THING
    said = head_kind(entity) or field_kind(entity)
    if said is not None:
        return said
    if next(iter(_title_words(entity.title)), None) in KIND_FIRST_WORDS:
        return THING
    text = entity.description.lower()
    openers = [match.group() for sentence in SENTENCE_END.split(text)
               for match in [_WORD.search(sentence)] if match]
    return (_by_pronouns(openers) or _by_pronouns(_WORD.findall(text))
            or (THING if _title_ends_in_kind(entity.title) else None))


# the kind words that end titles but are also family names ("Emma Hall", "Peter Brook")
SURNAME_KINDS = frozenset("""hall mill mills park street church well wells bridge bridges temple
    castle tower chapel garden gardens farm yard dock port marina square road works plant house
    wood woods hill hills lane green field brook dale glen fell vale marsh moor heath lake shore
    forest spring bank banks ferry""".split())


def _title_ends_in_kind(title: str) -> bool:
    """A title of more than one word whose last word is a kind of place or body that is no
    family name ("Chorraha Bazaar", "Merbulan FC", "Psaromyti Beach"): the last guess of
    :func:`kind`, for a page that says what it is only in another language ("dehqon bozori")."""
    words = _title_words(title)
    return len(words) > 1 and (words[-1] in _TITLE_KINDS or words[-1] in CLUB_DESIGNATORS)


@lru_cache(maxsize=1 << 16)
def named_with_article(entity: "Entity") -> bool:
    """The page writes its own bare title after "the" the first time it writes it, or the title
    opens with "the" ("The Indigo House")."""
    title = bare_title(entity.title).lower()
    if title.split(" ", 1)[0] in ARTICLES:  # "The Indigo House"
        return True
    text = entity.description.lower()
    at = text.find(title) if title else -1
    before = _WORD.findall(text[:at]) if at > 0 and not text[at - 1].isalnum() else []
    return bool(before) and before[-1] in ARTICLES


def clashes(label: str, entity_kind: Optional[str]) -> bool:
    """A person span against a thing, or a span that never names a person (a place, an
    organisation, an event, a work, a law, a product: ``NOT_PERSON_LABELS``) against a person."""
    return (label in PERSON_LABELS and entity_kind == THING
            or label in NOT_PERSON_LABELS and entity_kind == PERSON)


def qualified_against(label: str, entity: "Entity") -> bool:
    """``entity``'s title carries a bracketed qualifier ("Long Reuben (song)") and its kind
    clashes with ``label`` (:func:`clashes`): the name is shared, and the qualifier says this page
    is its other bearer, so for a span with ``label`` it is not the name's page."""
    return "(" in entity.title and clashes(label, kind(entity))


def label_excludes(label: str, entity: "Entity") -> bool:
    """A span with ``label`` does not name ``entity``: its kind clashes (:func:`clashes`), or it
    is of a kind of ``DEFINED_KINDS`` that :func:`definition_order` puts after the others for
    ``label`` ("the king" labelled PERSON is no ballad)."""
    return clashes(label, kind(entity)) or any(
        _defined_clash(label, kind_label) and defines(entity, nouns)
        for kind_label, nouns in DEFINED_KINDS.items())


def _defined_clash(label: str, kind_label: str) -> bool:
    """A span with ``label`` names no entity of the defined kind ``kind_label``: it has another
    kind's label, or one of ``NEITHER_LABELS`` (:func:`definition_order`)."""
    return label != kind_label and (label in NEITHER_LABELS or label in DEFINED_KINDS)


def naming_titles(label: Optional[str], entity_of: Callable[[str], "Entity"],
                  annotated: bool = False, bearers: AbstractSet[str] = frozenset()
                  ) -> Callable[[str], str]:
    """A ``title_of`` for the title rules of a span with ``label``: an entity's title, or "" (no
    name) for a title :func:`qualified_against` the label ("Long Reuben" labelled PERSON is not
    the bare title of "Long Reuben (song)") or, for a label set by hand (``annotated``),
    :func:`made_against` it, and for the ids of ``bearers`` (:func:`name_bearers`); every title
    as it is when ``label`` is None."""
    def title_of(entity_id: str) -> str:
        entity = entity_of(entity_id)
        against = label and (qualified_against(label, entity) or entity_id in bearers
                             or annotated and made_against(label, entity))
        return "" if against else entity.title
    return title_of


def name_bearers(label: str, mention: str, ranked: List[dict],
                 entity_of: Callable[[str], "Entity"], k: int) -> FrozenSet[str]:
    """For a span whose ``label`` was set by hand: the ids among the first ``k`` whose bare title
    is ``mention`` but whose kind ``label`` excludes (:func:`label_excludes`), when another of the
    first ``k`` that it does not exclude writes every name word of ``mention`` in its title. The
    name is shared by its bearer and a thing named after it, and the label says which: "Santa
    Iluminada" labelled FAC is the Shrine of Santa Iluminada, not the saint (round 27)."""
    words = _words(mention)
    entities = [entity_of(c["id"]) for c in ranked[:k]]
    bearers = frozenset(e.id for e in entities
                        if words and _title_words(e.title) == words and label_excludes(label, e))
    if bearers and any(not label_excludes(label, e) and _title_writes(words, e.title)
                       for e in entities):
        return bearers
    return frozenset()


# the words of a bracketed qualifier that make a title a made thing's, a product's or a work's
# ("Drywan (beer)", "Anyinamu (song)", "Koharu (TV series)")
MADE_QUALIFIERS = VEHICLE_NOUNS | WORK_NOUNS | frozenset("""beer ale lager stout cider wine sake
    whisky whiskey gin rum vodka brandy liqueur spirit tea coffee cheese dish app software game
    tv series programme program show episode single tune sculpture statue""".split())
# the labels of spans that never name a made thing
UNMADE_LABELS = PERSON_LABELS | PLACE_LABELS | frozenset({"ORG", "NORP", "EVENT"})


def made_against(label: str, entity: "Entity") -> bool:
    """``entity``'s title carries a bracketed qualifier of ``MADE_QUALIFIERS`` and ``label`` is
    one of ``UNMADE_LABELS``: a beer, a song or a ferry named after a mountain, a town or a
    person is not what a place, person or organisation span names. Only for labels set by hand:
    a statistical NER labels products and works ORG, GPE or PERSON as often as not (round 26)."""
    return label in UNMADE_LABELS and bool(qualifier_words(entity.title) & MADE_QUALIFIERS)


def made_order(label: str, ranked: List[dict], entity_of: Callable[[str], "Entity"],
               k: int) -> List[dict]:
    """``ranked`` with the candidates among the first ``k`` :func:`made_against` ``label`` moved
    after the others, marked ``made_clash``; unchanged when all or none of them are."""
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


def after_article(words: Sequence[str]) -> bool:
    """``words`` (the word before a span, then the span's words) write a name after "the": the
    first word that is not an article is capitalised and is not a title or role."""
    if not words or words[0].lower() not in ARTICLES:
        return False
    rest = [w for w in words[1:] if w.lower() not in ARTICLES]
    return bool(rest) and rest[0][:1].isupper() and rest[0].lower().rstrip(".") not in HONORIFICS


def article_order(ranked: List[dict], kind_of: Callable[[str], Optional[str]],
                  with_article: Callable[[str], bool], k: int) -> List[dict]:
    """For a name written after "the": ``ranked`` with the candidates among the first ``k`` read
    as persons and not named with an article on their own page moved after the others of those
    ``k``, marked ``article_clash``; unchanged when all or none of them are such persons."""
    clash = [kind_of(c["id"]) == PERSON and not with_article(c["id"]) for c in ranked[:k]]
    return _regroup(ranked, k, clash, "article_clash")


def modifies_noun(following: Optional[str]) -> bool:
    """``following``, the word after a name, is a noun that the name modifies ("the Vane fight",
    "the Moura years"), so an article before the name is the noun's: a lower-case word of
    letters that is no stop word and no past-tense verb ("the Gazette asked")."""
    from spacy.lang.en.stop_words import STOP_WORDS

    return bool(following) and following.isalpha() and following.islower() \
        and following not in STOP_WORDS and bool(_WORD.fullmatch(following)) \
        and not (following.endswith("ed") and len(following) > 4)


def person_titled(mention: str, ranked: List[dict], entity_of: Callable[[str], "Entity"],
                  k: int) -> bool:
    """One of the first ``k`` candidates is read as a person (:func:`kind`) and its bare title
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
    words = _words(mention)
    full = [title_of(c["id"]) for c in ranked[:k]]
    titles = [_title_words(title) for title in full]
    named = [title for title, whole in zip(titles, full) if not _other_bearer(whole)]
    if not words or words in named:
        return ranked
    place = [set(words) < set(title) and set(title) - set(words) <= PLACE_NOUNS
             or set(title) < set(words) and set(words) - set(title) <= _PLACE_SUFFIXES
             for title in titles]
    return _regroup(ranked, k, place, "place_title", first=True)


# heads that define a natural feature, which a LOC span names, and a built place, which a FAC
# span names ("Galdetind" labelled FAC is the ski resort named after the mountain)
NATURAL_NOUNS = frozenset("""river stream brook creek lake loch mere pond sea ocean bay gulf
    sound strait fjord firth estuary lagoon island isle islet peninsula cape headland coast shore
    beach mountain mount peak summit hill hills range ridge fell valley vale dale glen gorge
    canyon pass forest wood woods moor moors moorland heath marsh fen plain desert falls
    waterfall volcano glacier spring""".split())
FACILITY_NOUNS = frozenset("""resort stadium arena bridge airport airfield station terminal
    hotel inn hall church chapel cathedral minster temple shrine mosque museum library theatre
    cinema hospital sanatorium school tower castle fortress fort lighthouse quay pier wharf dock
    canal railway tramway road street square park garden market mill factory plant works farm
    dam reservoir tunnel prison barracks palace well harbour harbor port marina yard monastery
    abbey convent priory mausoleum tomb cemetery graveyard""".split())
SETTING_NOUNS = {"LOC": NATURAL_NOUNS, "FAC": FACILITY_NOUNS}
# heads that define a settlement or a part of one, which a FAC span does not name either
SETTLEMENT_NOUNS = frozenset("""city town village hamlet suburb quarter district neighbourhood
    neighborhood borough parish municipality""".split())
_SETTINGS = NATURAL_NOUNS | FACILITY_NOUNS | SETTLEMENT_NOUNS
# the built places that are no settlement: a port, a harbour or a resort is often the town itself
BUILT_NOUNS = FACILITY_NOUNS - frozenset("resort port harbour harbor marina".split())
_LAND = NATURAL_NOUNS | SETTLEMENT_NOUNS


@lru_cache(maxsize=1 << 16)
def _setting_kinds(entity: "Entity") -> FrozenSet[str]:
    """The kind of place ``entity``'s page defines: its defining head (its bare title's head
    without one) when that is a natural feature, a built place or a settlement, else those of its
    :func:`kind_nouns` (the defining phrase's words and the title's head: "a left-bank
    tributary" titled "Sulema River" is a river). Read once per page, not once per span."""
    head = defining_head(entity) or next(iter(title_head(entity.title)), None)
    if head in _SETTINGS:
        return frozenset({head})
    return kind_nouns(entity) & _SETTINGS


def setting_order(mention: str, label: str, ranked: List[dict],
                  entity_of: Callable[[str], "Entity"], k: int) -> List[dict]:
    """For a LOC span whose first candidate is no natural feature (``NATURAL_NOUNS``: a built
    place, a settlement or no place at all), or a FAC span whose first candidate is a natural
    feature or a settlement (``SETTLEMENT_NOUNS``), or a GPE span whose first candidate is
    :func:`built` (:func:`_unbuilt_order`), by :func:`_setting_kinds`: the candidates
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
    first = _setting_kinds(entity_of(ranked[0]["id"]))
    if first & wanted or (label != "LOC" and not first & other):
        return ranked
    return _fitting_first(mention, ranked, entity_of, k, lambda e: bool(
        _setting_kinds(e) & wanted) and not _setting_kinds(e) & other)


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


def built(entity: "Entity") -> bool:
    """The page defines a built place that is no settlement (``BUILT_NOUNS``, by
    :func:`_setting_kinds`): a church, a station, a market, a farm; not "a temple and
    handloom-weaving town" (a town: :func:`~allennlp_longent.linking.definitions.defining_words`
    reads the coordination)."""
    kinds = _setting_kinds(entity)
    return bool(kinds) and kinds <= BUILT_NOUNS


# heads that define a thing made and sold, beside those of ``MADE_QUALIFIERS``
_MADE_HEADS = MADE_QUALIFIERS | frozenset("brand trademark label product make".split())


@lru_cache(maxsize=1 << 16)
def made_or_body(entity: "Entity") -> bool:
    """The page defines no place: an organisation (:func:`organisation`), an event, a work or a
    vehicle (``DEFINED_KINDS``), a thing made and sold (``_MADE_HEADS``: a lager, a coffee
    brand), or its title's bracketed qualifier names another bearer of a place's name
    ("Hagewinde (lace)"), and it defines no place (:func:`_setting_kinds`)."""
    if _setting_kinds(entity):
        return False
    return (organisation(entity) or defining_head(entity) in _MADE_HEADS
            or _other_bearer(entity.title)
            or any(defines(entity, nouns) for nouns in DEFINED_KINDS.values()))


# what a span of each place label names when its first candidate is known to be no place
_PLACE_OF_LABEL = {"GPE": SETTLEMENT_NOUNS | frozenset("port harbour harbor".split()),
                   "LOC": NATURAL_NOUNS, "FAC": BUILT_NOUNS}


def placeless_order(mention: str, label: str, ranked: List[dict],
                    entity_of: Callable[[str], "Entity"], k: int) -> List[dict]:
    """For a GPE, LOC or FAC span whose first candidate, as retrieval ranks it, is known to be
    no place (:func:`made_or_body`: a beer, a song, a race, a newspaper) and whose text is not
    that candidate's title: the settlements (GPE), natural features (LOC) or built places (FAC:
    the church, not the brass band named after its saint; round 45) among the first ``k``
    whose page writes every name word of the mention (:func:`unwritten_on_pages`) go first,
    marked ``setting``, before the other label rules move the thing after them (the mark is the
    evidence :mod:`~allennlp_longent.linking.label_conflict` reads). A place lends its name,
    often an older or another language's one, to what is made or held there, and its page says
    so ("Camara" labelled GPE is the port "European merchants called Camara", not Camara
    Coffee; "Lankha" labelled LOC is the river "Russians called the Lankha", not the song
    "Farewell, Lankha"; round 44). A GPE span whose first candidate is a natural feature
    (:func:`natural`) puts first the settlements whose title writes the name or whose page gives
    it as a name of their own (:func:`~allennlp_longent.linking.names.page_aliases`: the town
    "formerly Blackjack", not Blackjack Creek; round 45)."""
    if label not in _PLACE_OF_LABEL or not ranked:
        return ranked
    first = entity_of(ranked[0]["id"])
    wanted = _PLACE_OF_LABEL[label]
    if mention.strip().lower() == first.title.lower():
        return ranked
    if made_or_body(first):
        return _written_first(mention, ranked, entity_of, k,
                              lambda e: bool(_setting_kinds(e) & wanted), "setting")
    if label != "GPE" or not natural(first):
        return ranked
    # a town's page writes its river's name: it must give it as a name of its own
    words = tuple(t for t, _ in name_words(mention))
    flags = [bool(words) and bool(_setting_kinds(e) & wanted)
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


def natural(entity: "Entity") -> bool:
    """The page defines a natural feature and no settlement (:func:`_setting_kinds`): a river,
    a creek, a mountain, a sea lane. A GPE span does not name it: a town that took its river's
    name, or kept it as its older name, does ("Qaltoun" labelled GPE is Kfar Tellissa, "whose
    older name is Qaltoun", not the river Nahr Qaltoun; round 45)."""
    kinds = _setting_kinds(entity)
    return bool(kinds) and kinds <= NATURAL_NOUNS


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
        return bool(_setting_kinds(entity) & _PLACE_OF_LABEL["GPE"]) \
            and words in page_aliases(entity)

    if _setting_kinds(entities[0]) & _PLACE_OF_LABEL["GPE"]:
        return None
    return _first_below(entities, k, depth, gives)


@lru_cache(maxsize=1 << 16)
def made_thing(entity: "Entity") -> bool:
    """The page defines a thing made and sold or a vehicle (``_MADE_HEADS``, ``VEHICLE_NOUNS``):
    a cheese, an ale, a brand, a steamer; no organisation, no place."""
    return not organisation(entity) and not _setting_kinds(entity) and (
        defining_head(entity) in _MADE_HEADS or defines(entity, VEHICLE_NOUNS))


def product_order(mention: str, label: str, ranked: List[dict],
                  entity_of: Callable[[str], "Entity"], k: int) -> List[dict]:
    """For a PRODUCT span whose first candidate is no :func:`made_thing` (a mountain, a
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
    (:func:`organisation`) whose bare title writes every word of the mention: the position, from
    ``k`` to ``depth``, of the first that is; None otherwise ("Pettigrove's" labelled ORG: the
    firm Pettigrove & Sons, below the street, the founder and his son; round 45). The component
    moves it into the first ``k`` for :func:`organisation_order`."""
    words = _org_words(mention)
    if label != "ORG" or not words:
        return None

    return _first_below(entities, k, depth, lambda e: _organisation_named(words, e))


def _unbuilt_order(mention: str, ranked: List[dict], entity_of: Callable[[str], "Entity"],
                   k: int) -> List[dict]:
    """:func:`setting_order` for a GPE span whose first candidate is :func:`built`: a country, a
    city or a region is no building, so the candidates among the first ``k`` that are neither
    built nor a person (:func:`clashes`) and whose title writes every name word of the mention go
    first, marked ``setting`` ("Motukava" is the kingdom, not the Royal Free Church of Motukava;
    round 43)."""
    if not ranked or not built(entity_of(ranked[0]["id"])):
        return ranked
    return _fitting_first(mention, ranked, entity_of, k,
                          lambda e: not built(e) and not clashes("GPE", kind(e)))


def named_kind(mention: str, any_case: bool = False) -> Optional[str]:
    """The kind a name says it names by its last word, a capitalised noun (in either case with
    ``any_case``: "Chinnakuppam harbour") of ``FACILITY_NOUNS`` or ``ORGANISATION_NOUNS`` after
    a name word ("Skjærvik University Hospital": hospital, "Kovalenko Chess School": school),
    lower case; None otherwise."""
    words = mention.split()
    if len(words) < 2 or not (any_case or words[-1][:1].isupper()):
        return None
    last = _WORD.findall(fold(words[-1]))
    noun = last[0] if last else None
    return noun if noun in NAMED_KIND_NOUNS else None


def kind_name_order(mention: str, ranked: List[dict], entity_of: Callable[[str], "Entity"],
                    k: int, label: Optional[str] = None) -> List[dict]:
    """For a name whose last word names a kind of place or body (:func:`kind_named`): the
    candidates among the first ``k`` of that kind whose page writes every word of the name (no
    ``unwritten`` word) go first, marked ``kind_name``; the hamlet or the city the name is taken
    from goes after them ("a temple town" is a town). Unchanged when none or all do."""
    flags = [not c.get("unwritten") and kind_named(mention, entity_of(c["id"]), label)
             for c in ranked[:k]]
    return _regroup(ranked, k, flags, "kind_name", first=True)


def kind_named(mention: str, entity: "Entity", label: Optional[str] = None) -> bool:
    """The mention's last word, in either case, names a kind of place or body
    (:func:`named_kind`: "Chinnakuppam harbour", "São Tarcísio airport", "Lindqvist's yard"), or
    its word before "of" does (:func:`kind_before_of`), and is the head of ``entity``'s page
    (:func:`_heads`, :func:`_holds_noun`: "yard" for a shipyard); or, but for a span labelled
    WORK_OF_ART, whose words say nothing of its kind ("The Coffee Road" is a memoir, not the
    road), its kind word in any language (:func:`_mention_kind_groups`) is its page's head's."""
    nouns = _mention_kinds(mention)
    if nouns and _holds_noun(nouns, _heads(entity)):
        return True
    if label == "WORK_OF_ART":
        return False
    groups = _mention_kind_groups(mention)
    return bool(groups) and bool(groups & groups_of(_heads(entity)))


@lru_cache(maxsize=1 << 16)
def _mention_kind_groups(mention: str) -> FrozenSet[int]:
    """The kinds (:mod:`~allennlp_longent.linking.kind_words`) a name gives in any language by
    its last word, in either case ("Kaarnakosken asema", "Khumbuza chorus"), or by its first
    word in a language that writes the kind first ("Gmina Kłobuszyce", "Masjid Watugilang"),
    when the name has another word (round 33)."""
    words = _WORD.findall(fold(mention))
    if len(words) < 2:
        return frozenset()
    first = kind_groups(words[0]) if words[0] in OTHER_LANGUAGES_KINDS else frozenset()
    return kind_groups(words[-1]) | first


@lru_cache(maxsize=1 << 16)
def _mention_kinds(mention: str) -> FrozenSet[str]:
    """The kinds :func:`kind_named` reads in a mention, read once per mention, not once per
    candidate page."""
    return frozenset({named_kind(mention, any_case=True), kind_before_of(mention)} - {None})


def kind_before_of(mention: str) -> Optional[str]:
    """The kind of place or body a name gives before "of" (:func:`title_head` of the mention:
    "Monastery of Agia Thalassini", "HOLY MONASTERY OF ...", "mausoleum of Kutlug Khan":
    monastery, mausoleum) when it is one of ``NAMED_KIND_NOUNS``; None otherwise (round 28)."""
    if not any(w in OF_WORDS for w in _title_words(mention)[1:]):
        return None
    head = title_head(mention)
    return head[0] if head and head[0] in NAMED_KIND_NOUNS else None


@lru_cache(maxsize=1 << 16)
def _heads(entity: "Entity") -> frozenset:
    """The head of the page's defining phrase and of its title before a comma ("Neelambal
    Temple, Neelapuram": temple)."""
    head = defining_head(entity)
    return frozenset(title_head(entity.title.split(",")[0])) | ({head} if head else set())


def numbers_written(mention: str, entity: "Entity") -> bool:
    """Every number of ``mention`` is written on ``entity``'s page, a two-digit one also as the
    end of a longer one (the '77 of "'77 cyclone" is 1977): "Typhoon No. 10" is not the page of
    Typhoon No. 18. A year that ends the mention (:func:`edition_year`) need not be written when
    the page's title has no number: "Wawrzynki 2024" is that year's festival, "Olaszrizling
    2022" a vintage of the wine, and neither has a page of its own (round 30)."""
    numbers = [t for t in bm25_tokens(mention) if t.isdigit()]
    if numbers and edition_year(mention) and not any(c.isdigit() for c in entity.title):
        numbers = numbers[:-1]
    if not numbers:
        return True
    written = _page_numbers(entity)
    return all(n in written or (len(n) == 2 and any(w.endswith(n) for w in written))
               for n in numbers)


_EDITION_YEAR = re.compile(r"(\S+)\s(?:1[0-9]|20)[0-9]{2}$")
# a year after these names a one-off event by its year ("the Guarita case of 2020" is not the
# affair of 2019), not an edition
_YEAR_PREPOSITIONS = frozenset("of in from since de del du von van".split())


def edition_year(mention: str) -> bool:
    """Whether ``mention`` ends with a year written right after its name ("Feria de Santa
    Acracia 2022", not "Guarita case of 2020"): the edition of a recurring event or the vintage
    of a product."""
    found = _EDITION_YEAR.search(mention.rstrip())
    return bool(found) and found.group(1).lower() not in _YEAR_PREPOSITIONS


@lru_cache(maxsize=1 << 16)
def _page_numbers(entity: "Entity") -> FrozenSet[str]:
    """The numbers of ``entity``'s title and description, read once per page."""
    return frozenset(t for t in bm25_tokens(f"{entity.title} {entity.description}")
                     if t.isdigit())


def names_other_kind(mention: str, entity: "Entity") -> bool:
    """The mention's last word names a kind (:func:`named_kind`) that ``entity``'s page does
    not: neither its title, nor its kind nouns (:func:`kind_nouns`), nor what it says of itself
    (:func:`_said_of_itself`) writes that noun, and the mention is no other name the page gives
    (:func:`~allennlp_longent.linking.names.page_aliases`: "was called the Hohrain Tramway").
    "Skjærvik University Hospital" is neither the town nor its university. A state's name
    (:func:`state_before_of`: "Republic of Ozodiston") names only a page whose title or kind
    nouns write that word: a city's page that says it lies in the republic is not the
    republic's."""
    noun, state = named_kind(mention), state_before_of(mention)
    if (noun is None and state is None) or tuple(
            t for t, _ in name_words(mention)) in page_aliases(entity):
        return False
    if state is not None and state not in set(_title_words(entity.title)) | kind_nouns(entity):
        return True
    if noun is None:
        return False
    written = _said_of_itself(entity)
    return noun not in written and not clips(noun, written)


# the words that name a sovereign state before "of" (round 31)
STATE_NOUNS = frozenset("""republic kingdom federation principality sultanate emirate duchy
    commonwealth empire confederation""".split())


def state_before_of(mention: str) -> Optional[str]:
    """The state noun a name opens with, followed by "of" ("Republic of Ozodiston", "the
    Kingdom of Sarn": republic, kingdom); None otherwise. Unlike :func:`kind_before_of`, the
    noun must open the name: "Tagbaloc Federation of Jeepney Drivers" is a drivers' union."""
    words = _words(mention)
    return words[0] if len(words) > 2 and words[0] in STATE_NOUNS and words[1] in OF_WORDS else None


@lru_cache(maxsize=1 << 16)
def _said_of_itself(entity: "Entity") -> FrozenSet[str]:
    """The words a page writes of itself: its title's, its :func:`kind_nouns`, and those of its
    first sentence and of its sentences with "it" as a subject (``_IT_SAYS``: "Since 1990 it has
    housed a museum", not "make it the largest") or opening with its title."""
    sentences = SENTENCE_END.split(entity.description.strip())
    title = _title_words(entity.title)
    words = set(title) | kind_nouns(entity)
    if sentences:
        words |= set(_WORD.findall(fold(sentences[0])))
    opening = " ".join(title)
    for sentence in sentences[1:]:
        folded = " ".join(_words(sentence))
        if _IT_SAYS.search(folded) or (opening and folded.startswith(opening)):
            words |= set(folded.split())
    return frozenset(words)


# heads that define a body of people acting as one (a club, a firm, a university): what a span
# labelled ORG names; "-works" heads too ("glassworks", "ironworks")
ORGANISATION_NOUNS = frozenset("""company firm corporation business bank brewery distillery club
    team side party union guild society association federation league foundation institute
    institution charity trust university college academy newspaper broadcaster network publisher
    cooperative co-operative operator airline school hospital council board agency ministry
    department authority commission committee band orchestra choir regiment brigade""".split())
# the last words that say what kind of place or body a name names (:func:`named_kind`)
NAMED_KIND_NOUNS = FACILITY_NOUNS | ORGANISATION_NOUNS
# the last words of titles that make a page a thing's when nothing else says (:func:`kind`)
_TITLE_KINDS = (NAMED_KIND_NOUNS | NATURAL_NOUNS | THING_NOUNS) - SURNAME_KINDS


# infobox fields that only an organisation's page has ("Headquarters: Guarita")
ORGANISATION_FIELDS = frozenset("headquarters industry employees league founder ceo".split())


# the words before "house" that make it a firm ("a perfume house", "a coffee trading house",
# "a cheese-ageing export house"), not a building ("a town house", "a public house")
TRADE_WORDS = frozenset("""trading trade auction export import perfume fashion publishing banking
    merchant merchants shipping commission couture wine sherry brandy champagne cognac spirits
    whisky tea coffee cheese spice silk fur tobacco carpet""".split())


@lru_cache(maxsize=1 << 16)
def organisation(entity: "Entity") -> bool:
    """The page defines an organisation: its defining head (``ORGANISATION_NOUNS``,
    ``BUSINESS_NOUNS`` since round 46, a "-works" or a "-yard", or a "house" after a word of
    trade, ``TRADE_WORDS``), or, with no head, its
    infobox fields (``ORGANISATION_FIELDS``); never a page that opens with a life's dates
    ("Desmond Vane (1944-2011) was a sound-system operator": a person; round 45)."""
    if field_kind(entity) == PERSON:
        return False
    head = defining_head(entity)
    if head == "house":
        return _trade_house(defining_words(entity))
    if head:
        return head in ORGANISATION_NOUNS or head in BUSINESS_NOUNS \
            or head.endswith(("works", "yard"))
    return bool(ORGANISATION_FIELDS & set(page_fields(entity)))


def _trade_house(words: Sequence[str]) -> bool:
    """The defining phrase ending in "house" names a trade before it: the house is a firm."""
    before = words[:-1] if words and words[-1] == "house" else words
    return any(part in TRADE_WORDS for word in before for part in word.split("-"))


# what a firm's name adds to its family's name, and a page may leave out ("E. Quarrier & Son",
# "Messrs. Quarrier", "Firma Quarrier", "A. Wibholm & Søn"), in English and, from general
# usage, other European languages (round 46); initials go as well
FIRM_WORDS = frozenset(fold(w) for w in """son sons bros brothers messrs firma cia cie søn sønner
    zoon zonen gebroeders sohn söhne gebrüder figli figlio fratelli filho filhos irmãos hijo hijos
    hermanos fils frères""".split())
# the heads of a trade's premises that a page defines a business by ("a cannery", "a bakery"):
# an organisation for :func:`organisation`, but no kind that names a body. Not "mill", "factory",
# "shop" or "store", which name the building as often as the firm (round 46: on dev60 to dev105
# they sent "Frères Vernadet" to a silk mill and "Nandibarman", a family, to its sweet shop)
BUSINESS_NOUNS = frozenset("cannery bakery tannery foundry creamery winery".split())


def _org_words(mention: str) -> FrozenSet[str]:
    """The words of an ORG span that an organisation's title must write: not the letters of a
    sports club (``CLUB_DESIGNATORS``), a family firm's words (``FIRM_WORDS``), initials or a
    possessive's "s" ("Yarema's yard")."""
    return frozenset(w for w in _words(mention) if len(w) > 1 or w.isdigit()) \
        - CLUB_DESIGNATORS - FIRM_WORDS


def organisation_order(mention: str, label: str, ranked: List[dict],
                       entity_of: Callable[[str], "Entity"], k: int,
                       capitals: bool = False) -> List[dict]:
    """For an ORG span whose first candidate is no organisation (:func:`organisation`): the
    organisations among the first ``k`` whose bare title writes every word and number of the
    mention, or a word it clips at its front ("Yarema's yard": Yarema Shipyard; "Yarema 470" is
    the boat), go first, marked ``organisation_title``; a family firm's words (``FIRM_WORDS``)
    and initials need not be written ("E. Quarrier & Son" is the Quarrier Distilling Company).
    A town's name labelled ORG names its club or its firm ("Calderwick beat Harrowfield":
    Calderwick RFC), as a place span prefers a place (:func:`place_order`). A name in capitals
    is left alone unless ``capitals`` (labels set by hand, round 46: "VALLANCE" on a stamp is
    the firm): datelines and headings write places so, and en_core_web_sm labels them ORG."""
    if label != "ORG" or not ranked or mention.isupper() and not capitals:
        return ranked
    words = _org_words(mention)
    if not words or organisation(entity_of(ranked[0]["id"])):
        return ranked
    entities = [entity_of(c["id"]) for c in ranked[:k]]
    flags = [_organisation_named(words, e) for e in entities]
    return _regroup(ranked, k, flags, "organisation_title", first=True)


def _organisation_named(words: AbstractSet[str], entity: "Entity") -> bool:
    """``entity`` is an organisation (:func:`organisation`) whose bare title writes ``words``
    (:func:`_org_words` of an ORG span; :func:`_writes_words`)."""
    return organisation(entity) and _writes_words(words, frozenset(_title_words(entity.title)))


def _writes_words(words: AbstractSet[str], title: FrozenSet[str]) -> bool:
    """Every word of ``words`` is a word of ``title``, that word with a plural "s" ("the
    Scarisbrooks", round 46) or clips one at its front ("yard" of "Yarema Shipyard":
    :func:`clips`)."""
    return all(w in title or w[-1:] == "s" and w[:-1] in title or clips(w, title)
               for w in words)


def _other_bearer(title: str) -> bool:
    """A bracketed qualifier that is no place word ("Mirren (opera)", not "Heron Island (Lake
    Mirren)")."""
    qualifier = qualifier_words(title)
    return bool(qualifier) and not qualifier & PLACE_NOUNS


def initial_order(mention: str, ranked: List[dict], title_of: Callable[[str], str],
                  k: int) -> List[dict]:
    """For a mention with initials (:func:`~allennlp_longent.linking.names.initial_pairs`): the
    candidates among the first ``k`` whose bare title writes every one of them go first, marked
    ``initial_title``; unchanged when none or all of them do."""
    pairs = initial_pairs(mention)
    if not pairs:
        return ranked
    titles = [bare_title(title_of(c["id"])) for c in ranked[:k]]
    return _regroup(ranked, k, [all(writes_initial(t, p) for p in pairs) for t in titles],
                    "initial_title", first=True)


def alias_order(mention: str, ranked: List[dict], entity_of: Callable[[str], "Entity"],
                k: int, label: Optional[str] = None) -> List[dict]:
    """For a mention that is no bare title among the first ``k`` (:func:`is_title`, with
    :func:`naming_titles` for ``label``): the candidates whose page gives its name words as
    another name of theirs go first, marked ``alias``, but not one that ``label`` excludes
    (:func:`label_excludes`: "Ada" labelled a person is not the hospital "known in the town as
    the Ada", "Nashlik" labelled LOC not the race "known as the Nashlik"; round 44), nor, for a
    span labelled as a product, an event or a work (``DEFINED_KINDS``), a settlement or a natural
    feature (:func:`_setting_kinds`: "Macuriján" labelled PRODUCT is the rum, not the town once
    called Macuriján; round 43); unchanged when none or all of them do."""
    mention = spelled_out(mention)  # "Harrowfield Iron Co." for "Harrowfield Iron Company"
    words = tuple(t for t, _ in name_words(mention))
    if not words or any(is_title(mention, ranked, naming_titles(label, entity_of), k)):
        return ranked
    head = [entity_of(c["id"]) for c in ranked[:k]]
    flags = [words in page_aliases(e) and not (label and label_excludes(label, e))
             and not (label in DEFINED_KINDS and _setting_kinds(e) & _LAND) for e in head]
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


DETERMINERS = frozenset("the a an this that these those his her its their our my your".split())
def common_noun(mention: str) -> Optional[str]:
    """The head noun of a span written without a name ("the fortress", "her well": a determiner
    and lower-case words), lower case; None for a span with a capitalised word after its first."""
    words = mention.split()
    if not words or any(w[:1].isupper() for w in words[1:]):
        return None
    if words[0][:1].isupper() and words[0].lower() not in DETERMINERS:
        return None
    head = _WORD.findall(words[-1].lower())
    return head[0] if head and head[0] not in DETERMINERS else None


@lru_cache(maxsize=1 << 16)
def kind_nouns(entity: "Entity") -> frozenset:
    """The words of :func:`defining_words` but the title's other words, and the head of
    ``entity``'s bare title: its last word, or the word before its first "of" ("Ballad of the
    Ashen King": ballad, not king). A page's name is not its kind: "jacira" written in a chat is
    not a kind noun of "The Instituto Jacira Moura works ..."."""
    head = title_head(entity.title)
    named = set(_title_words(entity.title)) - set(head)
    return frozenset(w for w in defining_words(entity) if w not in named) | frozenset(head)


def title_head(title: str) -> Tuple[str, ...]:
    """The head word of a bare title (:func:`kind_nouns`), as a tuple of none or one."""
    words = _title_words(title)
    of = next((i for i, w in enumerate(words) if w in OF_WORDS), None)
    return words[of - 1:of] if of else words[-1:]


def noun_order(mention: str, ranked: List[dict], entity_of: Callable[[str], "Entity"],
               k: int) -> List[dict]:
    """For a common-noun span (:func:`common_noun`): the candidates among the first ``k`` whose
    :func:`kind_nouns` hold its head noun (or the head without a plural "s" or "es"), alone or
    ending a compound (:func:`_holds_noun`), go first, marked ``kind_noun``; unchanged when none
    or all of them do."""
    head = common_noun(mention)
    if head is None:
        return ranked
    heads = {head}
    if head.endswith("s") and len(head) > 3:
        heads |= {head[:-1], head[:-2]} if head.endswith("es") else {head[:-1]}
    flags = [not c.get("label_clash") and _holds_noun(heads, kind_nouns(entity_of(c["id"])))
             for c in ranked[:k]]
    return _regroup(ranked, k, flags, "kind_noun", first=True)


def _holds_noun(heads: set, nouns: frozenset) -> bool:
    """``nouns`` hold one of ``heads``, or a compound that ends with it ("the works" for a
    glassworks, "the yard" for a shipyard: :func:`clips`)."""
    return bool(heads & nouns) or any(clips(h, nouns) for h in heads)


@lru_cache(maxsize=1 << 16)
def defines(entity: "Entity", nouns: frozenset) -> bool:
    """The page defines its entity by one of ``nouns``: its title opens with one and "of" ("Battle
    of Tellau"), or, for vehicles, opens with a ship's prefix ("RV Ingrid Åsland"), or, for
    events, with a storm's ("Typhoon Velma"), or its bracketed qualifier holds one ("Gideon Rusk
    (play)"), or the head of its defining phrase (:func:`defining_head`: "a rowing race held
    every summer") is one, or, for a page with no defining phrase, its title's last word
    ("Wennaby Lockout"). The head, not any word of the phrase: "a war poet" is a person, and the
    head outweighs a title ending in a surname ("Henry Flood was a statesman")."""
    title = _title_words(entity.title)
    if len(title) > 2 and title[0] in nouns and title[1] in OF_WORDS:
        return True
    if nouns is VEHICLE_NOUNS and len(title) > 1 and title[0] in SHIP_PREFIXES:
        return True
    if nouns is EVENT_NOUNS and len(title) > 1 and title[0] in STORM_PREFIXES:
        return True
    if set(_words(entity.title)[len(title):]) & nouns:  # the words after the bare title
        return True
    head = defining_head(entity)
    return (head if head is not None else title[-1] if title else "") in nouns


def is_event(entity: "Entity") -> bool:
    """The page defines an event (:func:`defines` with ``EVENT_NOUNS``)."""
    return defines(entity, EVENT_NOUNS)


def definition_order(label: str, ranked: List[dict], entity_of: Callable[[str], "Entity"],
                     k: int, mention: str,
                     title_of: Optional[Callable[[str], str]] = None) -> List[dict]:
    """For each kind of ``DEFINED_KINDS`` (events, works, vehicles; :func:`defines`): a span with
    that kind's label puts the candidates among the first ``k`` of that kind first, marked with the
    label in lower case ("Salma festival": the festival, not the well), unless a page never writes
    one of the span's name words (``unwritten``: "Tomoe Festival" is no other festival); a span of
    ``NEITHER_LABELS`` or of the other kind's label puts them after the others, marked
    ``<label>_clash`` ("Bir Salma" the quarter, not the Festival of Bir Salma). When ``mention``
    is the bare title of exactly one of them (``title_of``, by default :func:`naming_titles`),
    only :func:`named_after` may move them."""
    title_of = title_of or naming_titles(label, entity_of)
    if one_title(mention, ranked, title_of, k):
        return named_after(label, mention, ranked, entity_of, k, title_of)
    for kind_label, nouns in DEFINED_KINDS.items():
        flags = [defines(entity_of(c["id"]), nouns) for c in ranked[:k]]
        mark = kind_label.lower()
        if label == kind_label:
            promoted = [f and not c.get("unwritten") for f, c in zip(flags, ranked[:k])]
            ranked = _regroup(ranked, k, promoted, mark, first=True)
        elif _defined_clash(label, kind_label):
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
    words = set(_words(mention))
    if nouns is None or not words:
        return ranked
    entities = [entity_of(c["id"]) for c in ranked[:k]]
    titled = is_title(mention, ranked, title_of or naming_titles(label, entity_of), k)
    if any(t and defines(e, nouns) for t, e in zip(titled, entities)):
        return ranked
    quoted_ids = {c["id"] for c, e in zip(ranked, entities)
                  if defines(e, nouns) and quoted(mention, e)}
    flags = [defines(e, nouns) and (words <= set(_title_words(e.title)) or c["id"] in quoted_ids)
             for c, e in zip(ranked, entities)]
    ranked = _regroup(ranked, k, flags, label.lower(), first=True)
    # the quoted title is the name's evidence, not the kind alone (label_conflict reads the mark)
    return [{**c, "quoted_title": True} if c["id"] in quoted_ids else c for c in ranked]


_QUOTED = re.compile(r"[\"\u201c]([^\"\u201c\u201d]{1,80})[\"\u201d]")


def quoted(mention: str, entity: "Entity") -> bool:
    """``entity``'s page writes the mention's words, and no others, between double quotes: a
    title it is also known by ("It is also sung under the title \"Hollis Tackett\"": the ballad,
    for "Hollis Tackett" labelled WORK_OF_ART; round 45)."""
    words = _words(mention)
    return bool(words) and any(_words(m.group(1)) == words
                               for m in _QUOTED.finditer(entity.description))


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
                 and words <= set(_title_words(entities[i].title))), None)


@lru_cache(maxsize=1 << 16)
def gender(entity: "Entity") -> Optional[str]:
    """"male" or "female" for a person (:func:`kind`) whose page writes more masculine than
    feminine pronouns, or more feminine; None otherwise."""
    if kind(entity) != PERSON:
        return None
    words = _WORD.findall(entity.description.lower())
    male, female = sum(w in MASCULINE for w in words), sum(w in FEMININE for w in words)
    return None if male == female else "male" if male > female else "female"


def gender_order(mention: str, ranked: List[dict], entity_of: Callable[[str], "Entity"],
                 k: int) -> List[dict]:
    """For a mention opened by a title of address that gives a gender (``MALE_TITLES``,
    ``FEMALE_TITLES``: "Mrs Rusk"), the persons among the first ``k`` of the other gender
    (:func:`gender`) go after the others, marked ``gender_clash``; unchanged otherwise."""
    said = said_gender(mention)
    if said is None:
        return ranked
    flags = [gender(entity_of(c["id"])) not in (None, said) for c in ranked[:k]]
    return _regroup(ranked, k, flags, "gender_clash")


def said_gender(mention: str) -> Optional[str]:
    """"male" or "female" for a mention opened by a title of address that gives one
    (``MALE_TITLES``, ``FEMALE_TITLES``: "Mrs Rusk", "Madame Orbach"), else None."""
    words = mention.split()
    first = words[0].lower().rstrip(".") if len(words) > 1 else ""
    return "male" if first in MALE_TITLES else "female" if first in FEMALE_TITLES else None


def place_name(mention: str, label: str) -> str:
    """A place span's name without the larger place written after a comma ("Galde, Havsund":
    Galde), for the title rules; any other span as it is."""
    if label not in PLACE_SPAN_LABELS or "," not in mention:
        return mention
    name = mention.split(",", 1)[0].strip()
    return name or mention


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
    words = _words(mention)
    titles = [_title_words(title_of(c["id"])) for c in ranked[:k]]
    return [bool(words) and len(title) == len(words)
            and all(same_word(a, b) for a, b in zip(words, title)) for title in titles]
