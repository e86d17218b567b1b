"""Names a page writes: the evidence of ``unwritten_nil``'s rule (a mention whose name word no
candidate's page writes is NIL, :mod:`allennlp_longent.linking.cascade`).

A name word of a mention is a capitalised word of at least two letters that is not a title or
role written before a name ("Dr", "Gov.", "Skipper", "Engr.", "Alhaji", "Thiru", "Smt.") nor the
letters that mark a sports club ("FC", "FK", "SK": ``CLUB_DESIGNATORS``) or a company's legal
form ("Ltd", "PrJSC": ``LEGAL_FORMS``); accents are folded
("Fernández" is "fernandez"). The *forms* of a page are its words, the initials of each run of
capitalised words of its title and description, with and without stop words ("WWF" for World
Wrestling Federation), its dotted abbreviations ("us" for "U.S.") and each two neighbouring
words of its title written joined ("ileosa" for Ilé-Ọ̀sà). A page writes the name word t when
one of its forms w

- equals t;
- shares with it a prefix of at least max(4, |t| - 1) letters: an inflection or derivation
  ("Corranders" where the page writes "Corrander", "Hungary" beside "Hungarian", "Alex" for
  "Alexander");
- is t plus at most two letters, or t is w plus at most two, the shorter of at least five letters:
  a suffix such as a definite article ("Galdetinden" where the page writes "Galdetind");
- is one edit from t when |t| >= 5: a spelling variant ("Seyhun" and "Seyhoun");
- shares with t a stem of at least seven letters after which one of them has a single letter
  and the other one to four: a case ending ("Kłobuszycach" where the page writes "Kłobuszyce",
  round 30: :func:`~allennlp_longent.linking.candidates.bm25.inflected`);
- ends with t, at least two letters longer, |t| >= 4: a name clipped at its front ("Tunde" for
  "Babátúndé", round 22);
- or, when t is written abbreviated (a trailing full stop, "Pt.", two letters, "Ft", or, round
  36, three to five letters with no vowel, a capital and then lower case, "Bldg", "Jln"), starts
  with t's first letter and holds its letters in order ("port", "fort", "building");
- or, when w is a name word of the page (:func:`page_names`: its title's, or a capitalised word
  that opens no sentence), w and t are one name romanised two ways ("Chinmul" and "Jinmul",
  "Wakrim" and "Ouakrim": :mod:`~allennlp_longent.linking.candidates.transliteration`, round 29).
  An apostrophe between one or two letters and a lower-case one marks aspiration and does not
  split the word ("Ch'ŏnhae" is "chonhae"); lower-case letters after an apostrophe or a colon
  that end the word are a case ending and no name word ("Keremoz'un" is "keremoz", round 30).

Each clause only makes the rule fire less: a variant makes a name written, never unwritten.
The clauses come from the names the rule called unwritten in real prose, where every mention has
an entity (Re-DocRED's development documents, ``scripts/linking/unwritten_in_prose.py``), and
the titles from English usage; neither from the free-text sets. Round 22 added, from the
free-text dev set dev12 (names of West Africa): the front-clipped clause, joined title words,
middle names (the inner name words of a mention whose first and last are the title's first and
last: "Rukayat Abeni Odunsi" for Rukayat Ọdúnsì) and the titles of other conventions ("Engr.",
"Hon.", "Alhaji", "Senhora").

Round 26 added the titles of address of other languages, from general usage ("Mheshimiwa",
"Nana", "Doña", "Maître": ``HONORIFICS``), prompted by the free-text dev sets dev16..dev19 where
they made persons NIL (round 30 those of twelve more languages, prompted by dev24..dev35:
"Selma Hanım", "Abune Tsadiq", "Domun Sunim"); an abbreviation of two letters or more that
opens a name ("Bro. Kofi Ato": :func:`dotted_title`), a title in whatever language; and a
reason to fire: a page that writes the mention's full name after a kin word ("married to the
teacher Peter Owino") names a relative, not its entity (:func:`kin_named`). Round 44 added
those of seven more languages, prompted by dev82..dev95 ("Meester Delbeke", "Daw Mya Thet"),
and "big" and "great" before a kind ("the Big Fire"), as "old" and "little" were.

Initials add a reason to fire (round 16, chosen on the free-text dev sets). An initial written
beside a name word ("L. Ambros", "Ruth P.") is written by a page that writes a word with that
first letter on the same side of that name word ("Ludovic Ambros", "Ruth Pennock", "L. Ambros"):
"K. Ambros" among pages of Ludovic, Clara and Felix Ambros names a relative the KB lacks. In
Re-DocRED's development documents 1 of the 62 mentions with such an initial is not written so on
its own entity's page. ``orders.initial_order`` puts the candidates whose title writes it first.

``spelled_out`` writes out a street abbreviation that ends a name ("Pellow St." is Pellow
Street; a first "St" stays a saint), for the spaCy component's query and ``orders.title_order``.
"""

import re
from functools import cache, lru_cache
from typing import (
    TYPE_CHECKING,
    AbstractSet,
    Callable,
    FrozenSet,
    Iterable,
    List,
    Optional,
    Sequence,
    Set,
    Tuple,
)

from allennlp_longent.linking.candidates.bm25 import (
    bare_title,
    bm25_tokens,
    clips,
    fold,
    known,
    same_word,
    variant,
)
from allennlp_longent.linking.candidates.transliteration import sounds_alike_in
from allennlp_longent.linking.definitions import PHRASE_ENDS, THING_NOUNS, defining_words
from allennlp_longent.linking.hypocorisms import nicknames
from allennlp_longent.linking.kind_words import share_kind

if TYPE_CHECKING:
    from allennlp_longent.linking.knowledge_base import Entity

