"""Shared instance layout of the entity-typing readers: every target entity is a [MASK] entity.

LUKE types an entity by adding the [MASK] entity over the target span and classifying its output
(Yamada et al. 2020, §4.1). Here one instance may hold several targets (a DocRED document types all
its entities at once); an entity with several mentions covers the word pieces of all of them.
Fields: ``tokens``, ``entity_ids`` (all 1), ``entity_position_ids``, ``entity_mask``, ``labels``
(one multi-label set per kept entity, when given) and ``metadata``.
"""

from typing import Any, Dict, Optional, Sequence

from allennlp.data import Instance
from allennlp.data.fields import ListField, MetadataField, MultiLabelField

from allennlp_longent.modules.entity_fields import EntityRecordReader, Span

MASK_ENTITY = 1


class EntityTypingReader(EntityRecordReader):
    """Base of the typing readers; subclasses turn one JSON record into instances."""

    def make_instance(
        self,
        words: Sequence[str],
        entities: Sequence[Sequence[Span]],
        labels: Optional[Sequence[Sequence[str]]],
        where: str,
        metadata: Optional[Dict[str, Any]] = None,
    ) -> Optional[Instance]:
        """The instance for ``entities`` (mention spans) in ``words``; None when truncation
        dropped every entity (counted by the builder)."""
        encoded = self.builder.build(words, entities, [MASK_ENTITY] * len(entities), where)
        if not encoded.kept:
            return None
        fields = dict(encoded.fields)
        if labels is not None:
            for index in encoded.kept:
                if not labels[index]:
                    raise ValueError(f"{where}: entity {index} has no type labels")
            fields["labels"] = ListField([MultiLabelField(list(labels[i])) for i in encoded.kept])
        meta = dict(metadata or {})
        meta.update(
            where=where,
            entities=encoded.kept,
            mentions=[[" ".join(words[s:e]) for s, e in entities[i]] for i in encoded.kept],
        )
        fields["metadata"] = MetadataField(meta)
        return Instance(fields)
