"""Shared instance construction for the EntityNLM readers (Ji et al. 2017, §2 latent variables)."""

import logging
from collections import Counter
from typing import Dict, Iterable, List, Optional, Sequence

import torch
from allennlp.data import DatasetReader, Instance, Token
from allennlp.data.fields import MetadataField, TensorField, TextField
from allennlp.data.token_indexers import SingleIdTokenIndexer, TokenIndexer

from allennlp_longent.entity_nlm.structure import (
    NO_ENTITY,
    Mention,
    StructureError,
    build_structure,
    check_structure,
    clusters_to_mentions,
)

logger = logging.getLogger(__name__)


SENTENCE_END = frozenset({".", "!", "?"})


def punctuation_sentences(words: Sequence[str]) -> List[int]:
    """0-based sentence index of each word; a sentence ends after ".", "!" or "?"."""
    ids, sentence = [], 0
    for word in words:
        ids.append(sentence)
        sentence += word in SENTENCE_END
    return ids


class EntityNlmReader(DatasetReader):
    """Base reader: one instance per document with fields ``tokens``, ``entity_ids`` (E_t, -1 off
    mentions), ``mention_lengths`` (L_t), ``sentence_ids`` (0-based sentence of each token, for the
    §5.3 protocol) and ``metadata`` (source, words, line of each token, drop counts).

    Empty documents are skipped, counted and logged; mentions dropped by ``build_structure``
    (nested, singleton, too long) are counted in ``dropped`` and logged per document (info) and per
    file (warning); other bad input raises ``StructureError`` naming the file and line.
    """

    def __init__(
        self,
        token_indexers: Optional[Dict[str, TokenIndexer]] = None,
        max_mention_length: int = 25,
        singletons: bool = False,
        long_mentions: str = "error",
        lowercase: bool = False,
        **kwargs,
    ) -> None:
        super().__init__(**kwargs)
        self._token_indexers = token_indexers or {"tokens": SingleIdTokenIndexer()}
        self._max_mention_length = max_mention_length
        self._singletons = singletons
        self._long_mentions = long_mentions
        self._lowercase = lowercase
        self.skipped_empty = 0
        self.dropped: Counter = Counter()

    def documents_to_instances(self, documents: Iterable[dict], file: str) -> Iterable[Instance]:
        """Documents of ``file`` are dicts ``{words, mentions, source, lines, [document],
        [sentences], [targets], [human_majority]}`` from a parser; ``source`` names the file (and
        line), ``document`` (optional) the document inside it, ``sentences`` the sentence index of
        each word (default: split after sentence-final punctuation), ``targets`` and
        ``human_majority`` per-token codes of the entity-prediction targets (``inscript_tacl``)."""
        before = Counter(self.dropped)
        for document in documents:
            if not document["words"]:
                self.skipped_empty += 1
                logger.warning("%s %s: empty document skipped (%d so far)", document["source"],
                               document.get("document", ""), self.skipped_empty)
                continue
            yield self._instance(**document)
        in_file = self.dropped - before
        if in_file:
            logger.warning("%s: dropped %s", file, _describe(in_file))

    def text_to_instance(  # type: ignore[override]
        self, words: List[str], clusters: Sequence[Sequence[Sequence[int]]] = (),
        source: str = "input",
    ) -> Instance:
        """An instance from words and AllenNLP-style clusters of inclusive [start, end] spans."""
        if not words:
            raise StructureError(f"{source}: empty document (no tokens)")
        return self._instance(list(words), clusters_to_mentions(clusters), source, None)

    def _instance(
        self, words: List[str], mentions: List[Mention], source: str, lines: Optional[List[int]],
        document: str = "", sentences: Optional[List[int]] = None,
        targets: Optional[List[int]] = None, human_majority: Optional[List[int]] = None,
    ) -> Instance:
        entity_ids, lengths, stats = build_structure(
            len(words), mentions, self._max_mention_length, source, self._singletons,
            self._long_mentions,
        )
        drops = Counter({k: v for k, v in stats.items() if v})
        if drops:
            self.dropped.update(drops)
            logger.info("%s %s: dropped %s", source, document, _describe(drops))
        check_structure(entity_ids, lengths, self._max_mention_length, source)
        sentences = punctuation_sentences(words) if sentences is None else sentences
        if len(sentences) != len(words):
            raise StructureError(f"{source} {document}: {len(sentences)} sentence ids for "
                                 f"{len(words)} words")
        text = [Token(w.lower() if self._lowercase else w) for w in words]
        fields = {
            "tokens": TextField(text, self._token_indexers),
            "entity_ids": TensorField(torch.tensor(entity_ids), padding_value=NO_ENTITY),
            "mention_lengths": TensorField(torch.tensor(lengths), padding_value=0),
            "sentence_ids": TensorField(torch.tensor(sentences), padding_value=-1),
            "metadata": MetadataField(
                {"source": source, "document": document, "words": words, "lines": lines,
                 "stats": stats}
            ),
        }
        if targets is not None:
            fields["targets"] = TensorField(torch.tensor(targets), padding_value=0)
        if human_majority is not None:
            fields["human_majority"] = TensorField(torch.tensor(human_majority), padding_value=0)
        return Instance(fields)

    def apply_token_indexers(self, instance: Instance) -> None:
        instance.fields["tokens"].token_indexers = self._token_indexers  # type: ignore


def _describe(drops: Counter) -> str:
    names = {"nested_dropped": "nested mentions (outermost kept)",
             "singletons_dropped": "singleton mentions", "long_dropped": "over-long mentions"}
    return ", ".join(f"{drops[k]} {names[k]}" for k in names if drops[k])