# the titles of address of other languages, from general usage (round 26): Swahili, Akan,
# Ewe, Yoruba, Igbo, Hausa, Spanish, Portuguese, Italian, French, Dutch, Scandinavian, Welsh,
# Filipino, South Asian, Arabic, Persian, Turkic, Hebrew, Slavic and Greek, and kin words
# used as titles ("Mama Achieng'"); not those that are also common given names or surnames
# ("Lola", "Tito", "Eze", "Igwe")
_OTHER_LANGUAGES_TITLES = """bwana bw bibi bi mzee mheshimiwa mhe askofu mwalimu mwl daktari dkt
    ndugu nana opanyin osofo maame egya togbe naa oba olori baba iya mama papa nze sarki don
    doña licenciado licenciada lic ingeniero ingeniera arq abogado abog padre madre hermano
    hermana sor fray tata profesor profesora dottore dott avv sig sigra monsieur maître mgr
    monseigneur abbé père frère sœur soeur meneer mevrouw dhr mevr dominee pfarrer fru fröken
    parchedig parch kapitan kap atty cong brgy konsehal ate kuya manong manang begum sahib babu
    swami mullah mufti ustadh ustaz agha aga bey pasha effendi hoja khoja hodja janob domla rav
    reb rebbe rabbi gospodin gospozha kyrios kyria"""
# and the titles of the languages that list left out, from general usage (round 30):
# Maghrebi, Greek, Korean and Japanese (also written joined to the name with a hyphen:
# "Kim-ssi", "Tanaka-san"), Turkish, Malay, Vietnamese, Ethiopian, Polish, Hungarian,
# Finnish, Afrikaans, Thai, Spanish, Portuguese, and English church titles; again not those
# that are also common names or name parts ("Chan", "Pak", "Tuan", "Ato", "Abba", "Ras"),
# folded too ("Irmã" is "Irma", "Úr" is "Ur")
_MORE_LANGUAGES_TITLES = """lalla barba kapetan kyr pater ssi nim sunim seunim sajang sajangnim
    hoejang seonsaeng seonsaengnim san sensei senpai dono hanım abla ağabey hoca hocam usta dayı
    amca teyze hacı yb yab datuk dato datin puan encik cik bapak ibu thầy nsnd nsưt woizero weyzero
    abune qes kes memhir dejazmach fitawrari grazmach pan pani ks ksiądz inż asszony néni bácsi özv
    herra rouva neiti tohtori maisteri rovasti kirkkoherra pastori oom tannie mevrou juffrou ds khun
    ajarn achan monseñor tío sra srta dra seu frei irmão doutor doutora venerable metropolitan
    patriarch archimandrite"""
# and a few more from general usage (round 32), prompted by dev43 and dev24 to dev37 where they
# made persons NIL: Javanese and Indonesian ("Mbak Ratna", "Mbah Karyo", "Nyonya Oey",
# "Kanjeng Sunan"), Sesotho ("Ntate Mokhethoa"), Thai ("Nayok Anan", a mayor), and the
# Cantonese and Hokkien "Ah" before a given name ("Ah Kiew"); not "Pak", "Bu", "Mas", "Ong",
# "Chi" or "Si", which are also surnames or name parts
_ROUND_32_TITLES = "mbak mbah nyonya kanjeng ntate nayok ah"
# and, from general usage (round 44), prompted by dev82 to dev95 where they made persons NIL,
# the titles and kin words of address of Dutch and Flemish ("Meester Delbeke", "Moeder
# Aldegonde"), Italian ("Maestro Frediani"), French ("Mademoiselle Tavernel"), Indonesian
# ("Opa Bram"), Burmese ("Daw Mya Thet", "Sayagyi U Tin Khaing"), Arabic as English writers
# spelt it ("Shaykh", "Seedy Hassan", "Hadjee"), Russian and German, with the others of the same
# families; not those that are also given names or name parts ("Om", "Nona", "Zia", "Donna",
# "Abu", "U", "Ko", "Ma", "Maung"; "Pépé" folds to the Spanish "Pepe"); and "big" and "great",
# written before a name as "old" and "little" are ("the Big Fire", "Great Sayl")
_ROUND_44_TITLES = """meester moeder zuster broeder nonkel tante opa oma pastoor juffrouw
    mijnheer menheer maestro maestra nonno nonna signorina suor cavaliere cav ingegnere avvocato
    mademoiselle mère tonton mémé curé docteur nyai mbok daw saya sayagyi sayadaw thakin
    ashin shaykh shaikh sheik sheykh sidi seedy sayyidi sayyida hajj hajja hadji hadjee hajjah
    mawlana abuna batyushka matushka dyadya tyotya babushka dedushka onkel fräulein meister
    schwester big great"""
# and, from general usage (round 46), prompted by dev101 to dev105: "comrade" and its Russian,
# the German "Hochwürden" (a priest), and the dialect forms of "old" ("Owd Sam", "Auld Rab")
_ROUND_46_TITLES = "comrade tovarishch hochwürden owd auld"
# and, from general usage (round 47), prompted by dev97, dev104 and dev109 where they made persons
# NIL: the Sardinian "tziu" and "tzia" (uncle, aunt), the Maltese "ziju", "zija" and "surmast" (a
# schoolmaster), the Cape Verdean Creole "nhô" (Mr) and "grandmaster"; not its "nha" (Mrs), which
# folds to the Vietnamese "nhà" (a house: "Nhà nghỉ Bảy Hòa" is a guesthouse), nor the Maltese
# "Sur" (Mr), also a place's name; "granny" fixed one span and broke one (another granny, NIL)
_ROUND_47_TITLES = "tziu tzia ziju zija surmast nhô grandmaster"
# and, from general usage (round 48), prompted by dev111, dev112 and dev115 where they made persons
# NIL: Catalan "senyor", "senyora", "senyoreta"; Breton "aotrou" (Mr) and "itron" (Mrs); "hazrat"
# and "revd"; the Kashmiri and Urdu kin words "baji" (elder sister), "ded" (grandmother) and
# "kak" (elder brother, also Malay and Indonesian); not "ji" or "joo", also Korean family names
_ROUND_48_TITLES = "senyor senyora senyoreta aotrou itron hazrat revd baji ded kak"
# "Saint" in other languages, for a page that writes "Saint" ("Sankt Hiltgund", "Sint Orsella",
# "Agia Melina", "Szent Bórta", "Heilige Hiltgund"), with the abbreviations and inflected forms
# (Greek, Polish); not the Romance "Santa", "Santo", "São", "Sainte" and their abbreviations,
# which also begin the names of the places and churches themselves ("Santa Iluminada" labelled
# FAC is the shrine: ``orders.name_bearers``), nor "Aya", also a given name (round 31)
_SAINT_WORDS = """sankt sint szent sveti sveta svatý svatá sv agios agia agias agiou ayios ayia
    hagios hagia święty święta świętej świętego św heilige heiliger naomh"""
