"""FIGER-style fine-grained typing reader (Ling & Weld 2012; the common JSON-lines layout).

Each line is ``{"tokens": [...], "mentions": [{"start", "end", "labels"}]}`` with word offsets,
``end`` exclusive; every mention becomes its own instance with one [MASK] target entity.
"""

from typing import Any, Dict, List

from allennlp.data import DatasetReader, Instance

from allennlp_longent.entity_typing.dataset_readers.base import EntityTypingReader


@DatasetReader.register("figer")
class FigerReader(EntityTypingReader):
    def record_to_instances(self, record: Dict[str, Any], where: str) -> List[Instance]:
        if "tokens" not in record or not record.get("mentions"):
            raise ValueError(f"{where}: a FIGER record needs 'tokens' and a non-empty 'mentions'")
        instances = []
        for number, mention in enumerate(record["mentions"]):
            labels = [mention["labels"]] if "labels" in mention else None
            span = (mention["start"], mention["end"])
            instance = self.make_instance(
                record["tokens"], [[span]], labels, f"{where} mention {number}"
            )
            if instance is not None:
                instances.append(instance)
        return instances
