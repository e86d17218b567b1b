"""How names are compared letter by letter: :func:`fold` (lower case, accents removed) and
:func:`single_letters` (doubled letters written once). Kept apart from :mod:`.bm25` so that the
spelling modules retrieval reads (:mod:`.transliteration`,
:mod:`allennlp_longent.linking.hypocorisms`) import them without importing retrieval."""

import re
import unicodedata
from functools import lru_cache

# letters that Unicode does not decompose into a base letter and an accent
_LETTERS = str.maketrans({"ø": "o", "æ": "ae", "œ": "oe", "ß": "ss", "đ": "d", "ð": "d",
                          "þ": "th", "ł": "l", "ı": "i", "ŋ": "n", "ħ": "h"})
_DOUBLED = re.compile(r"(\w)\1+")


def fold(text: str) -> str:
    """Lower case, accents removed ("İmparator" is "imparator", "Heimøy" is "heimoy")."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return plain.lower().translate(_LETTERS)


@lru_cache(maxsize=1 << 16)
def single_letters(word: str) -> str:
    """``word`` with each run of a doubled letter written once (cached: ``same_word`` is
    called for every word of every candidate's page)."""
    return _DOUBLED.sub(r"\1", word)
