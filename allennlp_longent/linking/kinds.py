"""What a knowledge-base page is, read from its text (a person or a thing, an event, a work or a
vehicle, a kind of place, an organisation, a made thing, a gender), and what a span's words say
of the kind they name.

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

The rules that move a span's candidates by these reads are in
:mod:`~allennlp_longent.linking.orders`.
"""

import re
from functools import lru_cache
from typing import TYPE_CHECKING, FrozenSet, Optional, Sequence, Tuple

from allennlp_longent.linking.candidates.bm25 import (
    bare_title,
    bm25_tokens,
    clips,
    fold,
    qualifier_words,
)
from allennlp_longent.linking.definitions import (
    PERSON,
    SENTENCE_END,
    THING,
    THING_NOUNS,
    VEHICLE_NOUNS,
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
    name_words,
    page_aliases,
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
# the prefixes of ships' names ("RV Ingrid Åsland", "MF Heimøy", "HMS Tarvey"), folded
SHIP_PREFIXES = frozenset("rv mv ms ss hms uss mf rms ps fv mt mts sv ins hmas hmcs".split())
# storms named as "Typhoon Velma", "Hurricane Hazel", "Cyclone Tracy"
STORM_PREFIXES = frozenset("typhoon hurricane cyclone".split())
# the kinds a page's definition gives, by the label of the spans that name them
DEFINED_KINDS = {"EVENT": EVENT_NOUNS, "WORK_OF_ART": WORK_NOUNS, "PRODUCT": VEHICLE_NOUNS}
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


def plain_words(text: str) -> Tuple[str, ...]:
    """Folded words and numbers (lower case, no accents), articles left out: "the Oast" and
    "Oast" are the same name, and so are "Sao Tarcisio" and "São Tarcísio"; "Yarema 470" is not
    "Yarema"."""
    return tuple(w for w in _NAME_WORD.findall(fold(text)) if w not in ARTICLES)


@lru_cache(maxsize=1 << 16)
def plain_title_words(title: str) -> Tuple[str, ...]:
    return plain_words(bare_title(title))


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
    if next(iter(plain_title_words(entity.title)), None) in KIND_FIRST_WORDS:
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
    words = plain_title_words(title)
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
    is of a kind of ``DEFINED_KINDS`` that :func:`orders.definition_order` puts after the others for
    ``label`` ("the king" labelled PERSON is no ballad)."""
    return clashes(label, kind(entity)) or any(
        defined_clash(label, kind_label) and defines(entity, nouns)
        for kind_label, nouns in DEFINED_KINDS.items())


def defined_clash(label: str, kind_label: str) -> bool:
    """A span with ``label`` names no entity of the defined kind ``kind_label``: it has another
    kind's label, or one of ``NEITHER_LABELS`` (:func:`orders.definition_order`)."""
    return label != kind_label and (label in NEITHER_LABELS or label in DEFINED_KINDS)


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


def after_article(words: Sequence[str]) -> bool:
    """``words`` (the word before a span, then the span's words) write a name after "the": the
    first word that is not an article is capitalised and is not a title or role."""
    if not words or words[0].lower() not in ARTICLES:
        return False
    rest = [w for w in words[1:] if w.lower() not in ARTICLES]
    return bool(rest) and rest[0][:1].isupper() and rest[0].lower().rstrip(".") not in HONORIFICS


def modifies_noun(following: Optional[str]) -> bool:
    """``following``, the word after a name, is a noun that the name modifies ("the Vane fight",
    "the Moura years"), so an article before the name is the noun's: a lower-case word of
    letters that is no stop word and no past-tense verb ("the Gazette asked")."""
    from spacy.lang.en.stop_words import STOP_WORDS

    return bool(following) and following.isalpha() and following.islower() \
        and following not in STOP_WORDS and bool(_WORD.fullmatch(following)) \
        and not (following.endswith("ed") and len(following) > 4)


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
LAND_NOUNS = NATURAL_NOUNS | SETTLEMENT_NOUNS


@lru_cache(maxsize=1 << 16)
def setting_kinds(entity: "Entity") -> FrozenSet[str]:
    """The kind of place ``entity``'s page defines: its defining head (its bare title's head
    without one) when that is a natural feature, a built place or a settlement, else those of its
    :func:`kind_nouns` (the defining phrase's words and the title's head: "a left-bank
    tributary" titled "Sulema River" is a river). Read once per page, not once per span."""
    head = defining_head(entity) or next(iter(title_head(entity.title)), None)
    if head in _SETTINGS:
        return frozenset({head})
    return kind_nouns(entity) & _SETTINGS


def built(entity: "Entity") -> bool:
    """The page defines a built place that is no settlement (``BUILT_NOUNS``, by
    :func:`setting_kinds`): a church, a station, a market, a farm; not "a temple and
    handloom-weaving town" (a town: :func:`~allennlp_longent.linking.definitions.defining_words`
    reads the coordination)."""
    kinds = setting_kinds(entity)
    return bool(kinds) and kinds <= BUILT_NOUNS


# heads that define a thing made and sold, beside those of ``MADE_QUALIFIERS``
_MADE_HEADS = MADE_QUALIFIERS | frozenset("brand trademark label product make".split())


@lru_cache(maxsize=1 << 16)
def made_or_body(entity: "Entity") -> bool:
    """The page defines no place: an organisation (:func:`organisation`), an event, a work or a
    vehicle (``DEFINED_KINDS``), a thing made and sold (``_MADE_HEADS``: a lager, a coffee
    brand), or its title's bracketed qualifier names another bearer of a place's name
    ("Hagewinde (lace)"), and it defines no place (:func:`setting_kinds`)."""
    if setting_kinds(entity):
        return False
    return (organisation(entity) or defining_head(entity) in _MADE_HEADS
            or other_bearer(entity.title)
            or any(defines(entity, nouns) for nouns in DEFINED_KINDS.values()))


def natural(entity: "Entity") -> bool:
    """The page defines a natural feature and no settlement (:func:`setting_kinds`): a river,
    a creek, a mountain, a sea lane. A GPE span does not name it: a town that took its river's
    name, or kept it as its older name, does ("Qaltoun" labelled GPE is Kfar Tellissa, "whose
    older name is Qaltoun", not the river Nahr Qaltoun; round 45)."""
    kinds = setting_kinds(entity)
    return bool(kinds) and kinds <= NATURAL_NOUNS


@lru_cache(maxsize=1 << 16)
def made_thing(entity: "Entity") -> bool:
    """The page defines a thing made and sold or a vehicle (``_MADE_HEADS``, ``VEHICLE_NOUNS``):
    a cheese, an ale, a brand, a steamer; no organisation, no place."""
    return not organisation(entity) and not setting_kinds(entity) and (
        defining_head(entity) in _MADE_HEADS or defines(entity, VEHICLE_NOUNS))


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


def kind_named(mention: str, entity: "Entity", label: Optional[str] = None) -> bool:
    """The mention's last word, in either case, names a kind of place or body
    (:func:`named_kind`: "Chinnakuppam harbour", "São Tarcísio airport", "Lindqvist's yard"), or
    its word before "of" does (:func:`kind_before_of`), and is the head of ``entity``'s page
    (:func:`_heads`, :func:`holds_noun`: "yard" for a shipyard); or, but for a span labelled
    WORK_OF_ART, whose words say nothing of its kind ("The Coffee Road" is a memoir, not the
    road), its kind word in any language (:func:`_mention_kind_groups`) is its page's head's."""
    nouns = _mention_kinds(mention)
    if nouns and holds_noun(nouns, _heads(entity)):
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
    if not any(w in OF_WORDS for w in plain_title_words(mention)[1:]):
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
    if state is not None and state not in set(plain_title_words(entity.title)) | kind_nouns(entity):
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
    words = plain_words(mention)
    return words[0] if len(words) > 2 and words[0] in STATE_NOUNS and words[1] in OF_WORDS else None


@lru_cache(maxsize=1 << 16)
def _said_of_itself(entity: "Entity") -> FrozenSet[str]:
    """The words a page writes of itself: its title's, its :func:`kind_nouns`, and those of its
    first sentence and of its sentences with "it" as a subject (``_IT_SAYS``: "Since 1990 it has
    housed a museum", not "make it the largest") or opening with its title."""
    sentences = SENTENCE_END.split(entity.description.strip())
    title = plain_title_words(entity.title)
    words = set(title) | kind_nouns(entity)
    if sentences:
        words |= set(_WORD.findall(fold(sentences[0])))
    opening = " ".join(title)
    for sentence in sentences[1:]:
        folded = " ".join(plain_words(sentence))
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


# the heads of a trade's premises that a page defines a business by ("a cannery", "a bakery"):
# an organisation for :func:`organisation`, but no kind that names a body. Not "mill", "factory",
# "shop" or "store", which name the building as often as the firm (round 46: on dev60 to dev105
# they sent "Frères Vernadet" to a silk mill and "Nandibarman", a family, to its sweet shop)
BUSINESS_NOUNS = frozenset("cannery bakery tannery foundry creamery winery".split())


def other_bearer(title: str) -> bool:
    """A bracketed qualifier that is no place word ("Mirren (opera)", not "Heron Island (Lake
    Mirren)")."""
    qualifier = qualifier_words(title)
    return bool(qualifier) and not qualifier & PLACE_NOUNS


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
    named = set(plain_title_words(entity.title)) - set(head)
    return frozenset(w for w in defining_words(entity) if w not in named) | frozenset(head)


def title_head(title: str) -> Tuple[str, ...]:
    """The head word of a bare title (:func:`kind_nouns`), as a tuple of none or one."""
    words = plain_title_words(title)
    of = next((i for i, w in enumerate(words) if w in OF_WORDS), None)
    return words[of - 1:of] if of else words[-1:]


def holds_noun(heads: set, nouns: frozenset) -> bool:
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
    title = plain_title_words(entity.title)
    if len(title) > 2 and title[0] in nouns and title[1] in OF_WORDS:
        return True
    if nouns is VEHICLE_NOUNS and len(title) > 1 and title[0] in SHIP_PREFIXES:
        return True
    if nouns is EVENT_NOUNS and len(title) > 1 and title[0] in STORM_PREFIXES:
        return True
    if set(plain_words(entity.title)[len(title):]) & nouns:  # the words after the bare title
        return True
    head = defining_head(entity)
    return (head if head is not None else title[-1] if title else "") in nouns


def is_event(entity: "Entity") -> bool:
    """The page defines an event (:func:`defines` with ``EVENT_NOUNS``)."""
    return defines(entity, EVENT_NOUNS)


_QUOTED = re.compile(r"[\"\u201c]([^\"\u201c\u201d]{1,80})[\"\u201d]")


def quoted(mention: str, entity: "Entity") -> bool:
    """``entity``'s page writes the mention's words, and no others, between double quotes: a
    title it is also known by ("It is also sung under the title \"Hollis Tackett\"": the ballad,
    for "Hollis Tackett" labelled WORK_OF_ART; round 45)."""
    words = plain_words(mention)
    return bool(words) and any(plain_words(m.group(1)) == words
                               for m in _QUOTED.finditer(entity.description))


@lru_cache(maxsize=1 << 16)
def gender(entity: "Entity") -> Optional[str]:
    """"male" or "female" for a person (:func:`kind`) whose page writes more masculine than
    feminine pronouns, or more feminine; None otherwise."""
    if kind(entity) != PERSON:
        return None
    words = _WORD.findall(entity.description.lower())
    male, female = sum(w in MASCULINE for w in words), sum(w in FEMININE for w in words)
    return None if male == female else "male" if male > female else "female"


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
