"""DocRED / Re-DocRED reader for document-level relation extraction (Yao et al. 2019).

One instance per document: every entity is a [MASK] entity (id 1) over the word pieces of all its
mentions, and every ordered pair of distinct kept entities is a candidate with a multi-label
target over the relation types (an empty set means "no relation"). Gold triples stay in
``metadata`` with the original ``vertexSet`` indices, so triples of entities dropped by truncation
still count as misses in the official F1. Documents with fewer than two kept entities are skipped
and counted.
"""

import logging
from typing import Any, Dict, List, Optional

import torch
from allennlp.data import DatasetReader, Instance
from allennlp.data.fields import ListField, MetadataField, MultiLabelField, TensorField

from allennlp_longent.modules.entity_fields import EntityRecordReader
from allennlp_longent.relations.dataset_readers.docred_format import parse_docred_document

logger = logging.getLogger(__name__)

MASK_ENTITY = 1


@DatasetReader.register("docred")
class DocredReader(EntityRecordReader):
    """``relation_labels``: when given (e.g. the keys of DocRED's ``rel_info.json``), a relation
    outside it is an error naming the document."""

    def __init__(self, relation_labels: Optional[List[str]] = None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.relation_labels = set(relation_labels) if relation_labels is not None else None
        self.skipped = 0

    def _read(self, file_path: str):
        self.skipped = 0
        yield from super()._read(file_path)
        if self.skipped:
            logger.warning("%s: skipped %d documents with < 2 entities", file_path, self.skipped)

    def record_to_instances(self, record: Dict[str, Any], where: str) -> List[Instance]:
        document = parse_docred_document(record, where)
        if document.triples is not None and self.relation_labels is not None:
            for _, _, relation in sorted(document.triples):
                if relation not in self.relation_labels:
                    raise ValueError(f"{document.where}: unknown relation label {relation!r}")
        encoded = self.builder.build(
            document.words, document.entity_spans, [MASK_ENTITY] * len(document.entity_spans),
            document.where,
        )
        kept = encoded.kept
        if len(kept) < 2:
            self.skipped += 1
            return []
        pairs = [(h, t) for h in range(len(kept)) for t in range(len(kept)) if h != t]
        fields = dict(encoded.fields)
        fields["pair_indices"] = TensorField(torch.tensor(pairs), padding_value=-1)
        if document.triples is not None:
            by_pair: Dict[tuple, List[str]] = {}
            for head, tail, relation in document.triples:
                by_pair.setdefault((head, tail), []).append(relation)
            fields["pair_labels"] = ListField(
                [
                    MultiLabelField(by_pair.get((kept[h], kept[t]), []), "relation_labels")
                    for h, t in pairs
                ]
            )
        fields["metadata"] = MetadataField(
            {
                "where": document.where,
                "title": document.title,
                "entities": kept,
                "entity_names": document.mention_names,
                "gold": document.triples,
            }
        )
        return [Instance(fields)]
