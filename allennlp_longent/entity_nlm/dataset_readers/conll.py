"""CoNLL-2012 ``gold_conll`` reader for EntityNLM (Ji et al. 2017, §4 data preparation)."""

import logging
import re
from pathlib import Path
from typing import Dict, Iterable, Iterator, List

from allennlp.common.file_utils import cached_path
from allennlp.data import DatasetReader, Instance

from allennlp_longent.entity_nlm.dataset_readers.base import EntityNlmReader
from allennlp_longent.entity_nlm.structure import Mention, StructureError

logger = logging.getLogger(__name__)

_BEGIN = re.compile(r"#begin document \((.*)\); part (\d+)")
_PIECE = re.compile(r"^(\()?(\d+)(\))?$")


@DatasetReader.register("entity_nlm_conll")
class EntityNlmConllReader(EntityNlmReader):
    """One instance per document part; the coreference column is the last one.

    As in the paper, nested mentions keep the outermost and clusters left with a single mention are
    dropped (``singletons=False``); cluster numbers are renumbered in order of first mention.
    ``file_path`` is a file or a folder whose ``*gold_conll`` files are read in sorted order.
    """

    def __init__(self, singletons: bool = False, **kwargs) -> None:
        super().__init__(singletons=singletons, **kwargs)

    def _read(self, file_path: str) -> Iterable[Instance]:
        path = Path(cached_path(file_path))
        files = sorted(path.rglob("*gold_conll")) if path.is_dir() else [path]
        if not files:
            raise FileNotFoundError(f"{file_path}: no *gold_conll files")
        for file in files:
            yield from self.documents_to_instances(parse_gold_conll(file), str(file))


def parse_gold_conll(path: Path) -> Iterator[Dict]:
    """Yields ``{words, mentions, source, lines, document, sentences}`` per document part, with
    1-based line numbers; a blank line ends a sentence."""
    document = None
    open_mentions: Dict[int, List[tuple]] = {}
    sentence, blank = 0, False
    with open(path, encoding="utf-8") as handle:
        for number, raw in enumerate(handle, start=1):
            line = raw.strip()
            where = f"{path}:{number}"
            begin = _BEGIN.match(line)
            if begin:
                if document is not None:
                    raise StructureError(f"{where}: #begin document before #end document")
                name = f"{begin.group(1)} part {int(begin.group(2)):03d}"
                document = {"words": [], "mentions": [], "source": str(path), "lines": [],
                            "document": name, "sentences": []}
                sentence, blank = 0, False
                open_mentions = {}
            elif line.startswith("#end document"):
                if document is None:
                    raise StructureError(f"{where}: #end document without #begin document")
                unclosed = [(c, ln) for c, starts in open_mentions.items() for _, ln in starts]
                if unclosed:
                    cluster, opened = unclosed[0]
                    raise StructureError(f"{path}:{opened}: cluster {cluster} never closed")
                yield document
                document = None
            elif not line:
                blank = True
            else:
                if document is None:
                    raise StructureError(f"{where}: token line outside a document")
                if blank and document["words"]:
                    sentence += 1
                blank = False
                document["sentences"].append(sentence)
                columns = line.split()
                if len(columns) < 12:
                    raise StructureError(f"{where}: {len(columns)} columns, gold_conll needs >= 12")
                position = len(document["words"])
                document["words"].append(columns[3])
                document["lines"].append(number)
                _parse_coref(columns[-1], position, number, where, open_mentions,
                             document["mentions"])
    if document is not None:
        raise StructureError(f"{path}: file ends inside document {document['document']}")


def _parse_coref(
    column: str, position: int, number: int, where: str, open_mentions: Dict[int, List[tuple]],
    mentions: List[Mention],
) -> None:
    if column == "-":
        return
    for piece in column.split("|"):
        match = _PIECE.match(piece)
        if not match or not (match.group(1) or match.group(3)):
            raise StructureError(f"{where}: cannot parse coreference field {piece!r}")
        cluster = int(match.group(2))
        if match.group(1):
            open_mentions.setdefault(cluster, []).append((position, number))
        if match.group(3):
            starts = open_mentions.get(cluster)
            if not starts:
                raise StructureError(f"{where}: cluster {cluster} closed but never opened")
            start, line = starts.pop()
            if not starts:
                del open_mentions[cluster]
            mentions.append(Mention(start, position, cluster, line))
