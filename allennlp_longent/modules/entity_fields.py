"""Word spans to LUKE entity inputs, shared by the entity-typing and relation readers.

LUKE (Yamada et al. 2020, §3.1) represents an entity by an entity token whose position embedding is
the average over the word pieces it covers; an entity with several mentions covers the word pieces
of all of them. :class:`EntityFieldBuilder` turns whitespace words plus word-level mention spans
into the word-piece ``TextField`` and the entity tensors the ``long_luke`` embedder takes:
``entity_ids`` (B, M) padded with 0, ``entity_position_ids`` (B, M, P) padded with -1 and
``entity_mask`` (B, M) padded with 0.
"""

import json
import logging
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


def iter_json_records(
    path: str, skip: int = 0, limit: Optional[int] = None
) -> Iterator[Tuple[str, Dict[str, Any]]]:
    """Yields ``(where, record)`` from a JSON list or a JSON-lines file.

    ``where`` names the file and the line (JSON lines) or record index (JSON list) for errors.
    ``skip`` and ``limit`` select a contiguous subset of records (a few documents for a smoke run).
    """
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    if text.lstrip().startswith("["):
        numbered = ((f"{path} record {i}", record) for i, record in enumerate(json.loads(text)))
    else:
        numbered = (
            (f"{path}:{i + 1}", json.loads(line))
            for i, line in enumerate(text.splitlines())
            if line.strip()
        )
    for index, item in enumerate(numbered):
        if index < skip:
            continue
        if limit is not None and index >= skip + limit:
            return
        yield item


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
    """

    def __init__(
        self,
        model_name: str,
        max_length: int = 512,
        truncate: bool = True,
        tokenizer_kwargs: Optional[Dict[str, Any]] = None,
        serialization_dir: Optional[str] = None,
    ) -> None:
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
        kept, ids, positions = [], [], []
        for index, spans in enumerate(entities):
            covered: List[int] = []
            for start, end in spans:
                word_offsets = [o for o in offsets[start:end] if o is not None]
                if end > kept_words or not word_offsets:
                    self.stats.dropped_mentions += 1  # past the cut, or words without pieces
                    continue
                for first, last in word_offsets:
                    covered.extend(p for p in range(first, last + 1) if p not in covered)
            if not covered:
                self.stats.dropped_entities += 1
                continue
            kept.append(index)
            ids.append(entity_ids[index])
            positions.append(covered)
        fields: Dict[str, Field] = {"tokens": TextField(pieces, self.token_indexers)}
        if kept:
            width = max(len(p) for p in positions)
            position_ids = torch.full((len(kept), width), -1, dtype=torch.long)
            for row, covered in enumerate(positions):
                position_ids[row, : len(covered)] = torch.tensor(covered)
            fields["entity_ids"] = TensorField(torch.tensor(ids), padding_value=0)
            fields["entity_position_ids"] = TensorField(position_ids, padding_value=-1)
            fields["entity_mask"] = TensorField(torch.ones(len(kept), dtype=torch.long))
        return EncodedEntities(fields, kept, [t.text for t in pieces])

    def log_stats(self, path: str) -> None:
        """Logs the truncation counts of one file and resets them."""
        self.stats.log(str(Path(path)), self.max_length)
        self.stats = TruncationStats()


class EntityRecordReader(DatasetReader):
    """Base of the entity readers: JSON records in, :meth:`record_to_instances` per record.

    ``max_records`` / ``skip_records`` read a contiguous subset of the file's records (lines or
    list items), e.g. a few documents for a CPU smoke run. The truncation counts of each file are
    logged after it is read.
    """

    def __init__(
        self,
        transformer_model_name: str,
        max_length: int = 512,
        truncate: bool = True,
        max_records: Optional[int] = None,
        skip_records: int = 0,
        tokenizer_kwargs: Optional[Dict[str, Any]] = None,
        serialization_dir: Optional[str] = None,
        **kwargs,
    ) -> None:
        super().__init__(**kwargs)
        self.builder = EntityFieldBuilder(
            transformer_model_name, max_length, truncate, tokenizer_kwargs, serialization_dir
        )
        self.max_records = max_records
        self.skip_records = skip_records

    def _read(self, file_path: str) -> Iterable[Instance]:
        for where, record in iter_json_records(file_path, self.skip_records, self.max_records):
            yield from self.record_to_instances(record, where)
        self.builder.log_stats(file_path)

    def record_to_instances(self, record: Dict[str, Any], where: str) -> List[Instance]:
        """The instances of one record; ``where`` names the file and record for errors."""
        raise NotImplementedError
