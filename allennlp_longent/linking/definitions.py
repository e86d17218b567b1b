"""What a page says its entity is, in whatever style the page is written.

Knowledge bases define their entities in more than one way. Each of these gives the *defining
phrase* (:func:`defining_words`), tried in this order:

1. a definition in the opening sentence: "Qasr Tamit is a mud-brick fortress on a rocky hill",
   "A caravanserai.", "Found in the vaults ..., it is a two-handed sword";
2. an infobox field: "Type: Dungeon (5 players)", "Type: cable-stayed road and rail bridge"
   (the last noun group: "rail bridge");
3. a later sentence whose subject is the entity or a pronoun: "In game terms, Aldric Vane is the
   undead final boss of Saltgrave Vaults", "It is a ten-player dungeon";
4. a noun phrase opening the page without a verb: "Striker; came through the academy",
   "District of São Tarcísio on the south bank", "Mount. A burning warhorse."

The opening sentence is the first that is more than a quotation, the title, a life's dates, a
birth or another name ("\\"The sea remembers.\\" Level 18-24 questline", "Alto Mirante. Type:
state", "Born 1998 in Itaquara. Singer and songwriter", "Known as Cardosinho. Striker"). A phrase
followed by ":" is an infobox field's name ("Full name:"), not a definition.

The phrase ends at a preposition, a clause or a number written out (``DEFINITION_STOPS``: "a
small rocky island two miles off the harbour"); hyphenated words stay one word ("in-game book",
"mud-brick fortress"). A participle after the noun ends it ("a festival held in June"), an
adjective in "-ed" before it does not ("a covered market", ``_cuts``; round 48). Its head
(:func:`defining_head`) says, through ``PERSON_NOUNS`` and ``THING_NOUNS``, whether the page is a
person's (:func:`head_kind`); a page with no phrase may still say so by its infobox fields
("Born:", "Founded:") or its first words ("Born 1961 in", "Founded in 1952 by"):
:func:`field_kind`. Chosen in round 20 on the dev sets
whose descriptions vary in style (``fixtures/freetext/dev9``, ``dev10``; docs/linking.md).
"""

import itertools
import re
from functools import lru_cache
from typing import TYPE_CHECKING, List, Optional, Sequence, Tuple

from allennlp_longent.linking.candidates.bm25 import bare_title, fold

if TYPE_CHECKING:
    from allennlp_longent.linking.knowledge_base import Entity

PERSON, THING = "person", "thing"
# words that end a page's defining phrase: "X is a mud-brick fortress on a rocky hill"
DEFINITION_STOPS = frozenset("""of on in at near from that which who whose where with by and
    or for to above below beside between under over since built founded opened about not but
    usually often also called known named off inside outside beyond across along behind through
    within two three four five six seven eight nine ten eleven twelve twenty hundred""".split())
# present participles that follow a defining noun ("an airport serving the city")
_ING = frozenset("""serving linking connecting joining running operating selling making producing
    brewing carrying covering broadcasting offering hosting flowing rising""".split())
# participles that follow only the noun of a thing made: a song written, a cloth woven
_MADE_PARTICIPLES = frozenset("written drawn woven sewn spun".split())
_PARTICIPLES = frozenset("""run held fought won lost sung sold made kept led grown shown given
    driven ridden""".split()) | _ING | _MADE_PARTICIPLES
# first words of an opening sentence that is no noun phrase ("Once a just ruler, he ...")
_NOT_NOUNS = frozenset("""born found once long now today here there every each first known also
    formerly nicknamed called named sometimes often usually""".split())
