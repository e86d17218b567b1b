"""The peer: spaCy's own ``entity_linker``, trained on the same worlds over the same entity text.

Built the way spaCy's documentation builds an entity linker (an ``InMemoryLookupKB`` of entity
vectors and aliases with prior probabilities, then ``nlp.update`` on examples whose gold spans
carry kb ids), with what this project's linker has:

- entity vectors: the untrained sentence encoder the first stage uses (all-MiniLM-L6-v2) over
  each entity's title and description;
- aliases: each entity's title, its title without a bracketed qualifier, and each capitalised
  word of that (a surname names everyone who bears it), lower-cased; the prior of an alias is
  shared equally by its entities (no link counts exist for a new knowledge base);
- candidates (``longent.alias_candidates.v1``): the aliases of the span's text, lower-cased and
  without a leading "the" or title of address ("Dr", "Mr", ...), else of each of its words.

The trained model does not depend on the knowledge base, so the same pipeline links another world
after :func:`use_kb` swaps the KB (spaCy's ``EntityLinker.set_kb``).
"""

import random
from collections import defaultdict
from contextlib import contextmanager
from typing import TYPE_CHECKING, Dict, Iterable, Iterator, List, Sequence, Set, Tuple

from spacy.kb import Candidate, InMemoryLookupKB
from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.training import Example
from spacy.util import registry
from spacy.vocab import Vocab

from allennlp_longent.linking.candidates.bm25 import bare_title

if TYPE_CHECKING:
    from allennlp_longent.linking.knowledge_base import Entity

COMPONENT = "entity_linker"
LEADING = frozenset({"the", "a", "an", "dr", "dr.", "mr", "mr.", "mrs", "mrs.", "ms", "ms.",
                     "old", "young", "captain", "saint", "st.", "duke", "judge", "sir", "lady"})
SKIP = frozenset({"the", "of", "and", "a", "an", "in", "on", "at", "to", "for", "st."})


def aliases(title: str) -> Set[str]:
    """The lower-cased aliases of one title (module docstring)."""
    bare = bare_title(title)
    words = {w for w in bare.split() if w not in SKIP and len(w) > 1 and w.isalpha()}
    return {" ".join(title.lower().split()), bare} | words


def build_kb(vocab: Vocab, entities: Sequence["Entity"], vectors) -> InMemoryLookupKB:
    """An ``InMemoryLookupKB`` of ``entities`` with ``vectors`` (one row each) and aliases."""
    kb = InMemoryLookupKB(vocab, entity_vector_length=int(vectors.shape[1]))
    for entity, vector in zip(entities, vectors):
        kb.add_entity(entity.id, freq=1, entity_vector=[float(x) for x in vector])
    by_alias: Dict[str, List[str]] = defaultdict(list)
    for entity in entities:
        for alias in sorted(aliases(entity.title)):
            by_alias[alias].append(entity.id)
    for alias, ids in sorted(by_alias.items()):
        kb.add_alias(alias, ids, [1.0 / len(ids)] * len(ids))
    return kb


def span_keys(text: str) -> List[str]:
    """What :func:`alias_candidates` looks up for a span's text, most specific first."""
    words = text.lower().replace("'s", "").split()
    while len(words) > 1 and words[0] in LEADING:
        words = words[1:]
    return list(dict.fromkeys([" ".join(words)] + [w for w in words if w not in SKIP]))


def candidates_of(kb: InMemoryLookupKB, span: Span) -> List[Candidate]:
    keys = span_keys(span.text)
    found = kb.get_alias_candidates(keys[0])
    if found:
        return found
    seen: Dict[str, Candidate] = {}
    for key in keys[1:]:
        for candidate in kb.get_alias_candidates(key):
            seen.setdefault(candidate.entity_, candidate)
    return list(seen.values())


@registry.misc("longent.alias_candidates.v1")
def alias_candidates():
    return candidates_of


@registry.misc("longent.alias_candidates_batch.v1")
def alias_candidates_batch():
    def get(kb: InMemoryLookupKB, spans: Iterable[Span]) -> List[List[Candidate]]:
        return [candidates_of(kb, span) for span in spans]

    return get


def new_pipeline(vector_length: int, seed: int = 0) -> Language:
    """A blank English pipeline with a sentencizer and an untrained ``entity_linker``."""
    import spacy

    spacy.util.fix_random_seed(seed)
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.add_pipe(COMPONENT, config={
        "entity_vector_length": vector_length, "incl_prior": True, "incl_context": True,
        "get_candidates": {"@misc": "longent.alias_candidates.v1"},
        "get_candidates_batch": {"@misc": "longent.alias_candidates_batch.v1"},
    })
    return nlp


def use_kb(nlp: Language, kb: InMemoryLookupKB) -> None:
    nlp.get_pipe(COMPONENT).set_kb(lambda vocab: kb)


@contextmanager
def seeded_ties(seed: int = 0) -> Iterator[None]:
    """spaCy's ``EntityLinker.predict`` shuffles each span's candidates with Python's global
    ``random`` before scoring, so a span whose candidates score the same (same prior, same vector)
    goes to a different one from run to run. Inside this block that draw is seeded; the global
    state is restored after it."""
    state = random.getstate()
    random.seed(seed)
    try:
        yield
    finally:
        random.setstate(state)


def link(nlp: Language, docs: Sequence[Doc], batch_size: int = 32) -> List[Doc]:
    """``docs`` (sentence starts set, entities on) through the ``entity_linker``, ties drawn as
    :func:`seeded_ties` draws them, so the same docs get the same links in every run."""
    with seeded_ties():
        return list(nlp.get_pipe(COMPONENT).pipe(docs, batch_size=batch_size))


def word_doc(nlp: Language, words: Sequence[str],
             spans: Sequence[Tuple[int, int, str]]) -> Doc:
    """A doc of whitespace words with sentence starts and the gold ``(start, end inclusive,
    kb id)`` spans as entities (overlapping spans: the first kept)."""
    doc = nlp.get_pipe("sentencizer")(Doc(nlp.vocab, words=list(words)))
    ents, taken = [], set()
    for start, end, kb_id in sorted(spans):
        if taken & set(range(start, end + 1)):
            continue
        taken |= set(range(start, end + 1))
        ents.append(Span(doc, start, end + 1, label="ENTITY", kb_id=kb_id))
    doc.ents = ents
    return doc


def train(nlp: Language, kb: InMemoryLookupKB, docs: Sequence[Doc], epochs: int = 10,
          seed: int = 0) -> List[float]:
    """Trains the ``entity_linker`` on gold docs (their ents carry kb ids); losses per epoch."""
    use_kb(nlp, kb)
    examples = []
    for doc in docs:
        predicted = nlp.get_pipe("sentencizer")(nlp.make_doc(doc.text))
        examples.append(Example(predicted, doc))
    optimizer = nlp.initialize(lambda: examples)
    rng = random.Random(seed)
    losses_by_epoch = []
    with nlp.select_pipes(enable=[COMPONENT]):
        for _ in range(epochs):
            rng.shuffle(examples)
            losses: Dict[str, float] = {}
            for start in range(0, len(examples), 8):
                nlp.update(examples[start : start + 8], sgd=optimizer, losses=losses)
            losses_by_epoch.append(losses.get(COMPONENT, 0.0))
    return losses_by_epoch
