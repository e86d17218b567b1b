"""Names a page writes in passing: "Kalamonas" on the page of a ferry line that sails "to
Kalamonas", "Nordhamn" on an airport's page "with flights to Nordhamn", "Melbourne" on the
page of a man who died "at Melbourne".

A page writes other names than its entity's: the places it lies in or serves, the people who
built or own it. Such a name comes after a word that relates the entity to it ("of", "by",
"to", "from", "at", "between"...), while the page's own other names come after words that give
a name ("called", "known as", a bracket, a colon, "the"). A mention that shares no name word with
a page's title, that no rule read as that page's alias, short form or description, and whose
name words the page writes only after relating words names another entity, the one the page
names in passing (round 29, from the free-text dev sets' wrong links of such mentions). "of"
after a noun that names gives a name ("the crown town of Kazimierzów"), and so does "in" before
a language's name ("in English Knockanillar GAA", "in Hanyu Pinyin Lu Jinsheng"), while "in"
before the name itself relates ("kept a showroom in Lindenhafen", round 39: on dev..dev75 the
link of such a mention was wrong 31 times and right 13, 11 of those after a language's name).
The span's label plays no part: the page checked is the one the label rules chose.
"""

import re
from functools import lru_cache
from typing import TYPE_CHECKING, FrozenSet, Sequence, Tuple

from spacy.lang.en.stop_words import STOP_WORDS

from allennlp_longent.linking.candidates.bm25 import fold, variant
from allennlp_longent.linking.names import name_words, title_names

if TYPE_CHECKING:
    from allennlp_longent.linking.knowledge_base import Entity

RELATING_WORDS = frozenset("of by at from to between with into near via in".split())
# nouns after which "of" gives a name, not a relation: "the stage name of Sunná Skáile", "the
# crown town of Kazimierzów" (the entity's own former name)
NAMING_NOUNS = frozenset("name names title town city village hamlet settlement".split())
# the marks of a candidate that a rule put first for its name, not for a word on its page
NAMING_MARKS = ("alias", "expansion", "descriptor", "kind_noun", "kind_name", "initial_title",
                "variant_title", "exact_title")
# languages a page names before a name it gives in that language ("in Norwegian Svartvatnet"):
# those that end in "-ish" or "-ese" need no list
LANGUAGES = frozenset("""
    english french dutch german greek latin welsh basque breton catalan occitan galician czech
    slovak polish arabic gaelic icelandic amharic aramaic coptic hebrew persian farsi dari pashto
    urdu hindi bengali nepali tamil telugu kannada malayalam marathi gujarati punjabi sinhala
    thai lao khmer malay tagalog filipino indonesian swahili fante twi yoruba igbo hausa zulu
    xhosa wolof somali oromo tigrinya malagasy maori samoan tongan hawaiian creole sami
    norwegian italian russian hungarian georgian armenian lithuanian latvian estonian romanian
    bulgarian ukrainian croatian serbian slovenian bosnian macedonian albanian mongolian
    tibetan uzbek kazakh kyrgyz turkmen tatar azeri romani yiddish frisian afrikaans quechua
    aymara guarani nahuatl inuktitut cree pinyin hanyu berber tamazight kabyle
    """.split())
ARTICLES = frozenset("the a an".split())
_TOKEN = re.compile(r"[\w'’-]+|[^\w\s]")


@lru_cache(maxsize=1 << 12)
def _tokens(entity: "Entity") -> Tuple[Tuple[str, bool], ...]:
    """``(folded token, capitalised)`` of each word and mark of the page's description."""
    return tuple((fold(t), t[:1].isupper()) for t in _TOKEN.findall(entity.description))


def _language(word: str) -> bool:
    """Whether the folded ``word`` names a language (``LANGUAGES``, or "-ish", "-ese")."""
    return word in LANGUAGES or (len(word) > 5 and word.endswith(("ish", "ese")))


def _modifies(tokens: Sequence[Tuple[str, bool]], i: int) -> bool:
    """Whether the capitalised run that holds token ``i`` is followed by a lower-case word that
    is no function word (spaCy's English stop words): the run modifies a noun ("the Irginsk
    region", "the Anyr hunters"; not "by the Destilaria Dourado since 1881")."""
    k = i + 1
    while k < len(tokens) and tokens[k][1]:
        k += 1
    return k < len(tokens) and tokens[k][0].isalpha() and not tokens[k][1] \
        and tokens[k][0] not in STOP_WORDS


def words_before(words: Sequence[str], entity: "Entity") -> FrozenSet[str]:
    """The word before each capitalised run of ``entity``'s description that writes one of the
    name ``words`` (a variant of it); "^" for a run that opens the description, "town of" for
    "of" after a noun of ``NAMING_NOUNS``, "in english" for "in" before a language's name that
    opens the run ahead of the name; the word before the article for a run between an article
    and a lower-case noun it modifies ("in" of "in the Irginsk region", round 46)."""
    tokens = _tokens(entity)
    found = set()
    for i, (token, capital) in enumerate(tokens):
        if capital and any(variant(w, token) for w in words):
            j = i - 1
            while j >= 0 and tokens[j][1]:
                j -= 1
            before = tokens[j][0] if j >= 0 else "^"
            if before in ARTICLES and j > 0 and _modifies(tokens, i):
                before = tokens[j - 1][0]
            if before == "of" and j > 0 and tokens[j - 1][0] in NAMING_NOUNS:
                before = f"{tokens[j - 1][0]} of"
            elif before == "in" and j + 1 < i and _language(tokens[j + 1][0]):
                before = f"in {tokens[j + 1][0]}"
            found.add(before)
    return frozenset(found)


def named_in_passing(mention: str, candidate: dict, entity: "Entity") -> bool:
    """Whether ``entity``'s page (the ranked ``candidate``) writes the mention's name only in
    passing (module docstring)."""
    if any(candidate.get(mark) for mark in NAMING_MARKS):
        return False
    words = [t for t, _ in name_words(mention)]
    title = title_names(entity.title)
    if not words or any(variant(w, t) or variant(t, w) for w in words for t in title):
        return False
    before = words_before(words, entity)
    return bool(before) and before <= RELATING_WORDS
