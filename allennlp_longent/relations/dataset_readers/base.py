"""What the relation readers share: an optional closed set of relation labels (a list, or a
``rel_info.json``-style schema file) and a count of the records skipped in a pass, logged at its
end."""

import logging
from typing import Iterable, List, Optional

from allennlp_longent.modules.entity_fields import EntityRecordReader
from allennlp_longent.relations.dataset_readers.schema import load_relation_schema

logger = logging.getLogger(__name__)


class RelationRecordReader(EntityRecordReader):
    """``relation_labels`` or ``relation_schema`` (a schema file, see :mod:`.schema`): when given, a
    relation outside them is an error naming the file and record."""

    skip_reason = "records"

    def __init__(
        self,
        relation_labels: Optional[List[str]] = None,
        relation_schema: Optional[str] = None,
        **kwargs,
    ) -> None:
        super().__init__(**kwargs)
        if relation_labels is not None and relation_schema is not None:
            raise ValueError("give relation_labels or relation_schema, not both")
        if relation_schema is not None:
            relation_labels = load_relation_schema(relation_schema)
        self.relation_labels = set(relation_labels) if relation_labels is not None else None
        self.skipped = 0

    def _read(self, file_path: str):
        self.skipped = 0
        yield from super()._read(file_path)
        if self.skipped:
            logger.warning("%s: skipped %d %s", file_path, self.skipped, self.skip_reason)

    def check_relations(self, relations: Iterable[Optional[str]], where: str) -> None:
        if self.relation_labels is None:
            return
        for relation in relations:
            if relation is not None and relation not in self.relation_labels:
                raise ValueError(
                    f"{where}: unknown relation label {relation!r} (not in the relation schema)"
                )
