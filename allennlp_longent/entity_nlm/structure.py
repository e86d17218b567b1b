"""Coreference structure of a document as the per-token latent variables R, E, L of EntityNLM.

Ji et al. (2017), §2: at token t, R_t says whether the token is part of an entity mention, E_t which
entity (numbered in order of first mention, so a new entity always gets the next free number) and
L_t the number of tokens of the mention that remain, the current one included (L_t = 1 outside
mentions). These helpers turn mention spans into the tensors the model reads and check them.
"""

import logging
from dataclasses import dataclass
from typing import Dict, Hashable, List, Optional, Sequence, Tuple

logger = logging.getLogger(__name__)

NO_ENTITY = -1


class StructureError(ValueError):
    """A coreference structure the model cannot represent; the message names file/line or field."""


@dataclass(frozen=True)
class Mention:
    """An inclusive token span ``[start, end]`` of cluster ``cluster``; ``line`` locates it."""

    start: int
    end: int
    cluster: Hashable
    line: Optional[int] = None

    @property
    def length(self) -> int:
        return self.end - self.start + 1


def keep_outermost(mentions: Sequence[Mention]) -> List[Mention]:
    """Drops every mention that overlaps an earlier or longer one (paper §4: outermost kept).

    Sorted by start and then by decreasing length, a nested mention always comes after the mention
    containing it; of two crossing spans the one starting first is kept.
    """
    kept: List[Mention] = []
    for mention in sorted(mentions, key=lambda m: (m.start, -m.length)):
        if kept and mention.start <= kept[-1].end:
            continue
        kept.append(mention)
    return kept


def drop_singletons(mentions: Sequence[Mention]) -> List[Mention]:
    """Keeps only mentions of clusters mentioned at least twice."""
    counts: Dict[Hashable, int] = {}
    for mention in mentions:
        counts[mention.cluster] = counts.get(mention.cluster, 0) + 1
    return [m for m in mentions if counts[m.cluster] > 1]


def build_structure(
    num_tokens: int,
    mentions: Sequence[Mention],
    max_mention_length: int,
    source: str,
    singletons: bool = False,
    long_mentions: str = "error",
) -> Tuple[List[int], List[int], Dict[str, int]]:
    """Entity ids and remaining lengths per token from mention spans.

    Nested mentions keep the outermost; mentions longer than ``max_mention_length`` raise a
    ``StructureError`` naming ``source`` and the mention's line (``long_mentions="error"``) or are
    dropped and counted (``"drop"``); singleton clusters are dropped unless ``singletons``. Clusters
    are renumbered 0, 1, ... in order of first mention, whatever their labels in the file.
    """
    if long_mentions not in ("error", "drop"):
        raise ValueError(f"long_mentions must be 'error' or 'drop', not {long_mentions!r}")
    stats = {"nested_dropped": 0, "long_dropped": 0, "singletons_dropped": 0}
    for mention in mentions:
        if not 0 <= mention.start <= mention.end < num_tokens:
            raise StructureError(
                f"{_where(source, mention)}: mention span [{mention.start}, {mention.end}] is "
                f"outside the document of {num_tokens} tokens"
            )
    kept = keep_outermost(mentions)
    stats["nested_dropped"] = len(mentions) - len(kept)
    short = []
    for mention in kept:
        if mention.length <= max_mention_length:
            short.append(mention)
        elif long_mentions == "error":
            raise StructureError(
                f"{_where(source, mention)}: mention of {mention.length} tokens is longer than "
                f"max_mention_length={max_mention_length} (EntityNLM's L_t, paper eq. 5); pass "
                f"long_mentions='drop' to skip such mentions"
            )
    stats["long_dropped"] = len(kept) - len(short)
    final = short if singletons else drop_singletons(short)
    stats["singletons_dropped"] = len(short) - len(final)

    entity_ids = [NO_ENTITY] * num_tokens
    lengths = [1] * num_tokens
    numbering: Dict[Hashable, int] = {}
    for mention in final:
        entity = numbering.setdefault(mention.cluster, len(numbering))
        for offset, position in enumerate(range(mention.start, mention.end + 1)):
            entity_ids[position] = entity
            lengths[position] = mention.length - offset
    return entity_ids, lengths, stats


def check_structure(
    entity_ids: Sequence[int], lengths: Sequence[int], max_mention_length: int, where: str
) -> None:
    """Raises ``StructureError`` unless ids are in first-mention order and lengths are consistent.

    ``entity_ids``/``lengths`` cover the unpadded tokens of one document; ``where`` names it.
    """
    if len(entity_ids) == 0:
        raise StructureError(f"{where}: empty document (no tokens)")
    if len(entity_ids) != len(lengths):
        raise StructureError(f"{where}: {len(entity_ids)} entity ids but {len(lengths)} lengths")
    num_entities = 0
    current, remaining = NO_ENTITY, 1
    for t, (entity, length) in enumerate(zip(entity_ids, lengths)):
        if remaining > 1:
            if entity != current or length != remaining - 1:
                raise StructureError(
                    f"{where}, token {t}: inside a mention of entity {current} with "
                    f"{remaining - 1} tokens left, found entity {entity} with L={length}"
                )
        elif entity == NO_ENTITY:
            if length != 1:
                raise StructureError(f"{where}, token {t}: L={length} outside a mention, must be 1")
        else:
            if entity > num_entities or entity < 0:
                raise StructureError(
                    f"{where}, token {t}: entity index {entity} is out of order; only "
                    f"{num_entities} entities were mentioned before, so a new entity must be "
                    f"numbered {num_entities}"
                )
            if not 1 <= length <= max_mention_length:
                raise StructureError(
                    f"{where}, token {t}: mention length {length} outside 1..{max_mention_length}"
                )
            if length > len(entity_ids) - t:
                raise StructureError(f"{where}, token {t}: mention of {length} runs past the end")
            num_entities = max(num_entities, entity + 1)
        current, remaining = entity, length


def clusters_to_mentions(clusters: Sequence[Sequence[Sequence[int]]]) -> List[Mention]:
    """AllenNLP-style clusters (lists of inclusive ``[start, end]`` spans) as mentions."""
    mentions = []
    for index, cluster in enumerate(clusters):
        for span in cluster:
            if len(span) != 2:
                raise StructureError(f"clusters[{index}]: span {span!r} is not [start, end]")
            mentions.append(Mention(int(span[0]), int(span[1]), index))
    return mentions


def structure_to_clusters(
    entity_ids: Sequence[int], lengths: Sequence[int]
) -> List[List[List[int]]]:
    """Inverse of ``build_structure``: clusters of inclusive spans, in entity order."""
    clusters: List[List[List[int]]] = []
    t = 0
    while t < len(entity_ids):
        entity = entity_ids[t]
        if entity == NO_ENTITY:
            t += 1
            continue
        while len(clusters) <= entity:
            clusters.append([])
        clusters[entity].append([t, t + lengths[t] - 1])
        t += lengths[t]
    return clusters


def _where(source: str, mention: Mention) -> str:
    return f"{source}:{mention.line}" if mention.line is not None else source