# Titles, ranks, roles and kin words written before a name that a page may leave out ("Dr Kell"
# for Ambrose Kell), with their usual abbreviations; also what is written after one ("Jr").
HONORIFICS = frozenset("""mr mrs ms mx miss mister missus messrs dr doctor sir dame lady lord st
    saint captain capt cpt skipper father mother sister brother aunt auntie uncle cousin widow
    grandfather grandmother grandpa grandma old young little rev reverend fr pastor parson vicar
    bishop archbishop abbot abbess cardinal pope deacon elder prof professor king queen prince
    princess duke duchess earl count countess baron baroness emperor empress master mistress
    madam madame mme mlle herr frau general gen colonel col major maj lieutenant lt sergeant sgt
    corporal cpl private pvt admiral adm commodore commander cmdr officer constable inspector insp
    detective det superintendent supt sheriff marshal chief judge justice mayor alderman governor
    gov senator sen representative rep president pres chancellor minister premier councillor
    jr jnr sr snr esq ii iii iv
    engr ing hon honourable honorable alhaji alhaja hajia mallam malam sheikh imam otunba
    senhor senhora senor senora signor signora dona haji hajji sayyid thiru thirumathi tmt smt
    shri shrimati sri kumari selvi pandit ustad""".split()) | frozenset(
    fold(w) for w in f"{_OTHER_LANGUAGES_TITLES} {_MORE_LANGUAGES_TITLES} {_SAINT_WORDS} "
         f"{_ROUND_32_TITLES} {_ROUND_44_TITLES} {_ROUND_46_TITLES} {_ROUND_47_TITLES} "
         f"{_ROUND_48_TITLES}".split())
# the letters that mark a sports club in many languages ("FK Dorovets" for FC Dorovets, "Sao
# Tarcisio FC" for Esporte Clube São Tarcísio): a page may write another of them, or none
CLUB_DESIGNATORS = frozenset("fc fk afc rfc sc sk ik bk".split())
# the legal forms of companies, which pages often leave out ("PrJSC Yarema Shipyard", "Quintela
# Digital S.A.", "Selvaraj Textiles Pvt Ltd"); since round 32 also those of Malaysia and
# Singapore, Australia and South Africa, Finland, Hungary, Ireland, Poland, Czechia and
# Slovakia, Indonesia, Thailand, Portugal, Brazil, Russia, Denmark, Germany, France, Spain,
# Belgium, the Netherlands, Mexico, Turkey and Japan, from
# general usage ("Merbulan Tin Bhd", "Khumbuza Bus Service (Pty) Ltd", "Orvon Leipomo Oyj"); not
# those that are also words, names or abbreviations ("AS", "Teo", "Co", "AO", "PT": "Pt" is Port;
# "SAS", "EPE", "ZAO", "d.o.o.": Sas, Epe, Zao and Doo are names), nor the Finnish "Ky", which
# folds to the Vietnamese name word "Ký" ("Khúc Ký" went to a page)
LEGAL_FORMS = frozenset("""ltd ltda llc llp inc plc gmbh ag sa asa ab oy bv nv spa srl sarl pjsc
    jsc prjsc ojsc ooo tov pao pvt corp limited incorporated berhad bhd sdn pte pty oyj kft
    zrt nyrt bt teoranta sp sro spol tbk pcl lda eireli oao aps kgaa kg ohg sasu snc sl slu sprl
    bvba vof cv sti kk""".split())
# what a capitalised word may be without being a name word (module docstring)
_NOT_NAME_WORDS = HONORIFICS | CLUB_DESIGNATORS | LEGAL_FORMS
_RUN = re.compile(r"[A-Z][\w'-]*(?:\s+(?:(?:of|and|the|for|de|von|van|la)\s+)*[A-Z][\w'-]*)*")
_DOTTED = re.compile(r"\b(?:[A-Za-z]\.){2,}")


# the particles of names in other languages, which acronyms leave out ("Universidade Federal de
# São Tarcísio": UFST)
PARTICLES = frozenset("de da do das dos du des di del della von van der den la le".split())


def initials(phrase: str) -> Set[str]:
    """The initials of a phrase's words, with and without its stop words and ``PARTICLES``."""
    words = fold(phrase).split()
    if not words:
        return set()
    return {"".join(w[0] for w in words), "".join(w[0] for w in words if bm25_tokens(w)),
            "".join(w[0] for w in words if bm25_tokens(w) and w not in PARTICLES)} - {""}


# an apostrophe inside a syllable, after one or two letters and before a lower-case letter: the
# aspiration mark of McCune-Reischauer ("Ch'ŏnhae", "Ki-ch'ŏl"), not a clitic ("O'Brien", "d'Or")
_APOSTROPHE_SYLLABLE = re.compile(r"\b([^\W\d_]{1,2})['’ʼ](?=[^\W\d_A-Z])")


@lru_cache(maxsize=1 << 16)
def page_forms(entity: "Entity") -> FrozenSet[str]:
    """The forms of the module docstring: an entity page's folded words, and the initials of its
    title and of each run of capitalised words in its title and description."""
    text = f"{entity.title}. {entity.description}"
    runs = {a for run in _RUN.findall(text) if len(run.split()) > 1 for a in initials(run)}
    dotted = {fold(d.replace(".", "")) for d in _DOTTED.findall(text)}
    bare = bare_title(entity.title)
    title = bm25_tokens(bare)
    joined = {a + b for a, b in zip(title, title[1:])}  # "Ileosa" for Ilé-Ọ̀sà
    syllables = {token for word in text.split() if _APOSTROPHE_SYLLABLE.search(word)
                 for token in bm25_tokens(_APOSTROPHE_SYLLABLE.sub(r"\1", word))}
    return frozenset(bm25_tokens(text)) | syllables | runs | dotted | joined | initials(bare)


