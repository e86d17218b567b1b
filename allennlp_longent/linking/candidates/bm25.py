"""BM25 candidate generation on the ``bm25s`` library, with a title field.

A mention is usually a name, and an entity's name is its title: plain BM25 over title and
description together ranks "Edda Ambrell (ship)" and every other Ambrell as high as, or above,
the person Edda Ambrell, and a short exact title ("Gullhaven") below a page that repeats the word.
So each candidate d of the BM25 top list for a mention q is scored

    score(d) = bm25(q, d) + w · top · dice(q, title(d)) + tier(q, d) · (1 + w) · top

where ``top`` is the best BM25 score for q (the title terms are on BM25's scale for that query),
``dice`` the Dice overlap 2|Q ∩ T| / (|Q| + |T|) of the query's and the title's tokens (the title
field), and ``tier`` 2 when the title equals the mention (case and spaces aside), 1 when it does
after dropping a bracketed qualifier ("Edda Ambrell (ship)"), else 0. The first two terms lie in
[0, (1 + w) · top], so a higher tier always ranks first: an exact title is never below an entity
that merely shares a word with it. ``w = 0`` with no tier is plain BM25 (``title_weight=0``).

Names are written in more than one way, so the index and the queries fold accents
(``fold_accents``: "Čáhppesjávri" and "Cahppesjavri", "Heimøy" and "Heimoy" are one token), and
a query word that no page writes (``expand_unknown``) is replaced by the indexed words it is a
variant of (:func:`variant`): an inflection ("Galdetinden" for the page's "Galdetind", "Ancells"
for "Ancell's", a declined "Kłobuszycach" for "Kłobuszyce": :func:`inflected`, round 30) or a
one-letter spelling difference ("Lavvan", "Lavvann"); failing those, by the
words it writes with another first letter (a mutation or a transliteration: "Borthgarreg" for
Porthgarreg, "Gadalur" for Kadalur; round 26); failing those, by the
words it clips at their front (:func:`clipped_front`, "Tunde" for "Babátúndé"); failing those,
by the words that write it as the name rules of :mod:`allennlp_longent.linking.names` read a
page, romanised another way ("Pinmakan" for Pyinmakan) or as the full name of a pet name
("Maggie" for Margaret; round 43: the rules linked such a name, but no page was retrieved for
it); failing those, by the two or three indexed words it writes joined (:func:`joined_split`,
"Ileosa" for "Ilé-Ọ̀sà", "transvillarica" for Trans Villa Rica). A word some page writes is
never expanded, so exact matches rank as before.
"""

import json
import logging
import os
import re
from collections import defaultdict
from functools import lru_cache
from pathlib import Path
from typing import AbstractSet, Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

import bm25s
import numpy as np
from bm25s.stopwords import STOPWORDS_EN

from allennlp_longent.linking.candidates.folding import fold, single_letters
from allennlp_longent.linking.candidates.generator import (
    Candidate,
    CandidateGenerator,
    Document,
    Query,
    as_mention_query,
)

IDS_FILE = "document_ids.json"
TITLE_TIERS = 2  # exact title, title without its bracketed qualifier
_WORD = re.compile(r"\w+")
_STOPWORDS = frozenset(STOPWORDS_EN)
logging.getLogger("bm25s").setLevel(logging.WARNING)  # bm25s sets DEBUG on import


VARIANT_PREFIX = 4  # a variant shares its first letters with the word: the index's buckets


def bm25_tokens(text: str) -> List[str]:
    """Runs of word characters of the :func:`fold`-ed text, English stop words removed: the
    tokens of the index, the queries and every name comparison."""
    return [token for token in _WORD.findall(fold(text)) if token not in _STOPWORDS]


def unfolded_tokens(text: str) -> List[str]:
    """:func:`bm25_tokens` with accents kept: the tokens of indexes saved before folding."""
    return [token for token in _WORD.findall(text.lower()) if token not in _STOPWORDS]


def _one_edit(a: str, b: str) -> bool:
    if abs(len(a) - len(b)) > 1:
        return False
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    return a[i + 1:] == b[i + 1:] or a[i:] == b[i + 1:] or a[i + 1:] == b[i:]


