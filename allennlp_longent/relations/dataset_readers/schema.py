"""The closed set of relation labels from a schema file, for readers and the vocabulary.

A schema file has DocRED's ``rel_info.json`` layout: a JSON object from relation id (a Wikidata
property such as ``"P17"``) to its name. The ``relation_schema`` vocabulary adds every id of the
schema to the label namespace, so a relation that the training data lacks still has an index
(and counts as a miss, never a crash, when it appears in evaluation data); a reader given the same
file rejects a label outside it with an error naming the file and record.
"""

import json
from typing import Iterable, List

from allennlp.data import Instance, Vocabulary


def load_relation_schema(path: str) -> List[str]:
    """The relation ids of a ``rel_info.json``-style file, in file order."""
    with open(path, encoding="utf-8") as handle:
        schema = json.load(handle)
    if not isinstance(schema, dict) or not schema:
        raise ValueError(f"{path}: a relation schema is a non-empty JSON object id -> name")
    return list(schema)


@Vocabulary.register("relation_schema", constructor="from_instances_and_schema")
class RelationSchemaVocabulary(Vocabulary):
    """``Vocabulary.from_instances`` plus every relation of ``schema_file`` in ``namespace``."""

    @classmethod
    def from_instances_and_schema(
        cls,
        instances: Iterable[Instance],
        schema_file: str,
        namespace: str = "relation_labels",
    ) -> Vocabulary:
        vocab = cls.from_instances(instances)
        vocab.add_tokens_to_namespace(load_relation_schema(schema_file), namespace)
        return vocab
