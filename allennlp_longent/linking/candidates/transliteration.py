"""One name romanised two ways: "Chinmul" and "Jinmul", "Ouakrim" and "Wakrim" (or "Waqrim"),
"Changsŭng" and "Jangseung", "Zarhan" and "Zerhane", "Lee Jung-mi" and "Lee Jeong-mi".

Romanisation systems and writers differ in a few regular ways, in every language that is written
in another script: whether a stop is written voiced or voiceless (McCune-Reischauer "k", "t", "p",
"ch" against Revised Romanisation "g", "d", "b", "j"), how one consonant is spelled ("q" or "k",
"kh" or "x", "dj" or "j", "th" or "t", "ph" or "f"), how a vowel is spelled ("ou" or "u" or
"w", "eo" or "o", "ee" or "i", "y" or "i"), whether a letter is doubled, whether a final "e" is
written. :func:`spelling_key` writes a folded word with each of these choices made one way;
two words are :func:`sounds_alike` when their keys are equal, or have the same consonants and
vowels in the same places and differ in one vowel ("Zarhan", "Zerhane"; "Chun", "Cheon").

The choices come from the general conventions of romanisation, not from a set's names; a short
word (under four letters) is never matched, as short names collide ("Jan", "Jon").
"""

import re
from collections import defaultdict
from functools import lru_cache
from typing import AbstractSet, Dict, FrozenSet, Iterator, List, Tuple

from allennlp_longent.linking.candidates.folding import single_letters

MIN_LETTERS = 4
# each spelling choice, made one way; applied in this order to a folded word (consonants first,
# so that "ch" is one consonant before "c" becomes "k", then the semivowels and vowel digraphs)
_SPELLINGS = (("sch", "S"), ("tch", "C"), ("dj", "C"), ("ch", "C"), ("j", "C"), ("sh", "S"),
              ("kh", "h"), ("x", "h"), ("gh", "g"), ("ph", "f"), ("th", "t"), ("dh", "t"),
              ("q", "k"), ("ck", "k"), ("c", "k"), ("g", "k"), ("d", "t"), ("b", "p"),
              ("z", "s"), ("v", "f"), ("w", "u"), ("y", "i"), ("eo", "o"), ("eu", "u"),
              ("ou", "u"), ("ae", "e"), ("ee", "i"), ("oo", "u"), ("ie", "i"))
_VOWEL = re.compile(r"[aeiou]")


@lru_cache(maxsize=1 << 16)
def spelling_key(word: str) -> str:
    """``word`` (folded, lower case) with every spelling choice of the module docstring made one
    way, doubled letters written once and a final "e" dropped."""
    key = word
    for spelled, one_way in _SPELLINGS:
        key = key.replace(spelled, one_way)
    key = single_letters(key)
    return key[:-1] if len(key) > 3 and key.endswith("e") else key


def _skeleton(key: str) -> str:
    return _VOWEL.sub("V", key)


def _keys_alike(a: str, b: str) -> bool:
    """Equal keys, or keys of ``MIN_LETTERS`` or more with one skeleton that differ in one
    place (a vowel, as the skeletons agree on every consonant)."""
    return a == b or (len(a) >= MIN_LETTERS and _skeleton(a) == _skeleton(b)
                      and sum(x != y for x, y in zip(a, b)) <= 1)


def sounds_alike(token: str, word: str) -> bool:
    """Whether two folded words are one name romanised two ways (module docstring)."""
    if min(len(token), len(word)) < MIN_LETTERS:
        return False
    return _keys_alike(spelling_key(token), spelling_key(word))


def sounds_alike_in(token: str, words: AbstractSet[str]) -> bool:
    """Whether one of ``words`` :func:`sounds_alike` ``token`` (stops at the first)."""
    return any(True for _ in _alike(token, words))


def alike_words(token: str, words: AbstractSet[str]) -> List[str]:
    """The words of ``words`` that :func:`sounds_alike` ``token``."""
    return list(_alike(token, words))


def _alike(token: str, words: AbstractSet[str]) -> Iterator[str]:
    """The words of ``words`` that :func:`sounds_alike` ``token``, looked up by skeleton (cached
    per frozen set: a page's forms are read for every candidate of every mention, and retrieval
    reads its whole vocabulary)."""
    if len(token) < MIN_LETTERS:
        return
    key = spelling_key(token)
    index = _cached_index(words) if isinstance(words, frozenset) else _index(words)
    yield from (word for other, word in index.get(_skeleton(key), ()) if _keys_alike(key, other))


def _index(words: AbstractSet[str]) -> Dict[str, List[Tuple[str, str]]]:
    """``(key, word)`` of the ``words`` of ``MIN_LETTERS`` letters or more, by skeleton."""
    index: Dict[str, List[Tuple[str, str]]] = defaultdict(list)
    for word in words:
        if len(word) >= MIN_LETTERS:
            key = spelling_key(word)
            index[_skeleton(key)].append((key, word))
    return index


@lru_cache(maxsize=1 << 12)
def _cached_index(words: FrozenSet[str]) -> Dict[str, List[Tuple[str, str]]]:
    return _index(words)