def same_word(token: str, word: str) -> bool:
    """Whether ``token`` and ``word`` are one word written two ways: equal; one of them the other
    plus at most two letters, the shorter having at least five (a suffix: "galdetinden",
    "galdetind"; "ancells", "ancell"); or, from five letters, one edit apart (a spelling
    variant: "lavvan", "lavvann"); or one of these once doubled letters are written single
    ("villarubias", "villarrubia"; round 26)."""
    if token == word:
        return True
    short, long = sorted((token, word), key=len)
    if len(short) >= 5 and len(long) - len(short) <= 2 and long.startswith(short):
        return True
    if len(token) < 5:
        return False
    if _one_edit(token, word):
        return True
    single = single_letters(token), single_letters(word)
    return single != (token, word) and same_word(*single)


def _tail_key(word: str) -> str:
    """The bucket of the words that differ from ``word`` in its first letter alone."""
    return "-" + word[1:VARIANT_PREFIX + 1]


def variant(token: str, word: str) -> bool:
    """:func:`same_word`, or a shared prefix of at least max(4, |token| - 1) letters (an
    inflection, a derivation, a short form: "alex" for "alexander"), or :func:`inflected`, or
    one is an adjective made from the other (:func:`adjectival`)."""
    prefix = max(VARIANT_PREFIX, len(token) - 1)
    return (len(word) >= prefix and word[:prefix] == token[:prefix]) or same_word(token, word) \
        or inflected(token, word) or adjectival(token, word) or adjectival(word, token)


# the endings of Slavic adjectives made from names, romanised ("Lobazovsky dom", "Pafnutievskaya
# Yarmarka", "Muhurskoe" beer; round 46)
ADJECTIVE_ENDINGS = ("skaya", "skoye", "skoe", "skiy", "skii", "skoy", "sky", "ska", "ski",
                     "sko", "skie")
ADJECTIVE_STEM = 5  # letters of the name an adjective is made from, at least


def adjectival(token: str, word: str) -> bool:
    """Whether ``token`` is an adjective made from the name ``word`` with one of
    ``ADJECTIVE_ENDINGS``: the name itself, or the name without its last vowel ("muhurskoe" of
    "muhuri"), before the ending."""
    if not token.endswith(ADJECTIVE_ENDINGS):  # most words: one test on the hot path of variant
        return False
    ending = next(e for e in ADJECTIVE_ENDINGS if token.endswith(e))
    stem = token[:-len(ending)]
    return len(stem) >= ADJECTIVE_STEM and (
        stem == word or (word[:-1] == stem and word[-1:] in "aeiouy"))


INFLECTION_STEM = 7  # letters a case form of a name shares with its base form at least
INFLECTION_TAIL = 4  # letters of the case ending at most


def inflected(token: str, word: str) -> bool:
    """Whether ``token`` and ``word`` are one name with two case endings: after a shared stem of
    at least ``INFLECTION_STEM`` letters, one has a single letter, the base form's ending, and
    the other one to ``INFLECTION_TAIL`` letters ("klobuszyce" and "klobuszycach", "wyrwolka" and
    "wyrwolkowa", "kaarnakoski" and "kaarnakoskella", as Polish or Finnish decline a name; round
    30). Two longer tails are a compound's second parts ("Görglerstr." and "Görglerbahn"), and
    one word whole at the start of the other a compound too ("Mettwitztal")."""
    if len(token) <= INFLECTION_STEM or len(word) <= INFLECTION_STEM \
            or token[:INFLECTION_STEM] != word[:INFLECTION_STEM]:
        return False
    stem = len(os.path.commonprefix((token, word)))
    tails = sorted((len(token) - stem, len(word) - stem))
    return tails[0] == 1 and tails[1] <= INFLECTION_TAIL


def clipped_front(token: str, word: str) -> bool:
    """Whether ``token`` is ``word`` with at least two of its first letters dropped, keeping at
    least four: a name clipped at its front ("tunde" for "babatunde", "bert" for "albert")."""
    return len(token) >= VARIANT_PREFIX and len(word) >= len(token) + 2 and word.endswith(token)


