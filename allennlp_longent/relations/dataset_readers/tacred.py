"""TACRED reader (Zhang et al. 2017) for LUKE relation classification.

Each record has ``token``, inclusive ``subj_start/subj_end`` and ``obj_start/obj_end`` and a
``relation``. As in LUKE (Yamada et al. 2020, §4.3) the subject is the [MASK] entity (id 1) and
the object the [MASK2] entity (id 2). Instances whose subject or object falls past the word-piece
limit are skipped and counted.
"""

from typing import Any, Dict, List

from allennlp.data import DatasetReader, Instance
from allennlp.data.fields import LabelField, MetadataField

from allennlp_longent.relations.dataset_readers.base import RelationRecordReader

HEAD_ENTITY, TAIL_ENTITY = 1, 2
PTB_BRACKETS = {"-LRB-": "(", "-RRB-": ")", "-LSB-": "[", "-RSB-": "]", "-LCB-": "{", "-RCB-": "}"}


@DatasetReader.register("tacred")
class TacredReader(RelationRecordReader):
    """``relation_labels``: when given, a relation outside it is an error naming the record."""

    skip_reason = "truncated examples"

    def record_to_instances(self, record: Dict[str, Any], where: str) -> List[Instance]:
        where = f"{where} (id {record.get('id')!r})"
        try:
            words = [PTB_BRACKETS.get(word, word) for word in record["token"]]
            spans = [
                [(record["subj_start"], record["subj_end"] + 1)],
                [(record["obj_start"], record["obj_end"] + 1)],
            ]
        except KeyError as error:
            raise ValueError(f"{where}: missing field {error}") from error
        relation = record.get("relation")
        self.check_relations([relation], where)
        encoded = self.builder.build(words, spans, [HEAD_ENTITY, TAIL_ENTITY], where)
        if encoded.kept != [0, 1]:
            self.skipped += 1
            return []
        fields = dict(encoded.fields)
        if relation is not None:
            fields["label"] = LabelField(relation)
        fields["metadata"] = MetadataField(
            {
                "where": where,
                "id": record.get("id"),
                "head": " ".join(words[slice(*spans[0][0])]),
                "tail": " ".join(words[slice(*spans[1][0])]),
            }
        )
        return [Instance(fields)]