# adverbs between a defining noun and its participle ("a game first released in 2023")
_ADVERBS = frozenset("first later once originally still now".split())
# opening sentences that give a birth or another name, not a definition
_SKIPPED_OPENERS = frozenset("born known formerly also".split())
# heads that define a person
PERSON_NOUNS = frozenset("""man woman boy girl child son daughter wife husband widow widower
    mother father brother sister grandson granddaughter king queen prince princess lord lady
    knight squire captain priest priestess bishop abbot abbess monk nun saint hermit god goddess
    engineer architect painter artist sculptor poet writer author novelist composer singer
    songwriter musician bandmaster conductor actor actress dancer comedian player footballer
    striker goalkeeper forward defender midfielder skater rower athlete boxer jockey cyclist
    coach politician deputy senator governor mayor minister president chairman chairwoman
    founder owner merchant trader banker brewer farmer fisherman miner weaver shipbuilder
    shipwright glassmaker potter baker blacksmith smith carpenter mason teacher headmaster
    headmistress professor scholar scientist astronomer physician doctor surgeon nurse midwife
    lawyer judge clerk sailor seaman keeper guide vendor trainer presenter host journalist
    editor reporter historian archaeologist explorer soldier officer general colonel commander
    admiral ruler emperor empress chief chieftain leader unionist activist campaigner
    philanthropist inventor industrialist entrepreneur businessman businesswoman designer
    photographer decoyman flamecaller ranger healer wizard witch sorcerer warrior mercenary
    smuggler pirate bard harbourmaster executive director manager chef cook tailor driver pilot
    imam pastor vicar rector chaplain rabbi swami guru sage yogi monarch oba emir sultan maharaja
    raja rani maharani nawab chancellor councillor secretary treasurer administrator official
    servant maid butler researcher lecturer student pupil graduate worker labourer laborer docker
    welder fisherwoman entertainer heir heiress patriarch matriarch grandmother grandfather aunt
    uncle nephew niece cousin magnate tycoon socialite influencer rapper drummer broadcaster
    commentator newsreader critic playwright dramatist screenwriter filmmaker cinematographer
    cricketer batsman batter bowler wicketkeeper umpire referee swimmer runner sprinter wrestler
    grandmaster champion lyricist principal dean registrar magistrate advocate barrister
    solicitor attorney notary inspector constable sergeant detective policeman policewoman
    firefighter fireman landowner landlord landlady commissioner legislator premier ceo
    chairperson spokesperson spokesman spokeswoman congressman congresswoman diplomat ambassador
    consul envoy hero heroine villain protagonist character bride groom prophet apostle martyr
    preacher missionary deacon cardinal pope archbishop friar curate elder shaman paramedic
    veterinarian mountaineer diver navigator skipper boatman ferryman raftsman lumberjack trapper
    hunter herder shepherd shepherdess rancher gardener illustrator animator translator librarian
    co-founder cofounder heir-apparent volunteer""".split())
# nouns that define a vessel or a vehicle, which pages may call "she": a thing's heads too ("a
# pulling and sailing lifeboat" is no person for its "she"; round 48)
VEHICLE_NOUNS = frozenset("""ship liner schooner steamer steamship boat ferry lifeboat yacht
    barge tug trawler clipper locomotive engine aircraft airliner aeroplane airplane airship tram
    lorry vessel car motorboat submarine frigate cruiser warship battleship dhow sloop brig ketch
    catamaran hovercraft helicopter spacecraft tanker freighter dinghy canoe""".split())
# vehicles that more often modify another head: "a car and passenger ferry" is a ferry
_MODIFYING_VEHICLES = frozenset("car tram".split())
# heads that define an organisation, a building, a place or an object: never a person
THING_NOUNS = frozenset("""company firm corporation business bank brewery distillery mill works
    factory plant shop store market inn pub tavern taverna hotel restaurant cafe club team party
    union guild faction order society association foundation institute institution charity trust
    school college university academy hospital sanatorium infirmary church chapel cathedral
    minster abbey temple shrine mosque monastery museum library theatre cinema stadium ground
    arena park garden bridge road street lane square station airport airfield port harbour
    quay pier lighthouse canal railway line tramway metro tunnel dam reservoir well spring river
    lake sea bay island mountain hill valley fen moor moorland forest wood zone region district
    quarter town city village municipality state country province county kingdom capital
    dungeon vault vaults castle fortress fort tower house hall building newspaper paper magazine
    channel show programme series app software game product brand beer ale stout mild wine
    cheese potion sword weapon armour set spell ability mount horse warhorse questline quest
    caravanserai decoy shipyard dockyard boatyard yard award
    prize trophy medal resort range landing band group orchestra choir terminal avenue boulevard
    mall bazaar tomb mausoleum rink beach biography memoir anthology poetry
    documentary""".split()) | VEHICLE_NOUNS - _MODIFYING_VEHICLES