def joined_split(token: str, words: AbstractSet[str], parts: int = 3
                 ) -> Optional[Tuple[str, ...]]:
    """Two to ``parts`` words of ``words``, of three letters or more, that ``token`` writes
    joined ("ileosa" for "ile" and "osa" of Ilé-Ọ̀sà; "transvillarica" for Trans Villa Rica, as
    hashtags and web addresses write names; round 27); the split with the longest first word,
    or None."""
    for i in range(len(token) - 3, 2, -1):
        if token[:i] not in words:
            continue
        if token[i:] in words:
            return token[:i], token[i:]
        rest = joined_split(token[i:], words, parts - 1) if parts > 2 else None
        if rest:
            return (token[:i],) + rest
    return None


def known(token: str, words: AbstractSet[str]) -> bool:
    """Whether ``words`` hold ``token``, a word it is the :func:`same_word` as, or, from five
    letters, a word it clips at its front (:func:`clipped_front`)."""
    if token in words:
        return True
    if len(token) < 5:
        return False
    return any(w[:1] == token[:1] and same_word(token, w) for w in words) or clips(token, words)


def clips(token: str, words: AbstractSet[str]) -> bool:
    """Whether ``token`` clips one of ``words`` at its front (:func:`clipped_front`), looked up
    among the words that end with its last letters (per frozen set, cached: pages are read for
    every candidate of every mention)."""
    ends = _cached_ends(words) if isinstance(words, frozenset) else _word_ends(words)
    return bool(_clipped(token, ends))


def _clipped(token: str, ends: Dict[str, List[str]]) -> List[str]:
    """The words of ``ends`` (:func:`_word_ends`) that ``token`` clips at their front, sorted."""
    return sorted(w for w in ends.get(token[-VARIANT_PREFIX:], ()) if clipped_front(token, w))


def _word_ends(words: AbstractSet[str]) -> Dict[str, List[str]]:
    """``words`` by their last ``VARIANT_PREFIX`` letters: where a clipped name is looked up."""
    ends: Dict[str, List[str]] = defaultdict(list)
    for word in words:
        ends[word[-VARIANT_PREFIX:]].append(word)
    return ends


@lru_cache(maxsize=1 << 12)
def _cached_ends(words: FrozenSet[str]) -> Dict[str, List[str]]:
    return _word_ends(words)


def plain_title(text: str) -> str:
    """Lower case, spaces collapsed."""
    return " ".join(text.lower().split())


def unqualified(text: str) -> str:
    """``text``, spaces collapsed, without a trailing ``(qualifier)``; case kept."""
    text = " ".join(text.split())
    if text.endswith(")") and " (" in text:
        text = text[: text.rindex(" (")]
    return text


def bare_title(text: str) -> str:
    """:func:`plain_title` without a trailing ``(qualifier)``."""
    return plain_title(unqualified(text))


def qualifier_words(title: str) -> Set[str]:
    """Content words of a trailing ``(qualifier)`` of a title; empty without one."""
    plain = plain_title(title)
    bare = bare_title(title)
    return set(bm25_tokens(plain[len(bare):])) if bare != plain else set()


def title_tier(mention: str, title: str) -> int:
    """2: the title is the mention; 1: it is once its bracketed qualifier is dropped; else 0.
    Accents aside ("MF Heimoy" is the title "MF Heimøy")."""
    mention = fold(plain_title(mention))
    if not mention:
        return 0
    if fold(plain_title(title)) == mention:
        return 2
    return int(fold(bare_title(title)) == mention)


def dice(query: Sequence[str], title: Sequence[str]) -> float:
    """Dice overlap of two token sets, a query token that is the :func:`same_word` as a title
    token counting as shared; 0 when both are empty."""
    q, t = set(query), set(title)
    if not q and not t:
        return 0.0
    shared = min(sum(known(w, t) for w in q), len(t))
    return 2 * shared / (len(q) + len(t))


def name_match(words: Sequence[str], bare: str, title: str) -> Tuple[float, float]:
    """How a mention's name matches a candidate's title: the Dice overlap of the mention's
    content ``words`` and the title's bare title's, and 1.0 when the mention's ``bare`` title
    equals the candidate's (the first stage's ``overlap`` and ``title_match``, the
    cross-encoder's ``name_features``)."""
    title = bare_title(title)
    tokens = bm25_tokens(title)
    return dice(unjoined(words, tokens), tokens), float(fold(title) == fold(bare))