def _in_order(short: str, word: str) -> bool:
    letters = iter(word)
    return word[:1] == short[:1] and all(c in letters for c in short)


def written(token: str, forms: AbstractSet[str], abbreviated: bool = False,
            names: AbstractSet[str] = frozenset()) -> bool:
    """Whether ``forms`` write the name word ``token`` (the clauses of the module docstring), or
    one of the page's ``names`` (:func:`page_names`) is it romanised another way."""
    if token in forms:
        return True
    return any(variant(token, form) or (abbreviated and _in_order(token, form))
               for form in forms) or clips(token, forms) or sounds_alike_in(token, names)


_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+)\S+")


@lru_cache(maxsize=1 << 16)
def page_names(entity: "Entity") -> FrozenSet[str]:
    """The name words of a page that a name romanised another way is matched against
    (:func:`~allennlp_longent.linking.candidates.transliteration.sounds_alike_in`): its title's
    and the capitalised words of its description, but the first word of a sentence ("Since")."""
    text = _SENTENCE_START.sub(" ", entity.description)
    words = name_words(f"{bare_title(entity.title).title()} {text}")
    return frozenset(t for t, _ in words)


# lower-case letters after an apostrophe that end a word: a case ending written after a name
# ("Keremoz'un", "Konağı'nda", "SAK:n" is written with a colon), not a part of it
_APOSTROPHE_SUFFIX = re.compile(r"[':’ʼ][^\W\d_A-Z]+$")


def name_words(mention: str) -> Iterable[Tuple[str, bool]]:
    """``(token, abbreviated)`` of each name word of the mention (module docstring)."""
    for word in mention.split():
        if not word[:1].isupper():
            continue
        word = _APOSTROPHE_SUFFIX.sub("", _APOSTROPHE_SYLLABLE.sub(r"\1", word))
        tokens = bm25_tokens(word)
        for token in tokens:
            if len(token) > 1 and token not in _NOT_NAME_WORDS:
                yield token, len(tokens) == 1 and (
                    word.endswith(".") or len(token) == 2 or _vowelless(word, token))


def _vowelless(word: str, token: str) -> bool:
    """A word such as "Bldg" or "Jln": a capital, then lower case, three to five letters and no
    vowel, read as an abbreviation (a whole word such as the Welsh "Cwm" reads so too and stays
    written by the pages that write it; an all-capital "PGC" is an acronym)."""
    return 3 <= len(token) <= 5 and word[1:].islower() and not set(token) & set("aeiou")


# titles of address, which no page writes before its own title, by the gender they give; "Old",
# "Saint" or "General" may be part of a name ("Old Carrow", "St Ida's", "Tarle General")
MALE_TITLES = frozenset("mr mister sir lord monsieur herr signor senhor senor alhaji".split())
FEMALE_TITLES = frozenset("""mrs miss ms missus madam madame mme mlle lady dame frau signora
    senhora senora alhaja hajia""".split())
COURTESY_TITLES = MALE_TITLES | FEMALE_TITLES | frozenset(
    "mx master dr doctor prof professor rev reverend".split())


def untitled(mention: str) -> str:
    """``mention`` without the titles of address that open it (``COURTESY_TITLES``: "Mr Oddie" →
    "Oddie", "Madame Mansour" → "Mansour"); its last word always stays ("Mr" stays "Mr")."""
    words = mention.split()
    while len(words) > 1 and words[0].lower().rstrip(".") in COURTESY_TITLES:
        words = words[1:]
    return " ".join(words)


# the last word of a name that abbreviates a street word ("Pellow St", "Mill Rd.", "Kirov Str.");
# a first "St" is "Saint" ("St Ida's") and is left as written
STREET_WORDS = {"st": "Street", "rd": "Road", "ave": "Avenue", "sq": "Square", "ln": "Lane",
                "blvd": "Boulevard", "str": "Street", "hwy": "Highway"}
# and one that abbreviates a word of a firm's, an institution's or a building's name
# ("Harrowfield Iron Co."; round 36: "Jct", "Stn", "Bldg", as English writes them)
NAME_END_WORDS = {**STREET_WORDS, "co": "Company", "corp": "Corporation", "bros": "Brothers",
                  "univ": "University", "inst": "Institute", "assn": "Association",
                  "dept": "Department", "jct": "Junction", "stn": "Station",
                  "bldg": "Building"}


def spelled_out(mention: str) -> str:
    """``mention`` with a last word that abbreviates a street word or a word of a firm's name
    written out ("Pellow St." → "Pellow Street", "Harrowfield Iron Co." → "Harrowfield Iron
    Company": ``NAME_END_WORDS``); unchanged otherwise."""
    words = mention.split()
    last = words[-1].lower().rstrip(".") if len(words) > 1 else ""
    return " ".join(words[:-1] + [NAME_END_WORDS[last]]) if last in NAME_END_WORDS else mention


_INITIAL = re.compile(r"[A-Z]\.")
_FOLDED_WORD = re.compile(r"\w+")


def initial_pairs(mention: str) -> List[Tuple[str, str, bool]]:
    """``(letter, name word, initial first)`` of each initial of the mention written beside a
    name word: ``("l", "ambros", True)`` for "L. Ambros", ``("p", "ruth", False)`` for "Ruth P."
    (the name word after the initial when there is one). A word with a full stop beside it is
    no name word for the initial ("Pe. A. R. Viana": "Pe." is a title, :func:`dotted_title`)."""
    words = mention.split()
    pairs = []
    for i, word in enumerate(words):
        if not _INITIAL.fullmatch(word):
            continue
        for j, first in ((i + 1, True), (i - 1, False)):
            named = list(name_words(words[j])) if 0 <= j < len(words) else []
            if named and not words[j].endswith("."):
                pairs.append((fold(word[0]), named[-1 if first else 0][0], first))
                break
    return pairs


def writes_initial(text: str, pair: Tuple[str, str, bool]) -> bool:
    """Whether ``text`` writes a word starting with the pair's letter just before (initial
    first) or after its name word: the name, or the same initial (module docstring)."""
    letter, name, first = pair
    words = folded_words(text)
    step = -1 if first else 1
    # the neighbour is the name ("Ludovic") or the same initial
    return any(word == name and 0 <= i + step < len(words) and words[i + step][:1] == letter
               for i, word in enumerate(words))


