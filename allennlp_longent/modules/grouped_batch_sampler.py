"""Batches that keep twin instances together: the ``"grouped"`` batch sampler.

Counterfactually augmented data (Kaushik et al. 2020) pairs each example with a minimally edited
twin whose label turns on what the edit changed. Trained on both, a model must read what the
edit touches; but when the twins meet in different batches, one pass of stochastic gradient can
drift towards whichever lesson its recent batches carried. Here every batch holds whole groups of
twins, so each step sees both lessons at once.

The group of an instance is its metadata fields ``key_fields`` (default ``["mention_id"]``) with
every match of the regular expression ``remove`` deleted: with ``key_fields=["world",
"mention"]`` and ``remove="shared_"``, a mention of the linking world ``docred_shared_0007`` and
its twin of ``docred_0007`` (the same words in the same context) share a group. Only instances
whose first key field matches the regular expression ``only`` are grouped (``"^docred_"``: not
two mentions of a generated world that happen to read alike); the others, and instances without
a twin, are groups of one. Groups are shuffled, then packed into batches of ``batch_size``
instances, a group never split.
"""

import random
import re
from typing import Dict, Iterable, List, Optional, Sequence, Union

from allennlp.common.checks import ConfigurationError
from allennlp.data.instance import Instance
from allennlp.data.samplers import BatchSampler


@BatchSampler.register("grouped")
class GroupedBatchSampler(BatchSampler):
    """Shuffled batches of whole groups (module docstring); ``seed`` fixes the shuffle apart from
    the trainer's global seed, ``None`` uses Python's global random state as AllenNLP's samplers do.
    """

    def __init__(self, batch_size: int, remove: str, key_fields: Sequence[str] = ("mention_id",),
                 only: str = "", shuffle: bool = True, seed: Optional[int] = None) -> None:
        if batch_size < 1:
            raise ConfigurationError(
                f"grouped batch sampler: batch_size must be >= 1, got {batch_size}")
        self.batch_size = batch_size
        self.remove = re.compile(remove)
        self.key_fields = list(key_fields)
        self.only = re.compile(only)
        self.shuffle = shuffle
        self._random = random.Random(seed) if seed is not None else random

    def groups(self, instances: Sequence[Instance]) -> List[List[int]]:
        """Instance indices per group, in order of each group's first instance."""
        groups: Dict[Union[str, int], List[int]] = {}  # ungrouped: its own index as the key
        for index, instance in enumerate(instances):
            field = instance.fields.get("metadata")
            metadata = getattr(field, "metadata", None) or {}
            missing = [k for k in self.key_fields if k not in metadata]
            if missing:
                raise ConfigurationError(
                    f"grouped batch sampler: instance {index} has no metadata field "
                    f"{missing[0]!r} to group by")
            key: Union[str, int] = index
            if self.only.search(str(metadata[self.key_fields[0]])):
                key = "\t".join(self.remove.sub("", str(metadata[k])) for k in self.key_fields)
            groups.setdefault(key, []).append(index)
        large = [g for g in groups.values() if len(g) > self.batch_size]
        if large:
            raise ConfigurationError(
                f"grouped batch sampler: a group of {len(large[0])} instances (instance "
                f"{large[0][0]}) does not fit a batch of {self.batch_size}")
        return list(groups.values())

    def get_batch_indices(self, instances: Sequence[Instance]) -> Iterable[List[int]]:
        groups = self.groups(instances)
        if self.shuffle:
            self._random.shuffle(groups)
        batch: List[int] = []
        for group in groups:
            if len(batch) + len(group) > self.batch_size:
                yield batch
                batch = []
            batch.extend(group)
        if batch:
            yield batch

    def get_num_batches(self, instances: Sequence[Instance]) -> int:
        """The count of the next :meth:`get_batch_indices`: the random state is restored after."""
        state = self._random.getstate()
        try:
            return sum(1 for _ in self.get_batch_indices(instances))
        finally:
            self._random.setstate(state)

    def get_batch_size(self) -> Optional[int]:
        return self.batch_size
