"""InScript (script-parsing conversion) reader for EntityNLM entity prediction (paper §5.3)."""

import logging
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Optional

from allennlp.common.file_utils import cached_path
from allennlp.data import DatasetReader, Instance

from allennlp_longent.entity_nlm.dataset_readers.base import EntityNlmReader
from allennlp_longent.entity_nlm.structure import Mention, StructureError

logger = logging.getLogger(__name__)

END_OF_STORY = "<end_of_story>"
WORD_START = "\u2581"


@DatasetReader.register("entity_nlm_inscript")
class EntityNlmInscriptReader(EntityNlmReader):
    """One instance per story; ``file_path`` is a file or a folder of ``*_inscript`` files.

    Lines hold a sentencepiece piece and five label columns, the last being the in-story
    coreference index (``none`` off mentions). Pieces are joined back into words (``▁`` starts a
    word; continuation pieces must carry ``X`` labels); a word takes the index of its first piece,
    and a word whose first piece is labelled ``X`` (punctuation, a few numbers) is no mention.
    Consecutive words with the same index form one mention. Indices are renumbered in order of first
    mention. Singletons are kept by default (``singletons=True``): every mention is predicted.
    Sentences end after ".", "!" or "?" (the files mark no sentence boundary otherwise).
    """

    def __init__(self, singletons: bool = True, **kwargs) -> None:
        super().__init__(singletons=singletons, **kwargs)

    def _read(self, file_path: str) -> Iterable[Instance]:
        path = Path(cached_path(file_path))
        files = sorted(p for p in path.iterdir() if p.is_file()) if path.is_dir() else [path]
        if not files:
            raise FileNotFoundError(f"{file_path}: no files")
        for file in files:
            yield from self.documents_to_instances(parse_inscript(file), str(file))


def parse_inscript(path: Path) -> Iterator[Dict]:
    """Yields ``{words, mentions, source, lines}`` per story, with 1-based line numbers."""
    story = _new_story(path, 1)
    labels: List[Optional[str]] = []
    with open(path, encoding="utf-8") as handle:
        for number, raw in enumerate(handle, start=1):
            line = raw.rstrip("\n").rstrip(" ")
            where = f"{path}:{number}"
            if line == END_OF_STORY:
                story["mentions"] = _mentions(labels, story["lines"])
                yield story
                story, labels = _new_story(path, number + 1), []
                continue
            if not line:
                raise StructureError(f"{where}: empty line inside a story")
            columns = line.split(" ")
            if len(columns) != 6:
                raise StructureError(f"{where}: expected 6 space-separated columns, found "
                                     f"{len(columns)}")
            piece, coref = columns[0], columns[5]
            if piece.startswith(WORD_START):
                story["words"].append(piece[len(WORD_START):])
                story["lines"].append(number)
                if coref not in ("none", "X") and not coref.isdigit():
                    raise StructureError(f"{where}: coreference index {coref!r} is not a number, "
                                         f"'none' or 'X'")
                labels.append(coref if coref.isdigit() else None)
            else:
                if not story["words"]:
                    raise StructureError(f"{where}: continuation piece {piece!r} starts a story")
                if coref != "X":
                    raise StructureError(f"{where}: continuation piece {piece!r} has coreference "
                                         f"index {coref!r}; only a word's first piece may")
                story["words"][-1] += piece
    if story["words"]:
        raise StructureError(f"{path}: file ends without {END_OF_STORY} after line "
                             f"{story['lines'][-1]}")


def _new_story(path: Path, line: int) -> Dict:
    return {"words": [], "mentions": [], "source": f"{path}:{line}", "lines": []}


def _mentions(labels: List[Optional[str]], lines: List[int]) -> List[Mention]:
    mentions: List[Mention] = []
    start = 0
    for t in range(1, len(labels) + 1):
        if t == len(labels) or labels[t] != labels[start]:
            if labels[start] is not None:
                mentions.append(Mention(start, t - 1, labels[start], lines[start]))
            start = t
    return mentions
