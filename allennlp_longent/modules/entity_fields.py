"""Word spans to LUKE entity inputs, shared by the entity-typing and relation readers.

LUKE (Yamada et al. 2020, §3.1) represents an entity span by an entity token whose position
embedding is the average over the word pieces it covers. An entity with several mentions is
either one token over the word pieces of all of them (``per_mention=False``), or one token per
mention (``per_mention=True``, LUKE's span semantics; the model pools the mention tokens per
entity, ATLOP's log-sum-exp, Zhou et al. 2021, Eq. 2). :class:`EntityFieldBuilder` turns
whitespace words plus word-level mention spans into the word-piece ``TextField`` and the tensors
the ``long_luke`` embedder takes: ``entity_ids`` (B, M) padded with 0, ``entity_position_ids``
(B, M, P) padded with -1, ``entity_mask`` (B, M) padded with 0, where M counts entity tokens;
per mention also ``entity_mention_index`` (B, E, K): the token rows of each entity, padded with -1.

A data path may end in ``[START:STOP]`` (Python slice of the file's records, e.g.
``dev.json[0:450]``): record selection lives in the path, so a reader reused by ``allennlp
evaluate`` reads every record of the file it is given.
"""

import json
import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

import torch
from allennlp.data import DatasetReader, Instance
from allennlp.data.fields import Field, TensorField, TextField
from allennlp.data.token_indexers import PretrainedTransformerIndexer
from allennlp.data.tokenizers import PretrainedTransformerTokenizer

from allennlp_longent.modules.portable import naming_checkpoint, resolve_model_name

logger = logging.getLogger(__name__)

Span = Tuple[int, int]  # word offsets, end exclusive


RECORD_SLICE = re.compile(r"^(?P<path>.+)\[(?P<start>\d*):(?P<stop>\d*)\]$")


def split_record_slice(path: str) -> Tuple[str, slice]:
    """``"file.json[450:500]"`` -> ``("file.json", slice(450, 500))``; a path without the suffix
    (or a file whose name really ends so) selects every record."""
    match = RECORD_SLICE.match(str(path))
    if match is None or os.path.exists(path):
        return str(path), slice(None)
    start, stop = match["start"], match["stop"]
    return match["path"], slice(int(start) if start else None, int(stop) if stop else None)


def iter_json_records(path: str) -> Iterator[Tuple[str, Dict[str, Any]]]:
    """Yields ``(where, record)`` from a JSON list or a JSON-lines file, optionally sliced by a
    ``[START:STOP]`` suffix (see :func:`split_record_slice`).

    ``where`` names the file and the line (JSON lines) or record index (JSON list) for errors.
    """
    file_path, selected = split_record_slice(path)
    with open(file_path, encoding="utf-8") as handle:
        text = handle.read()
    if text.lstrip().startswith("["):
        numbered = [(f"{file_path} record {i}", r) for i, r in enumerate(json.loads(text))]
    else:
        numbered = [
            (f"{file_path}:{i + 1}", json.loads(line))
            for i, line in enumerate(text.splitlines())
            if line.strip()
        ]
    yield from numbered[selected]


@dataclass
class TruncationStats:
    """Counts what truncation at the word-piece limit removed from one file."""

    texts: int = 0
    truncated_texts: int = 0
    dropped_mentions: int = 0
    dropped_entities: int = 0

    def log(self, path: str, max_length: int) -> None:
        if self.truncated_texts or self.dropped_mentions:
            logger.warning(
                "%s: truncated %d of %d texts at %d word pieces; dropped %d mentions (past the "
                "cut or without word pieces) and %d entities past the cut",
                path, self.truncated_texts, self.texts, max_length, self.dropped_mentions,
                self.dropped_entities,
            )


@dataclass
class EncodedEntities:
    """Fields for one text; ``kept`` lists the input indices of the entities that survived."""

    fields: Dict[str, Field]
    kept: List[int]
    wordpieces: List[str] = field(default_factory=list)