_KNOWN_HEADS = PERSON_NOUNS | THING_NOUNS
# the person nouns that also name a firm of that trade ("Kōsaka Shipbuilding Co. is a shipbuilder")
TRADE_AGENTS = frozenset("merchant trader banker brewer shipbuilder broadcaster".split())
_CONJUNCTIONS = frozenset({"and", "or"})
# words that open a second noun phrase after "and", not a second modifier of the same head
_DETERMINERS = frozenset("the a an his her its their one some later now also".split())
# words that end a defining noun group: the stops and the article after which a phrase goes on
# about something else ("a street along the river", the group after "and" in "a river and the
# border")
PHRASE_ENDS = DEFINITION_STOPS | {"the"}
# heads of a place where people live, which a coordination names last ("a temple and weaving town")
SETTLEMENT_HEADS = frozenset("""town city village hamlet suburb quarter district municipality
    parish borough""".split())
# endings of nouns that name a person ("biologist", "physician"), for heads of neither list
PERSON_SUFFIXES = ("ist", "ician")
# a life's dates in a page's first clause: "Norwegian business executive (b. 1984),", "Ivan
# Kovalenko (1924-1996),", "(Russian Ilyas Sharipov; born 1959)"
_LIFE = re.compile(r"\((?:[^()]*[;,]\s*)?(?:b\.|born)\s*(?:in\s+)?\d{3,4}\b"
                   r"|\((\d{3,4})\s*[–-]\s*(\d{3,4})\)")
LONGEST_LIFE = 110  # years; a longer span of dates is no life
# infobox fields that only a person's page has, and those that only a thing's has
PERSON_FIELDS = frozenset("born died spouse occupation nationality children parents".split())
THING_FIELDS = frozenset("""founded established opened headquarters industry capacity members
    products owner area population released launched built type location abbreviation ground
    league capital""".split())
_PHRASE_WORD = re.compile(r"[^\W\d_]+(?:[-'][^\W\d_]+)*")
_PHRASE_TOKEN = re.compile(_PHRASE_WORD.pattern + r"|[,;:()]")
# abbreviations after which a full stop ends no sentence ("Sundaravadivel & Sons Handlooms Pvt.
# Ltd. is a silk-weaving firm", "founded by K. Sundaravadivel"; round 47), with an initial
_ABBREVIATED = """Pvt Ltd Co Inc Corp Bros Messrs Mr Mrs Ms Dr St Ste Mt Ft Jr Sr No Rev Prof Capt
    Col Gen Lt Hon Fr""".split()
SENTENCE_END = re.compile(r"(?<=[.!?])" + "".join(rf"(?<!\b{a}\.)" for a in _ABBREVIATED)
                          + r"(?<!\b[A-Z]\.)\s+")
_QUOTED = re.compile(r"^\s*[\"“][^\"”]*[\"”]\s*:?\s*")  # '"Le Castor": Maxime Thibeault'
_DATES = re.compile(r"^\(?[\d\s–-]+\)?\.?$")
_BY_VERB = r".*?\b(?:is|was|are|were)\s+(?:an?|the)\s+"  # "... was a marble quarrying firm"
_DEFINES = re.compile(rf"^(?:{_BY_VERB}|(?:an?|the)\s+)(.*)$")
_DEFINED_BY_VERB = re.compile(rf"^{_BY_VERB}(.*)$")
_TYPE_FIELD = re.compile(r"\btype\s*:\s*([^.;(]+)", re.IGNORECASE)
# a sentence whose subject is the entity; {title} is filled with the page's escaped title
_SUBJECT = (r"(?:^|[,;]\s+)(?:it|he|she|this|(?:the\s+)?{title})\s+(?:is|was)\s+(?:an?|the)\s+"
            r"(.*)$")
# verbs that make an opening a sentence, not a noun phrase ("Salt and dates are sold here")
_VERBS = frozenset("is was are were has had have be been".split())
# a later sentence that names its entity by a noun ("The commercial bank, majority-owned ...")
_NOUN = rf"(?!(?:{'|'.join(sorted(_VERBS))})\b)[a-z][\w-]*"
_THE_NOUN = re.compile(rf"^[Tt]he\s+(?:((?:{_NOUN}\s+){{0,2}}{_NOUN}),|({_NOUN})\s+"
                       rf"(?:{'|'.join(sorted(DEFINITION_STOPS))})\b)")