def unjoined(words: Sequence[str], title: Sequence[str]) -> List[str]:
    """``words`` with each word that writes two of the ``title``'s words joined written apart
    (:func:`joined_split`: "ileosa" is "ile", "osa" against Ilé-Ọ̀sà)."""
    known_words = set(title)
    found: List[str] = []
    for word in words:
        split = None if word in known_words else joined_split(word, known_words)
        found += list(split) if split else [word]
    return found


@CandidateGenerator.register("bm25")
class BM25CandidateGenerator(CandidateGenerator):
    """Okapi BM25 (Lucene variant) over lower-cased, stop-word-free word tokens, plus the title
    field and tiers of the module docstring with weight ``title_weight`` (0: plain BM25). Titles
    are known when documents are indexed with :meth:`index_documents`; :meth:`index` takes
    plain texts and so ranks by BM25 alone."""

    def __init__(self, k1: float = 1.2, b: float = 0.75, title_weight: float = 1.0,
                 fold_accents: bool = True, expand_unknown: bool = True) -> None:
        if title_weight < 0:
            raise ValueError(f"title_weight must be >= 0, got {title_weight}")
        self.k1 = k1
        self.b = b
        self.title_weight = title_weight
        self.fold_accents = fold_accents
        self.expand_unknown = expand_unknown
        self._document_ids: List[str] = []
        self._titles: List[str] = []
        self._bm25: Optional[bm25s.BM25] = None
        self._buckets: Optional[Dict[str, List[str]]] = None
        self._ends: Optional[Dict[str, List[str]]] = None
        self._vocabulary: Optional[FrozenSet[str]] = None  # _indexed_words's, once

    def config(self) -> dict:
        return {"type": "bm25", "k1": self.k1, "b": self.b, "title_weight": self.title_weight,
                "fold_accents": self.fold_accents, "expand_unknown": self.expand_unknown}

    def tokens(self, text: str) -> List[str]:
        """The index's tokens of ``text``: :func:`bm25_tokens`, or :func:`unfolded_tokens`
        without ``fold_accents``."""
        return bm25_tokens(text) if self.fold_accents else unfolded_tokens(text)

    def _query_tokens(self, query: str) -> List[str]:
        """The query's tokens; with ``expand_unknown``, a token no page writes gives way to the
        indexed words it is a :func:`variant` of (none when there is none)."""
        tokens = self.tokens(query)
        if not self.expand_unknown:
            return tokens
        vocabulary = self._bm25.vocab_dict
        if self._buckets is None:
            self._buckets, self._ends = defaultdict(list), _word_ends(vocabulary.keys())
            for word in vocabulary:
                self._buckets[word[:VARIANT_PREFIX]].append(word)
                self._buckets[_tail_key(word)].append(word)
        expanded = []
        for token in tokens:
            if token in vocabulary:
                expanded.append(token)
                continue
            if len(token) < VARIANT_PREFIX:  # too short for a variant; a pet name ("Abe") may be
                expanded += self._full_names(token) or [token]
                continue
            found = sorted(w for w in self._buckets.get(token[:VARIANT_PREFIX], ())
                           if variant(token, w))
            if not found:  # its first letter changed: "Borthgarreg" for Porthgarreg
                found = sorted(w for w in self._buckets.get(_tail_key(token), ())
                               if w[1:] == token[1:])
            if not found:
                found = _clipped(token, self._ends)
            if not found:
                found = self._written_otherwise(token)
            expanded += found or list(joined_split(token, vocabulary) or ())
        return expanded

    def _indexed_words(self) -> FrozenSet[str]:
        """The index's vocabulary as a set, built once per index."""
        if self._vocabulary is None:
            self._vocabulary = frozenset(self._bm25.vocab_dict)
        return self._vocabulary

    def _full_names(self, token: str) -> List[str]:
        """The indexed words ``token`` is a pet name of
        (:func:`~allennlp_longent.linking.hypocorisms.full_names`), sorted."""
        from allennlp_longent.linking.hypocorisms import full_names

        return sorted(full_names(token, self._indexed_words()))

    def _written_otherwise(self, token: str) -> List[str]:
        """The indexed words that write ``token`` as the name rules read a page
        (:func:`~allennlp_longent.linking.names.written`): romanised another way
        (:func:`~allennlp_longent.linking.candidates.transliteration.sounds_alike`: "Pinmakan"
        for Pyinmakan) or a full name ``token`` is a pet name of
        (:func:`~allennlp_longent.linking.hypocorisms.nicknames`: "Maggie" for Margaret);
        sorted, none when there is none."""
        from allennlp_longent.linking.candidates.transliteration import alike_words

        return sorted(set(alike_words(token, self._indexed_words())) | set(self._full_names(token)))

    def document_ids(self) -> List[str]:
        return list(self._document_ids)

    def index(self, document_ids: Sequence[str], texts: Sequence[str]) -> None:
        if len(document_ids) != len(texts):
            raise ValueError(f"{len(document_ids)} document ids but {len(texts)} texts")
        self._document_ids = list(document_ids)
        self._titles = []
        self._bm25 = None
        self._buckets = self._ends = self._vocabulary = None
        corpus = [self.tokens(text) for text in texts]
        if any(corpus):  # bm25s cannot index a collection without a single token
            self._bm25 = bm25s.BM25(k1=self.k1, b=self.b, method="lucene")
            self._bm25.index(corpus, show_progress=False)

    def index_documents(self, documents: Sequence[Document]) -> None:
        """Indexes title and text as one text, and keeps the titles for the title field."""
        super().index_documents(documents)
        self._titles = [d["title"] for d in documents]

    def retrieve(self, queries: Sequence[Query], k: int) -> List[List[Candidate]]:
        """Ranks by the mention's words (a :class:`MentionQuery`'s context is not used)."""
        if k < 1:
            raise ValueError(f"k must be positive, got {k}")
        return [self._retrieve_one(as_mention_query(query).mention, k) for query in queries]

    def _retrieve_one(self, query: str, k: int) -> List[Candidate]:
        if self._bm25 is None:
            return []
        query_tokens = self._query_tokens(query)
        token_ids = self._bm25.get_tokens_ids(query_tokens)
        if not token_ids:
            return []
        scores = self._bm25.get_scores_from_ids(token_ids)
        if not self._titles or not self.title_weight:
            return [Candidate(self._document_ids[i], float(scores[i])) for i in _top_k(scores, k)]
        # the title terms re-order a pool wider than k: exact titles BM25 put below k come up
        pool = _top_k(scores, max(4 * k, 64))
        top = float(scores[pool[0]])
        titled = np.array([
            scores[i] + self.title_weight * top * dice(query_tokens, self.tokens(self._titles[i]))
            + title_tier(query, self._titles[i]) * (1 + self.title_weight) * top
            for i in pool
        ])
        order = np.lexsort((pool, -titled))[:k]
        return [Candidate(self._document_ids[pool[j]], float(titled[j])) for j in order]

    def _save_index(self, directory: Path) -> None:
        ids = {"document_ids": self._document_ids, "indexed": self._bm25 is not None,
               "titles": self._titles, "folded": self.fold_accents}
        (directory / IDS_FILE).write_text(json.dumps(ids) + "\n")
        if self._bm25 is not None:
            self._bm25.save(str(directory), show_progress=False)

    def _load_index(self, directory: Path) -> None:
        ids_path = directory / IDS_FILE
        if not ids_path.is_file():
            raise FileNotFoundError(f"BM25 index in {directory} lacks {IDS_FILE}")
        ids = json.loads(ids_path.read_text())
        self._document_ids = ids["document_ids"]
        self._titles = ids.get("titles", [])  # indexes saved before the title field: none
        # indexes saved before accents were folded keep their tokens, and so their queries'
        self.fold_accents = ids.get("folded", False)
        self._bm25 = None
        self._buckets = self._ends = self._vocabulary = None
        if ids["indexed"]:
            self._bm25 = bm25s.BM25.load(str(directory), show_progress=False)
            indexed = int(self._bm25.scores["num_docs"])
            if indexed != len(self._document_ids):
                raise ValueError(
                    f"BM25 index in {directory} holds {indexed} documents "
                    f"but {IDS_FILE} lists {len(self._document_ids)}"
                )


def _top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` best positive scores: score descending, ties by index."""
    positive = np.flatnonzero(scores > 0)
    if len(positive) > k:
        kth_best = np.partition(scores[positive], -k)[-k]
        positive = positive[scores[positive] >= kth_best]
    order = np.lexsort((positive, -scores[positive]))
    return positive[order][:k]