@lru_cache(maxsize=1 << 16)
def folded_words(text: str) -> Tuple[str, ...]:
    """A page's or title's words in order, folded (read once per text)."""
    return tuple(_FOLDED_WORD.findall(fold(text)))


def _unwritten_initials(pairs: Sequence[Tuple[str, str, bool]], entity: "Entity") -> Set[str]:
    """The initials of ``pairs`` that ``entity``'s page does not write ("k. ambros")."""
    if not pairs:
        return set()
    page = f"{entity.title}. {entity.description}"
    return {f"{letter}. {name}" if first else f"{name} {letter}."
            for letter, name, first in pairs if not writes_initial(page, (letter, name, first))}


# a page gives its entity another name after these words ("was called the Hohrain Tramway until
# 1921", "known in the valley as Old Ludo", "also called Ida of the Vennet", "known simply as
# 'the Line'", "call letters RGM", "Songs call him the Ashen King", infobox fields "Nickname:
# Garças", "Abbreviation: PRD"), an adverb ("simply", "locally") and an opening quote allowed
# before the name; "named after the astronomer Clara Ambros" gives none: the name after them
# must be capitalised. An acronym in brackets right after the page's title is one too: "Banco
# de São Tarcísio S.A. (BST)", not "deputy for Alto Mirante (PRD)" on a deputy's page. An
# older or another people's name is one too ("its older indigenous name, Chelcomén"; "Its older
# name, still used in the names of its river, is Qaltoun"; round 45)
_ALIAS = re.compile(
    r"\b(?:called|named|renamed|nicknamed|dubbed|call\s+(?:letters|sign)|"
    r"calls?\s+(?:him|her|it|them)|(?i:abbreviation|nickname|formerly)\s*:|"
    r"(?:older|old|former|earlier|original|first|ancient|indigenous|native|local)"
    r"(?:\s+(?:indigenous|native|local|[A-Z][a-z]+))?\s+name(?:,[^.;]{0,100}?,|,)?(?:\s+(?:is|was))?|"
    r"(?:[Kk]nown|referred\s+to)(?:\s+[\w-]+){0,6}?\s+as)"
    r"(?:\s+(?:simply|just|locally|popularly|affectionately|commonly|usually|often|also|still))*"
    r"\s+['\"\u2018\u201c]?(?:the\s+)?"
    r"([A-Z][\w'-]*(?:\s+(?:(?:of|the|de|von|van)\s+)*[A-Z][\w'-]*)*)")


_ACRONYM = re.compile(r"\(([A-Z][A-Z0-9&]{1,7})\)")


@lru_cache(maxsize=1 << 16)
def page_aliases(entity: "Entity") -> FrozenSet[Tuple[str, ...]]:
    """The other names a page gives its entity (the capitalised words after "called", "named",
    "known as" and the like), each as its name words (:func:`name_words`)."""
    text = entity.description
    names = [m.group(1) for m in _ALIAS.finditer(text)]
    title = fold(bare_title(entity.title))
    names += [m.group(1) for m in _ACRONYM.finditer(text)
              if title and title in fold(text[max(0, m.start() - len(title) - 12):m.start()])]
    found = (tuple(t for t, _ in name_words(name)) for name in names)
    return frozenset(words for words in found if words)


def unwritten_names(mention: str, forms: AbstractSet[str],
                    names: AbstractSet[str] = frozenset()) -> Set[str]:
    """The mention's name words that no form in ``forms`` writes and no word of ``names``
    romanises another way: "Petra" of "Petra Corrander" against every Corrander of a KB that
    has no Petra."""
    return _unwritten(list(name_words(mention)), forms, names)


def unwritten_on_pages(mention: str, entities: Sequence["Entity"],
                       is_person: Optional[Callable[["Entity"], bool]] = None
                       ) -> List[List[str]]:
    """:func:`unwritten_names` against each entity's page (sorted), the mention read once, and
    each initial of :func:`initial_pairs` that the page does not write ("k. ambros"); with
    ``is_person`` (whether a page is a person's: ``kinds.kind``, which imports this module), a
    title of address before a person's given name is written (:func:`_title_before_given_name`)."""
    words = list(name_words(mention))
    pairs = initial_pairs(mention)
    titled = dotted_title(mention, words)
    kin = kin_name(mention, words)
    return [sorted(_unwritten(words, page_forms(e), page_names(e))
                   - _middle_names(words, e.title) - titled - _of_own_kind(words, e)
                   - _pet_names(words, e) - _title_before_given_name(words, e, is_person)
                   - _patronymics(words, e)
                   | _unwritten_initials(pairs, e) | kin_named(kin, words, e))
            for e in entities]


def _title_before_given_name(words: Sequence[Tuple[str, bool]], entity: "Entity",
                             is_person: Optional[Callable[["Entity"], bool]]) -> Set[str]:
    """The first name word of a mention whose other name words open a person's title, its given
    name: a title of address the lists above do not hold ("Sitt Zahra" for Zahra al-Mushayqiyya,
    "Thakin Ewan" for Ewan Macrory; round 43). Before a family name it stays a name word ("Petra
    Corrander" is not Wenna Corrander), and a title with a word for a thing after the name is no
    person's ("Sunil Hemagama" is not the Hemagama Gem House, a merchant's house)."""
    if is_person is None or len(words) < 2:
        return set()
    given = tuple(t for t, _ in words[1:])
    title = title_names(entity.title)
    if len(title) <= len(given) or title[:len(given)] != given \
            or THING_NOUNS.intersection(title[len(given):]) or not is_person(entity):
        return set()
    return {words[0][0]}


# the endings of East Slavic patronymics, full ("Ivanovna", "Mikhailovich") and spoken ("Fomich",
# "Avdeyich"), from general usage
PATRONYMIC_ENDINGS = ("ovich", "evich", "ovna", "evna", "ichna", "ich")