_FIELD = re.compile(r"(?:^|[.;]\s*)([A-Za-z]+)\s*:")
_OPENING_KINDS = ((re.compile(r"^\(?born\b|^\(\d{3,4}\s*[–-]\s*\d{3,4}\)"), PERSON),
                  (re.compile(r"^(?:founded|established|opened|built|launched)\b"), THING))


def _phrase(text: str) -> Tuple[str, ...]:
    """The words of ``text`` up to the first of ``DEFINITION_STOPS``, lower case; or, at an
    "and"/"or", those words and the noun group that follows up to a stop or a mark, when that
    group (cut before a participle: "a citrus packing and export company based in"; round 47)
    is at most three words, has no determiner and ends in a thing's head (``THING_NOUNS``),
    and the words before "and" either end in no known head or the group's head is a settlement
    (``SETTLEMENT_HEADS``): "a sherry and brandy house", "a jam and fruit-preserving firm", "a
    temple and handloom-weaving town" (house, firm, town; round 44), where "a poet and novelist",
    "a city and river port" and "a river and the border" keep their first head."""
    tokens = _PHRASE_TOKEN.findall(text.lower())
    words: List[str] = []
    for at, word in enumerate(tokens):
        if word in _CONJUNCTIONS and words:
            rest = list(itertools.takewhile(
                lambda w: w not in PHRASE_ENDS and _PHRASE_WORD.fullmatch(w)
                and not _participle(w), tokens[at + 1:]))
            if (0 < len(rest) <= 3 and not _DETERMINERS & set(rest) and rest[-1] in THING_NOUNS
                    and (words[-1] not in _KNOWN_HEADS or rest[-1] in SETTLEMENT_HEADS)):
                return tuple(words + rest)
        if word in DEFINITION_STOPS:
            break
        if _PHRASE_WORD.fullmatch(word):
            words.append(word)
    return tuple(words)


def _sentences(entity: "Entity") -> List[str]:
    text = _QUOTED.sub("", entity.description.strip())
    return [s for s in SENTENCE_END.split(text) if s.strip()]


def _opening(sentences: List[str], title: str) -> Optional[str]:
    """The first sentence that is more than a quotation, the title, dates, a birth or another
    name (module docstring)."""
    title_words = set(_PHRASE_WORD.findall(fold(title)))
    for sentence in sentences:
        words = _PHRASE_WORD.findall(fold(sentence))
        if words and not _DATES.match(sentence.strip()) and not set(words) <= title_words | {
                "s", "a", "sa", "ltd", "inc", "plc"} and words[0] not in _SKIPPED_OPENERS:
            return sentence
    return None


# a closed bracketed aside inside a phrase ("Calvinistic Methodist (Presbyterian Church of Wales)
# chapel on ...": the chapel); a bracket with a number ("(1931 - 2009)") ends it as before
_BRACKETED = re.compile(r"\([^()\d]*\)")


def _noun_phrase(sentence: str, title: str) -> Tuple[str, ...]:
    """The phrase of an opening sentence written without a verb ("Striker; came through",
    "District of São Tarcísio", "International airport serving the city"), cut before a
    participle; () when the sentence opens otherwise, names an infobox field or repeats the
    title (a known head that is one of fewer words than the title's is a definition: "Museum in
    Kagamihama" of "Tokuzō Kōsaka Memorial Museum")."""
    clause = re.split(r"[,;(]", _BRACKETED.sub(" ", sentence), maxsplit=1)[0]
    if ":" in clause:
        return ()
    if _VERBS & set(_PHRASE_WORD.findall(clause.lower())):
        return ()
    words = _phrase(clause)
    cut = next((i for i, w in enumerate(words) if i and w in _PARTICIPLES), len(words))
    words = words[:cut]
    if not words or len(words) > 4 or words[0] in _NOT_NOUNS:
        return ()
    if words[0].endswith(("ing", "ed", "ly")) and words[-1] not in _KNOWN_HEADS:
        return ()  # "Serving the city", not "Shipbuilding company in Dorovets"
    title_words = set(_PHRASE_WORD.findall(title.lower()))
    if set(words) <= title_words and not (words[-1] in _KNOWN_HEADS
                                          and len(set(words)) < len(title_words)):
        return ()  # "Harrowfield Iron Company, founded ...", not "Museum in Kagamihama"
    return words


