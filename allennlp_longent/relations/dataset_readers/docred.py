"""DocRED / Re-DocRED reader for document-level relation extraction (Yao et al. 2019).

One instance per document: every entity is a [MASK] entity (id 1) over the word pieces of all its
mentions, and every ordered pair of distinct kept entities is a candidate with a multi-label
target over the relation types (an empty set means "no relation"). Gold triples stay in
``metadata`` with the original ``vertexSet`` indices, so triples of entities dropped by truncation
still count as misses in the official F1. Documents with fewer than two kept entities are skipped
and counted.
"""

from typing import Any, Dict, List

import torch
from allennlp.data import DatasetReader, Instance
from allennlp.data.fields import ListField, MetadataField, MultiLabelField, TensorField

from allennlp_longent.relations.dataset_readers.base import RelationRecordReader
from allennlp_longent.relations.dataset_readers.docred_format import parse_docred_document

MASK_ENTITY = 1


@DatasetReader.register("docred")
class DocredReader(RelationRecordReader):
    """``relation_schema`` (DocRED's ``rel_info.json``) or ``relation_labels``: when given, a
    relation outside it is an error naming the file and document. ``per_mention``: one entity token
    per mention (pooled per entity by the model)."""

    skip_reason = "documents with < 2 entities"

    def record_to_instances(self, record: Dict[str, Any], where: str) -> List[Instance]:
        document = parse_docred_document(record, where)
        if document.triples is not None:
            self.check_relations(
                [relation for _, _, relation in sorted(document.triples)], document.where
            )
        encoded = self.builder.build(
            document.words,
            document.entity_spans,
            [MASK_ENTITY] * len(document.entity_spans),
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