class EntityFieldBuilder:
    """Tokenizes words into word pieces and builds the entity tensors for given mention spans.

    ``max_length`` counts word pieces including the special tokens. Longer texts are cut when
    ``truncate`` is true (mentions past the cut and entities left without mentions are dropped and
    counted in :attr:`stats`), otherwise they raise a ``ValueError`` naming the record.
    ``per_mention``: one entity token per mention plus ``entity_mention_index`` (module docstring).
    """

    def __init__(
        self,
        model_name: str,
        max_length: int = 512,
        truncate: bool = True,
        tokenizer_kwargs: Optional[Dict[str, Any]] = None,
        serialization_dir: Optional[str] = None,
        per_mention: bool = False,
    ) -> None:
        self.per_mention = per_mention
        model_name, _ = resolve_model_name(model_name, serialization_dir)
        with naming_checkpoint(model_name):
            self.tokenizer = PretrainedTransformerTokenizer(
                model_name, tokenizer_kwargs=tokenizer_kwargs
            )
            self.token_indexers = {
                "tokens": PretrainedTransformerIndexer(
                    model_name, tokenizer_kwargs=tokenizer_kwargs
                )
            }
        self.max_length = max_length
        self.truncate = truncate
        self.stats = TruncationStats()

    def wordpiece_offsets(self, words: Sequence[str], where: str):
        """Word pieces with special tokens; per word its inclusive piece span (None for a word
        without pieces); and the number of words before the cut."""
        pieces, offsets = self.tokenizer.intra_word_tokenize(list(words))
        self.stats.texts += 1
        if len(pieces) <= self.max_length:
            return pieces, offsets, len(words)
        if not self.truncate:
            raise ValueError(
                f"{where}: {len(pieces)} word pieces exceed max_length={self.max_length} "
                "(set truncate=true to cut and drop the entities past the cut)"
            )
        self.stats.truncated_texts += 1
        start = len(self.tokenizer.single_sequence_start_tokens)
        end = self.tokenizer.single_sequence_end_tokens
        body = pieces[start : len(pieces) - len(end)][: self.max_length - start - len(end)]
        pieces = pieces[:start] + body + end
        last = start + len(body) - 1
        kept_words = next(
            (i for i, o in enumerate(offsets) if o is not None and o[1] > last), len(words)
        )
        return pieces, offsets[:kept_words] + [None] * (len(words) - kept_words), kept_words

    def build(
        self,
        words: Sequence[str],
        entities: Sequence[Sequence[Span]],
        entity_ids: Sequence[int],
        where: str,
    ) -> EncodedEntities:
        """``entities[i]`` are the mention spans of entity ``i`` with task entity id
        ``entity_ids[i]`` (1 = [MASK], 2 = [MASK2])."""
        if not entities:
            raise ValueError(f"{where}: no entities to encode")
        for spans in entities:
            if not spans:
                raise ValueError(f"{where}: an entity has no mentions")
            for start, end in spans:
                if not 0 <= start < end <= len(words):
                    raise ValueError(
                        f"{where}: mention span [{start}, {end}) is out of range for "
                        f"{len(words)} words"
                    )
        pieces, offsets, kept_words = self.wordpiece_offsets(words, where)
        kept: List[int] = []
        mentions: List[List[List[int]]] = []  # per kept entity, the pieces of each kept mention
        for index, spans in enumerate(entities):
            entity_mentions = []
            for start, end in spans:
                word_offsets = [o for o in offsets[start:end] if o is not None]
                if end > kept_words or not word_offsets:
                    self.stats.dropped_mentions += 1  # past the cut, or words without pieces
                    continue
                entity_mentions.append(
                    [p for first, last in word_offsets for p in range(first, last + 1)]
                )
            if not entity_mentions:
                self.stats.dropped_entities += 1
                continue
            kept.append(index)
            mentions.append(entity_mentions)
        fields: Dict[str, Field] = {"tokens": TextField(pieces, self.token_indexers)}
        if kept:
            fields.update(self._entity_fields([entity_ids[i] for i in kept], mentions))
        return EncodedEntities(fields, kept, [t.text for t in pieces])

    def _entity_fields(self, ids: List[int], mentions: List[List[List[int]]]) -> Dict[str, Field]:
        if self.per_mention:
            tokens = [pieces for entity in mentions for pieces in entity]
            token_ids = [i for i, entity in zip(ids, mentions) for _ in entity]
            rows, index = 0, torch.full((len(ids), max(map(len, mentions))), -1, dtype=torch.long)
            for row, entity in enumerate(mentions):
                index[row, : len(entity)] = torch.arange(rows, rows + len(entity))
                rows += len(entity)
        else:
            # One token over the union of the mentions' pieces, in first-seen order.
            tokens = [list(dict.fromkeys(p for m in entity for p in m)) for entity in mentions]
            token_ids = ids
        width = max(len(p) for p in tokens)
        position_ids = torch.full((len(tokens), width), -1, dtype=torch.long)
        for row, covered in enumerate(tokens):
            position_ids[row, : len(covered)] = torch.tensor(covered)
        fields: Dict[str, Field] = {
            "entity_ids": TensorField(torch.tensor(token_ids), padding_value=0),
            "entity_position_ids": TensorField(position_ids, padding_value=-1),
            "entity_mask": TensorField(torch.ones(len(tokens), dtype=torch.long)),
        }
        if self.per_mention:
            fields["entity_mention_index"] = TensorField(index, padding_value=-1)
        return fields

    def log_stats(self, path: str) -> None:
        """Logs the truncation counts of one file and resets them."""
        self.stats.log(str(Path(path)), self.max_length)
        self.stats = TruncationStats()


class EntityRecordReader(DatasetReader):
    """Base of the entity readers: JSON records in, :meth:`record_to_instances` per record.

    A path may select records with a ``[START:STOP]`` suffix (module docstring);
    ``per_mention``: one entity token per mention (:class:`EntityFieldBuilder`). The truncation
    counts of each file are logged after it is read.
    """

    def __init__(
        self,
        transformer_model_name: str,
        max_length: int = 512,
        truncate: bool = True,
        tokenizer_kwargs: Optional[Dict[str, Any]] = None,
        serialization_dir: Optional[str] = None,
        per_mention: bool = False,
        **kwargs,
    ) -> None:
        super().__init__(**kwargs)
        self.builder = EntityFieldBuilder(
            transformer_model_name, max_length, truncate, tokenizer_kwargs, serialization_dir,
            per_mention,
        )

    def _read(self, file_path: str) -> Iterable[Instance]:
        for where, record in iter_json_records(file_path):
            yield from self.record_to_instances(record, where)
        self.builder.log_stats(file_path)

    def record_to_instances(self, record: Dict[str, Any], where: str) -> List[Instance]:
        """The instances of one record; ``where`` names the file and record for errors."""
        raise NotImplementedError