@lru_cache(maxsize=1 << 16)
def defining_words(entity: "Entity") -> Tuple[str, ...]:
    """The words, in order, of the phrase that defines ``entity`` (module docstring, 1 to 4)."""
    sentences = _sentences(entity)
    title = bare_title(entity.title)
    first = _opening(sentences, title)
    if first is not None:
        article = first.lower().startswith(("a ", "an ", "the "))
        cut = re.split(r"[,;:()]", first, maxsplit=1)[0] if article else first
        match = _DEFINES.match(cut.lower())
        words = _phrase(match.group(1)) if match else ()
        if article and words and words[-1] not in _KNOWN_HEADS:
            # a name cut at its bracket, "The Società Marmifera Tognoni (SMT) was a marble
            # quarrying firm", is no definition: the verb's phrase is (round 47)
            verb = _DEFINED_BY_VERB.match(first.lower())
            words = (_phrase(verb.group(1)) if verb else ()) or words
        if words:
            return words
    field = _TYPE_FIELD.search(entity.description)
    if field:
        words = _phrase(re.split(r"\b(?:and|or)\b", field.group(1).lower())[-1])
        if words:
            return words
    subject = re.compile(_SUBJECT.format(title=re.escape(title.lower())))
    for sentence in sentences:
        match = subject.search(sentence.lower())
        if match and (words := _phrase(match.group(1))):
            return words
    phrase = (_noun_phrase(first, title) or _named_then_defined(first, title)
              if first is not None else ())
    return phrase or _anaphor(sentences[1:])


_APPOSITIVE_STOPS = DEFINITION_STOPS - _CONJUNCTIONS


def _participle(word: str) -> bool:
    """A participle that ends a defining noun phrase ("band formed in", "a race held")."""
    return word in _PARTICIPLES or word.endswith("ed")


# words after an "-ed" word that say where, not what: "a lake bed south of"
_DIRECTIONS = frozenset("north south east west inland upstream downstream".split())


def _cuts(words: Sequence[str], at: int) -> bool:
    """``words[at]`` is a participle that ends the noun before it ("a festival held", "a shepherd
    turned outlaw", "a brig carrying slate"), not an adjective in "-ed" before the phrase's noun
    ("a covered market", "a small uninhabited island", "a light wheeled tractor", "a dark red
    wine": the word after it is a known head or the phrase's last; round 48)."""
    word = words[at]
    if not _participle(word) or not at:
        return False
    if word in _PARTICIPLES or at + 1 == len(words) or words[at - 1] in _KNOWN_HEADS:
        return True
    following = words[at + 1]
    return (not (following in _KNOWN_HEADS or at + 2 == len(words)) or following in _DIRECTIONS
            or following.endswith("ly") or _participle(following))


def _appositive(text: str) -> Tuple[str, ...]:
    """The noun phrase opening ``text`` after an article, read through "and"/"or" ("main wet and
    dry market of": main, wet, dry, market) and cut before a participle ("band formed in"); () for
    more than six words, or without an article unless it ends in a known head (``PERSON_NOUNS``,
    ``THING_NOUNS``: "centre-right" is no definition)."""
    article = re.match(r"\s*(?:an?|the)\s+", text.lower())
    words: List[str] = []
    found = _PHRASE_WORD.findall(text.lower()[article.end() if article else 0:])
    for at, word in enumerate(found):
        if _cuts(found, at) or word in _APPOSITIVE_STOPS:
            break
        if word not in _CONJUNCTIONS:
            words.append(word)
    if not words or len(words) > 6 or words[0] in _NOT_NOUNS or (
            words[-1] not in _KNOWN_HEADS and not article):
        return ()
    return tuple(words)


def _named_then_defined(sentence: str, title: str) -> Tuple[str, ...]:
    """The phrase after a name in an opening sentence: "Aréna Sandy-Gillanders (Sandy Gillanders
    Arena): indoor ice rink of ..." (a colon after the title or a name of more than one word,
    then a phrase in lower case; "Type: shipyard" is a field), or "Tabuan Public Market, the main
    wet and dry market of ..." (the title, then an appositive after an article)."""
    plain = _BRACKETED.sub(" ", sentence).strip()
    title_words = set(_PHRASE_WORD.findall(fold(title)))
    name, colon, rest = plain.partition(":")
    named = _PHRASE_WORD.findall(fold(name))
    if colon and named and (len(named) > 1 or set(named) <= title_words) and re.match(
            r"\s*[a-z]", rest):
        return _appositive(re.split(r"[,;(]", rest, maxsplit=1)[0])
    parts = re.split(r",\s*", plain)
    if (len(parts) > 2 and set(_PHRASE_WORD.findall(fold(parts[0]))) <= title_words
            and re.match(r"(?:an?|the)\s", parts[1])):
        return _appositive(parts[1])
    return ()


