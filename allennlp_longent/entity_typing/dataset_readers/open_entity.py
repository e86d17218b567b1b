"""Open Entity reader (Choi et al. 2018) in the ERNIE/LUKE JSON layout.

Each record is ``{"sent", "start", "end", "labels"}`` with character offsets of the target mention
in the whitespace-tokenized ``sent``; the offsets must fall on word boundaries.
"""

from typing import Any, Dict, List

from allennlp.data import DatasetReader, Instance

from allennlp_longent.entity_typing.dataset_readers.base import EntityTypingReader


def char_span_to_words(sentence: str, start: int, end: int, where: str):
    """Whitespace words of ``sentence`` and the word span [first, last) of the characters
    [start, end)."""
    words, first, last, position = [], None, None, 0
    for word in sentence.split():
        begin = sentence.index(word, position)
        position = begin + len(word)
        if begin == start:
            first = len(words)
        if position == end:
            last = len(words) + 1
        words.append(word)
    text = sentence[start:end] if 0 <= start < end <= len(sentence) else None
    if first is None or last is None or first >= last:
        raise ValueError(f"{where}: characters [{start}, {end}) ({text!r}) are not a word span")
    return words, (first, last)


@DatasetReader.register("open_entity")
class OpenEntityReader(EntityTypingReader):
    def record_to_instances(self, record: Dict[str, Any], where: str) -> List[Instance]:
        for key in ("sent", "start", "end"):
            if key not in record:
                raise ValueError(f"{where}: missing field {key!r}")
        words, span = char_span_to_words(record["sent"], record["start"], record["end"], where)
        labels = [record["labels"]] if "labels" in record else None
        instance = self.make_instance(words, [[span]], labels, where)
        return [instance] if instance is not None else []
