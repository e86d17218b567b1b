"""Shared instance construction for the EntityNLM readers (Ji et al. 2017, §2 latent variables)."""

import logging
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


class EntityNlmReader(DatasetReader):
    """Base reader: one instance per document with fields ``tokens``, ``entity_ids`` (E_t, -1 off
    mentions), ``mention_lengths`` (L_t) and ``metadata`` (source, words, line of each token).

    Empty documents are skipped, counted and logged; other bad input raises ``StructureError``
    naming the file and line.
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

    def documents_to_instances(self, documents: Iterable[dict]) -> Iterable[Instance]:
        """Documents are dicts ``{words, mentions, source, lines, [document]}`` from a parser;
        ``source`` names the file, ``document`` (optional) the document inside it."""
        for document in documents:
            if not document["words"]:
                self.skipped_empty += 1
                logger.warning("%s %s: empty document skipped (%d so far)", document["source"],
                               document.get("document", ""), self.skipped_empty)
                continue
            yield self._instance(**document)

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
        document: str = "",
    ) -> Instance:
        entity_ids, lengths, stats = build_structure(
            len(words), mentions, self._max_mention_length, source, self._singletons,
            self._long_mentions,
        )
        if stats["long_dropped"]:
            logger.warning("%s: dropped %d mentions longer than %d tokens", source,
                           stats["long_dropped"], self._max_mention_length)
        check_structure(entity_ids, lengths, self._max_mention_length, source)
        text = [Token(w.lower() if self._lowercase else w) for w in words]
        fields = {
            "tokens": TextField(text, self._token_indexers),
            "entity_ids": TensorField(torch.tensor(entity_ids), padding_value=NO_ENTITY),
            "mention_lengths": TensorField(torch.tensor(lengths), padding_value=0),
            "metadata": MetadataField(
                {"source": source, "document": document, "words": words, "lines": lines,
                 "stats": stats}
            ),
        }
        return Instance(fields)

    def apply_token_indexers(self, instance: Instance) -> None:
        instance.fields["tokens"].token_indexers = self._token_indexers  # type: ignore
