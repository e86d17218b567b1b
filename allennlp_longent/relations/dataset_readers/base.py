"""What the relation readers share: an optional closed set of relation labels and a count of the
records skipped in a pass, logged at its end."""

import logging
from typing import Iterable, List, Optional

from allennlp_longent.modules.entity_fields import EntityRecordReader

logger = logging.getLogger(__name__)


class RelationRecordReader(EntityRecordReader):
    """``relation_labels``: when given, a relation outside it is an error naming the record."""

    skip_reason = "records"

    def __init__(self, relation_labels: Optional[List[str]] = None, **kwargs) -> None:
        super().__init__(**kwargs)
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
                raise ValueError(f"{where}: unknown relation label {relation!r}")