def _anaphor(sentences: List[str]) -> Tuple[str, ...]:
    """The noun of the first sentence that opens "The <noun>," or "The <noun> <preposition>"
    ("The commercial bank, majority-owned by ...", "The derby between ..."), or ()."""
    for sentence in sentences:
        match = _THE_NOUN.match(sentence)
        if match:
            return _phrase(match.group(1) or match.group(2))
    return ()


def defining_head(entity: "Entity") -> Optional[str]:
    """The head noun of :func:`defining_words`: its last word before a participle that follows
    the noun ("a rowing race held every summer", "an airport serving the city": race, airport;
    "a war poet": poet); the title's last word when the phrase opens with the title ("The Herring
    Riot broke out in Gullhaven": a sentence about it, not a definition); None without a
    phrase."""
    words = defining_words(entity)
    title = tuple(_PHRASE_WORD.findall(bare_title(entity.title).lower()))
    if title and words[:len(title)] == title:
        return title[-1]
    for i in range(1, len(words)):
        if _cuts(words, i):
            before = [w for w in words[:i] if w not in _ADVERBS]
            return before[-1] if before else words[i - 1]
    return words[-1] if words else None


def head_kind(entity: "Entity") -> Optional[str]:
    """``person`` or ``thing`` by the head of the defining phrase (``PERSON_NOUNS``,
    ``THING_NOUNS``), else by the last word of the title's bracketed qualifier ("Quintela
    (app)"); None for other words or none. A head that the phrase says was written, drawn or
    woven (``_MADE_PARTICIPLES``) is a thing's, whatever the word ("a son written by": a song;
    round 44). A defining head that names a trade's firm as often as its man (``TRADE_AGENTS``:
    "a shipbuilder based in Kagamihama") gives the page's :func:`field_kind` when it has one
    ("Founded: 1912"; round 47)."""
    if _MADE_PARTICIPLES & set(defining_words(entity)):
        return THING
    qualifier = re.search(r"\(([^)]*)\)", entity.title)
    qualified = list(_phrase(qualifier.group(1))[-1:]) if qualifier else []
    heads = [defining_head(entity)] + qualified
    for i, head in enumerate(heads):
        if head in PERSON_NOUNS:
            return field_kind(entity) or PERSON if i == 0 and head in TRADE_AGENTS else PERSON
        if head in THING_NOUNS:
            return THING
    if any(head and len(head) > 5 and head.endswith(PERSON_SUFFIXES) for head in heads):
        return PERSON
    return None


@lru_cache(maxsize=1 << 16)
def field_kind(entity: "Entity") -> Optional[str]:
    """``person`` or ``thing`` by a page's first words ("Born 1961 in", "(1904-1979).",
    "Founded in 1952 by") or, failing those, by more infobox fields of the one
    (``PERSON_FIELDS``: "Born:") than of the other (``THING_FIELDS``: "Founded:",
    "Headquarters:"); None otherwise."""
    opening = _QUOTED.sub("", entity.description.strip()).lower()
    for pattern, found in _OPENING_KINDS:
        if pattern.search(opening):
            return found
    life = _LIFE.search(re.split(r"[,;:](?![^()]*\))", opening, maxsplit=1)[0])
    if life and (life.group(1) is None
                 or 0 < int(life.group(2)) - int(life.group(1)) <= LONGEST_LIFE):
        return PERSON
    fields = page_fields(entity)
    person = sum(f in PERSON_FIELDS for f in fields)
    thing = sum(f in THING_FIELDS for f in fields)
    return None if person == thing else PERSON if person > thing else THING


@lru_cache(maxsize=1 << 16)
def page_fields(entity: "Entity") -> Tuple[str, ...]:
    """The names of a page's infobox fields, lower case, in order ("Founded: 2011." gives
    "founded")."""
    return tuple(m.group(1).lower() for m in _FIELD.finditer(entity.description))