def _patronymics(words: Sequence[Tuple[str, bool]], entity: "Entity") -> Set[str]:
    """The name words with a patronymic's ending (``PATRONYMIC_ENDINGS``) right after a name
    word the page writes: "Klavdia Ivanovna" is Klavdia Shestakova, whose page need not give
    her father's name (round 46). The patronymic follows the given name, so a family's other
    members, with other given names, stay unwritten."""
    forms = page_forms(entity)
    return {t for (before, _), (t, _) in zip(words, words[1:])
            if t.endswith(PATRONYMIC_ENDINGS) and len(t) > 5
            and written(before, forms, False, page_names(entity))}


def _pet_names(words: Sequence[Tuple[str, bool]], entity: "Entity") -> Set[str]:
    """The name words that are pet names of a name the page writes
    (:func:`~allennlp_longent.linking.hypocorisms.nicknames`: "Sasha" for Oleksandr, round 33)."""
    names = page_names(entity)
    return {t for t, _ in words if nicknames(t, names)}


@lru_cache(maxsize=1 << 16)
def own_kind_words(entity: "Entity") -> FrozenSet[str]:
    """What a page says its entity is: its title's words and those of its defining phrase
    (:func:`~allennlp_longent.linking.definitions.defining_words`) before a preposition, an
    article or a conjunction, folded. Not ``kinds.kind_nouns``, which keeps the whole phrase
    ("a street along the river" would make the street a river) and which this module, imported
    by :mod:`~allennlp_longent.linking.kinds`, cannot import."""
    phrase = []
    for word in defining_words(entity):
        if word in PHRASE_ENDS:
            break
        phrase.append(fold(word))
    return frozenset(bm25_tokens(bare_title(entity.title))) | frozenset(phrase)


def _of_own_kind(words: Sequence[Tuple[str, bool]], entity: "Entity") -> Set[str]:
    """The name words that name the page's own kind in some language
    (:func:`~allennlp_longent.linking.kind_words.share_kind`): "Kalesi" of "Aslan Kalesi" for
    the page "Vathyskala Castle", "Plateau" of "Ayamelina Plateau" for "Ayamelina Yaylası";
    not "Sungai" ("river") of "Jalan Sungai" for a street's page that mentions a river (round
    33)."""
    return {t for t, _ in words if share_kind(t, own_kind_words(entity))}


# words that introduce a relative or a partner on a person's page ("married to the teacher Peter
# Owino", "son of Kofi Ato Ekuban")
KIN_WORDS = frozenset("""married marrying wife husband son sons daughter daughters father mother
    brother brothers sister sisters grandson granddaughter grandfather grandmother nephew niece
    cousin uncle aunt widow widower partner child children spouse fiance fiancee stepson
    stepdaughter stepfather stepmother""".split())
KIN_REACH = 5  # words before a name in which a kin word introduces it


def kin_name(mention: str, words: Sequence[Tuple[str, bool]]) -> Optional[str]:
    """The mention's name as :func:`kin_named` looks for it on a page: folded, without a title of
    address; None for a name of fewer than two name words."""
    return fold(untitled(mention)) if len(words) >= 2 else None


def kin_named(name: Optional[str], words: Sequence[Tuple[str, bool]],
              entity: "Entity") -> Set[str]:
    """``{"<first name word> (kin)"}`` when ``entity``'s page writes ``name`` (:func:`kin_name`
    of the mention whose name words are ``words``) within ``KIN_REACH`` words after a word of
    ``KIN_WORDS``: the page names a relative of that name, so its entity is not the mention's
    ("Peter Owino" on the page of his wife Margaret Achieng' Oyoo; round 26)."""
    text = _folded_description(entity)
    if not name or name not in text:
        return set()
    for match in re.finditer(rf"\b{re.escape(name)}\b", text):
        before = re.findall(r"\w+", text[:match.start()])[-KIN_REACH:]
        if KIN_WORDS.intersection(before):
            return {f"{words[0][0]} (kin)"}
    return set()


@lru_cache(maxsize=1 << 16)
def _folded_description(entity: "Entity") -> str:
    return fold(entity.description)


_DOTTED_WORD = re.compile(r"[A-Z][^\W\d_]+\.")


def dotted_title(mention: str, words: Sequence[Tuple[str, bool]]) -> Set[str]:
    """The first name word of a mention that opens with a capitalised abbreviation of two letters
    or more ("Mhe. Grace Ochola", "Lic. Mariela Quispe", "Bro. Kofi Ato", also tokenised "Bro .
    Kofi Ato") followed by other name words: a title of address in whatever language, which a
    page need not write (round 26)."""
    parts = mention.split()
    first = parts[0] + "." if parts[1:2] == ["."] else parts[0] if parts else ""
    if len(words) < 2 or not _DOTTED_WORD.fullmatch(first) \
            or words[0][0] != fold(first.rstrip(".")):
        return set()
    return {words[0][0]}


def _middle_names(words: Sequence[Tuple[str, bool]], title: str) -> Set[str]:
    """The inner name words of a mention whose first and last name words are those of a title of
    two name words or more: middle names ("Rukayat Abeni Odunsi" for Rukayat Ọdúnsì)."""
    named = title_names(title)
    if len(words) < 3 or len(named) < 2:
        return set()
    ends = ((words[0][0], named[0]), (words[-1][0], named[-1]))
    return {t for t, _ in words[1:-1]} if all(same_word(a, b) for a, b in ends) else set()


def _unwritten(words: Sequence[Tuple[str, bool]], forms: AbstractSet[str],
               names: AbstractSet[str] = frozenset()) -> Set[str]:
    return {t for t, abbreviated in words if not written(t, forms, abbreviated, names)}


PERSON_LABELS = frozenset({"PERSON", "PER"})


