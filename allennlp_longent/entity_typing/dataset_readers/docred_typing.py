"""Document-level entity typing on DocRED / Re-DocRED documents (Yao et al. 2019; Tan et al. 2022).

One instance per document types all its entities at once: every entity is a [MASK] entity over
the word pieces of all its mentions, and its labels are the set of its mentions' types
(PER, LOC, ORG, MISC, TIME, NUM). The metadata keeps every mention's type (``mention_types``, one
list per ``vertexSet`` entity) for the per-mention accuracy.
"""

from typing import Any, Dict, List

from allennlp.data import DatasetReader, Instance

from allennlp_longent.entity_typing.dataset_readers.base import EntityTypingReader
from allennlp_longent.relations.dataset_readers.docred_format import parse_docred_document


@DatasetReader.register("docred_entity_typing")
class DocredEntityTypingReader(EntityTypingReader):
    def record_to_instances(self, record: Dict[str, Any], where: str) -> List[Instance]:
        document = parse_docred_document(record, where)
        typed = [t is not None for types in document.mention_types for t in types]
        if not any(typed):
            labels = None  # a prediction input without types
        elif all(typed):
            labels = [sorted(set(types)) for types in document.mention_types]
        else:
            raise ValueError(f"{document.where}: some mentions have a 'type' and some do not")
        instance = self.make_instance(
            document.words, document.entity_spans, labels, document.where,
            {"title": document.title,
             "mention_types": None if labels is None else document.mention_types},
        )
        return [instance] if instance is not None else []