def name_antecedents(mentions: Sequence[Tuple[str, str]],
                     titles: Optional[Sequence[Optional[str]]] = None) -> List[Optional[int]]:
    """Per ``(text, label)`` mention of a document, in order, the index of the latest earlier
    person mention whose name words strictly include its own ("Corrander" after "Wenna
    Corrander", "Mrs Corrander" too): the same person, written shorter, as news prose writes a
    person after the first mention (Cucerzan 2007; van Hulst et al. 2020, REL, expand such
    mentions); None for the rest and for every mention not labelled a person. With ``titles``
    (per mention, the title of the page it is linked to, or None), an earlier mention also
    counts when it writes another part of its page's name and that name holds the mention's
    words ("Cardoso" after "Wesley" linked to Wesley Cardoso); a mention that takes an earlier
    one's link takes its title too."""
    words = [frozenset(t for t, _ in name_words(text)) if label in PERSON_LABELS else frozenset()
             for text, label in mentions]
    named = list(titles) if titles is not None else [None] * len(mentions)
    found: List[Optional[int]] = []
    for i, own in enumerate(words):
        j = next((j for j in range(i - 1, -1, -1) if own and (
            own < words[j] or _other_part(own, words[j], named[j]))), None)
        if j is not None:
            named[i] = named[j]
        found.append(j)
    return found


def _other_part(own: FrozenSet[str], other: FrozenSet[str], title: Optional[str]) -> bool:
    """``other`` (an earlier mention's name words) and ``own`` are two parts of ``title``'s name:
    ``other`` a strict part, ``own`` none of its words."""
    if not title or not other or own & other:
        return False
    name = title_name_words(title)
    return other < name and own <= name


def title_name_words(title: str) -> FrozenSet[str]:
    """The name words (:func:`name_words`) of a bare title, read as capitalised."""
    return frozenset(title_names(title))


def title_writes(words: Sequence[str], title: str) -> List[bool]:
    """For each of the name words ``words``, whether it is a name word of ``title``, written as
    it is or as a variant of it (:func:`~allennlp_longent.linking.candidates.bm25.known`:
    "Heimøya" for Heimøy)."""
    named = title_name_words(title)
    return [known(w, named) for w in words]


@lru_cache(maxsize=1 << 16)
def title_names(title: str) -> Tuple[str, ...]:
    """:func:`title_name_words` in the title's order."""
    return tuple(t for t, _ in name_words(bare_title(title).title()))


# Abbreviated names. A mention written short ("SC Itaquara", "Haverau RC", "UiSk", "R.H.", "TF",
# "Univ. of Calderwick") is read as pieces: a letter of an acronym ("SC", "R.H.", "R/V", the
# capitals of "@SCItaquara"), a clipped word (a short capitalised piece of a mixed-case acronym,
# "Ui" and "Sk" of "UiSk", or a word with a full stop, "Univ.", "St."), or a word written out. It
# abbreviates a title (:func:`abbreviation_cost`) when its pieces, in order, cover the title's
# words but its stop words and particles: a word written out is a title word; a clipped word
# starts a title word and holds its letters in order ("univ", "university"); a letter starts a
# title word, or continues a title word of five letters or fewer that the letter before it
# started ("M/F" for MF Heimøy), or starts the second part of a compound ("GW" for Greywater: a
# letter after the third of the word with three or more letters left). A single word clipped in
# its middle ("Cstep" for Cinderstep: one or two letters of the word's start and four or more of
# its end, three or more letters left out) is read so too. Compound parts and clipped middles
# are guesses, each counted in the cost; the entities whose titles a mention abbreviates at the
# lowest cost are its expansions, and two or more of them leave it ambiguous (:func:`expansion`).
# Chosen on the free-text dev sets (round 21): no name list, only the shapes of short forms. Three
# capitals that abbreviate no title so may still be a code of a title's first word
# (:func:`skeleton`, "KDL" for Kadalur, round 27), the loosest guess of all.
LETTER, CLIPPED, WORD = "letter", "clipped", "word"
_SPELLED_LETTERS = re.compile(r"(?:[A-Za-z]\.){2,}|[A-Za-z](?:/[A-Za-z])+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z][a-z]*|[a-z]+|[A-Z]+|\d+")
_ACRONYM_LETTERS = 5  # an all-capitals word this long or shorter may be an acronym
_COMPOUND_PART = 3  # a compound's parts: at least this many letters each


def abbreviation_pieces(mention: str) -> Optional[Tuple[Tuple[str, str], ...]]:
    """``(kind, folded text)`` of each piece of the mention (module comment above), or None
    when nothing in it is written short."""
    words = [w for w in mention.split() if any(c.isalnum() for c in w)]
    while words and words[0].lower() in ("the", "a", "an"):
        words = words[1:]
    lower = any(c.islower() for c in " ".join(words))
    pieces: List[Tuple[str, str]] = []
    for raw in words:
        word = re.sub(r"['\u2019]s$", "", raw.strip("@#()\"',;:!?"))
        if _SPELLED_LETTERS.fullmatch(word):
            pieces += [(LETTER, fold(c)) for c in word if c.isalpha()]
        elif re.fullmatch(r"[A-Za-z]{2,}\.", word) or re.fullmatch(r"[A-Z]\.", word):
            pieces.append((CLIPPED if len(word) > 2 else LETTER, fold(word[:-1])))
        elif word.isalpha() and word.isupper() and len(word) <= _ACRONYM_LETTERS \
                and len(word) > 1 and (lower or len(words) == 1):
            pieces += [(LETTER, fold(c)) for c in word]
        elif word.isalpha() and any(c.isupper() for c in word[1:]) \
                and any(c.islower() for c in word):
            for part in _CAMEL.findall(word):
                if part.isupper():
                    pieces += [(LETTER, fold(c)) for c in part]
                elif part[:1].isupper() and len(part) <= 3:
                    pieces.append((CLIPPED, fold(part)))
                else:
                    pieces.append((WORD, fold(part)))
        else:
            pieces += [(WORD, t) for t in _FOLDED_WORD.findall(fold(word))]
    if not any(kind != WORD for kind, _ in pieces):
        return None
    return tuple(pieces)


# what an abbreviation leaves out of a title: particles, stop words and a company's legal form
# ("OFP" for Oyoo Fish Processors Limited; round 26)
_SKIPPABLE = PARTICLES | LEGAL_FORMS | {"the", "of", "and", "for", "i", "in", "on", "at", "&",
                                        "limited", "incorporated", "company"}


@lru_cache(maxsize=1 << 16)
def _title_words(title: str) -> Tuple[str, ...]:
    """A title's folded words, its qualifier and possessive "'s" left out."""
    return folded_words(re.sub(r"['\u2019]s\b", "", bare_title(title)))


def _skippable(word: str) -> bool:
    return word in _SKIPPABLE or not bm25_tokens(word)


def abbreviation_cost(pieces: Sequence[Tuple[str, str]], title: str) -> Optional[int]:
    """The fewest guesses (compound parts) with which ``pieces`` (:func:`abbreviation_pieces`)
    cover ``title``'s words, or None when they do not."""
    words = _title_words(title)

    @cache
    def cover(i: int, j: int, at: int) -> Optional[int]:
        # pieces[i:] against words[j:], ``at`` letters into words[j] (0: not started)
        nxt = j + 1 if at else j
        if i == len(pieces):
            return 0 if all(_skippable(w) for w in words[nxt:]) else None
        kind, text = pieces[i]
        costs = []
        for k in range(nxt, len(words)):  # a new word, after skippable ones
            word = words[k]
            if kind == WORD and word == text:
                costs.append(cover(i + 1, k + 1, 0))
            elif kind == CLIPPED and _in_order(text, word):
                costs.append(cover(i + 1, k + 1, 0))
            elif kind == LETTER and word[:1] == text:
                costs.append(cover(i + 1, k, 1) if len(word) > 1 else cover(i + 1, k + 1, 0))
            if not _skippable(word):
                break
        if kind == LETTER and at:  # within the word begun
            word = words[j]
            if word[at:at + 1] == text and len(word) <= _ACRONYM_LETTERS:  # "MF", "RV"
                costs.append(_finish(cover, i, j, at + 1, len(word), 0))
            for p in range(max(at + 1, _COMPOUND_PART), len(word) - _COMPOUND_PART + 1):
                if word[p] == text:
                    costs.append(_finish(cover, i, j, p + 1, len(word), 1))
        found = [c for c in costs if c is not None]
        return min(found) if found else None

    return cover(0, 0, 0) if words else None


def _finish(cover, i: int, j: int, at: int, length: int, guesses: int) -> Optional[int]:
    """``cover`` after piece ``i`` ended ``at`` letters into word ``j`` (the word done when
    ``at`` is its length), plus ``guesses``."""
    rest = cover(i + 1, j + 1, 0) if at >= length else cover(i + 1, j, at)
    return None if rest is None else rest + guesses


def clipped_middle(mention: str, title: str) -> bool:
    """Whether the one-word mention is the one-word title with its middle left out: one or two
    letters of its start and four or more of its end ("Cstep" for Cinderstep)."""
    title_words = _title_words(title)
    if not _clippable(mention) or len(title_words) != 1:
        return False
    short, word = fold(mention.strip()), title_words[0]
    if len(word) - len(short) < 3:
        return False
    return any(word.startswith(short[:n]) and word.endswith(short[n:])
               for n in (1, 2) if len(short) - n >= 4)


def _clippable(mention: str) -> bool:
    """Whether the mention can be a word clipped in its middle (:func:`clipped_middle`): one
    capitalised word of five letters or more."""
    words = mention.split()
    if len(words) != 1 or not words[0][:1].isupper():
        return False
    short = fold(words[0])
    return short.isalpha() and len(short) >= 5


def expansion(mention: str, entities: Sequence["Entity"]) -> Tuple[List["Entity"], bool]:
    """The entities whose titles ``mention`` abbreviates at the lowest cost (module comment
    above), and whether that reading is a guess (a compound part or a clipped middle); no
    entity for a mention written out or a title written as it is, nor for a guess whose short
    words a page writes as they are ("STC" on a page "IATA code STC.", whatever São Tarcísio's
    letters hold)."""
    pieces = abbreviation_pieces(mention)
    if pieces is None and not _clippable(mention):  # most mentions: no pass over the KB
        return [], False
    best: List[Entity] = []
    lowest: Optional[int] = None
    for entity in entities:
        if pieces is not None:
            cost = abbreviation_cost(pieces, entity.title)
            if cost is None and skeleton(pieces, entity.title):
                cost = _SKELETON_COST + _name_words_left(entity.title)
        else:
            cost = 1 if clipped_middle(mention, entity.title) else None
        if cost is None:
            continue
        if lowest is None or cost < lowest:
            best, lowest = [entity], cost
        elif cost == lowest:
            best.append(entity)
    if lowest and _short_written(mention, entities):
        return [], True
    return best, bool(lowest)


_SKELETON_COST = 3  # a code is the loosest guess: any cover of the title's words comes first
_VOWELS = frozenset("aeiouy")


def skeleton(pieces: Sequence[Tuple[str, str]], title: str) -> bool:
    """Whether ``pieces`` are three capitals that write the first name word of ``title`` as a
    code does: its first letter, then two of its consonants in order ("KDL" for Kadalur, "GRN"
    for Gruvnäs, "TGB" for Tagbaloc City, as "LDN" writes London; round 27)."""
    if len(pieces) != 3 or any(kind != LETTER for kind, _ in pieces):
        return False
    words = [w for w in _title_words(title) if not _skippable(w)]
    if not words or words[0][:1] != pieces[0][1]:
        return False
    rest = iter(words[0][1:])
    return all(c not in _VOWELS and c in rest for _, c in pieces[1:])


def _name_words_left(title: str) -> int:
    """How many name words ``title`` has after its first: a code writes one word, so of the
    titles it fits, the one with fewest other words is its likeliest reading (Gruvnäs, not
    Gruvnäs Airport)."""
    return sum(not _skippable(w) for w in _title_words(title)) - 1


def _short_written(mention: str, entities: Iterable["Entity"]) -> bool:
    """Whether a page of ``entities`` writes one of the mention's words that are not written
    out (:func:`abbreviation_pieces`) as it is."""
    short = set()
    for word in mention.split():
        pieces = abbreviation_pieces(word)
        if pieces is not None or len(mention.split()) == 1:
            short.update(_FOLDED_WORD.findall(fold(word)))
    return any(short & set(folded_words(f"{e.title}. {e.description}")) for e in entities)
