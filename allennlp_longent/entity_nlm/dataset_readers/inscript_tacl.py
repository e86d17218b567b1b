"""Reader for the InScript release of Modi et al. (2017) (``<scenario>/<doc>.txt.drs``), for the
referent-prediction task of Ji et al. (2017, §5.3) on the paper's own targets."""

import json
import logging
from collections import Counter
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Set, Tuple

from allennlp.common.file_utils import cached_path
from allennlp.data import DatasetReader, Instance

from allennlp_longent.entity_nlm.dataset_readers.base import EntityNlmReader
from allennlp_longent.entity_nlm.structure import Mention, StructureError

logger = logging.getLogger(__name__)

SUFFIX = ".txt.drs"
NO_LABEL = "O"
# Per-token code of the human-majority outcome at a target (0: no target or no guesses).
HUMAN_RIGHT, HUMAN_WRONG, HUMAN_TIED = 1, 2, 3
NEW = "<new>"

Targets = Dict[str, Dict[str, List[str]]]  # "<sentence>_<token>" -> {gold label: [guesses]}


@DatasetReader.register("inscript_tacl")
class InscriptTaclReader(EntityNlmReader):
    """One instance per story of the ``.drs`` column format (see the data's README).

    ``file_path`` is a ``.txt.drs`` file or a folder searched recursively for them. Words are
    lower-cased (the vocabulary of the config caps rare words to UNK). A mention is a run of tokens
    with one label; the whole label (``P1_bather``, ``P2_NPart_showers``) is the entity,
    participants and non-participants alike, single-mention entities included. Sentences come
    from the ``#id`` lines.

    With ``targets_file`` (``{doc: {"<sentence>_<token>": {gold label: [guesses]}}}``, the shape of
    Modi et al.'s ``humanPredictions.json``) each instance has ``targets`` (1 at the start of each
    mention holding a target) and ``human_majority`` (the outcome of the majority of the human
    guesses there, ``HUMAN_*``); the model's ``entity_acc`` is then counted at those mentions only.
    """

    def __init__(self, targets_file: Optional[str] = None, lowercase: bool = True,
                 singletons: bool = True, **kwargs) -> None:
        super().__init__(lowercase=lowercase, singletons=singletons, **kwargs)
        self._targets_file = targets_file
        self._targets: Optional[Dict[str, Targets]] = None
        if targets_file is not None:
            with open(cached_path(targets_file), encoding="utf-8") as handle:
                self._targets = json.load(handle)
            if not isinstance(self._targets, dict):
                raise StructureError(f"{targets_file}: expected a JSON object {{doc: targets}}")

    def _read(self, file_path: str) -> Iterable[Instance]:
        path = Path(cached_path(file_path))
        files = sorted(path.rglob(f"*{SUFFIX}")) if path.is_dir() else [path]
        if not files:
            raise FileNotFoundError(f"{file_path}: no *{SUFFIX} files")
        matched = 0
        for file in files:
            story = parse_drs(file)
            document = {k: story[k] for k in ("words", "mentions", "source", "lines", "document",
                                              "sentences")}
            if self._targets is not None:
                targets = self._targets.get(story["document"])
                if targets is not None:
                    matched += 1
                    document.update(attach_targets(story, targets, self._targets_file))
            yield from self.documents_to_instances([document], str(file))
        if self._targets is not None:
            if not matched:
                raise StructureError(f"{self._targets_file}: no document of {file_path} has "
                                     f"targets (documents are named like {files[0].name[:-8]!r})")
            if matched < len(self._targets):
                logger.warning("%s: %d of its %d documents were not in %s", self._targets_file,
                               len(self._targets) - matched, len(self._targets), file_path)


def parse_drs(path: Path) -> Dict:
    """``{words, mentions, source, lines, document, sentences, labels, positions}`` of one story:
    ``labels`` holds each token's label (``None`` for ``O``), ``positions`` maps
    ``(sentence, token)`` of column 1 to the token's index; lines are 1-based."""
    story: Dict = {"words": [], "source": str(path), "lines": [], "sentences": [],
                   "document": path.name[: -len(SUFFIX)] if path.name.endswith(SUFFIX)
                   else path.stem, "labels": [], "positions": {}}
    sentence: Optional[int] = None
    with open(path, encoding="utf-8") as handle:
        for number, raw in enumerate(handle, start=1):
            line = raw.rstrip("\r\n")
            where = f"{path}:{number}"
            if not line.strip() or line.startswith("#text="):
                continue
            if line.startswith("#id="):
                sentence = _integer(line[4:], where, "sentence id")
                continue
            columns = line.split("\t")
            if len(columns) != 6:
                raise StructureError(f"{where}: expected 6 tab-separated columns, found "
                                     f"{len(columns)}")
            if sentence is None:
                raise StructureError(f"{where}: token line before the first #id line")
            token_id = _token_id(columns[0], sentence, where)
            if token_id in story["positions"]:
                raise StructureError(f"{where}: token id {columns[0]!r} repeats an earlier line")
            story["positions"][token_id] = len(story["words"])
            story["words"].append(columns[1])
            story["lines"].append(number)
            story["sentences"].append(sentence - 1)
            story["labels"].append(None if columns[5] == NO_LABEL else columns[5])
    story["mentions"] = label_runs(story["labels"], story["lines"])
    return story


def _integer(text: str, where: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise StructureError(f"{where}: {what} {text!r} is not an integer") from None


def _token_id(text: str, sentence: int, where: str) -> Tuple[int, int]:
    parts = text.split("-")
    if len(parts) != 2 or not all(part.isdigit() for part in parts):
        raise StructureError(f"{where}: token id {text!r} is not <sentence>-<token> (integers)")
    ids = (int(parts[0]), int(parts[1]))
    if ids[0] != sentence:
        raise StructureError(f"{where}: token id {text!r} is not in sentence #id={sentence}")
    return ids


def label_runs(
    labels: List[Optional[str]], lines: List[int], breaks: Set[int] = frozenset()
) -> List[Mention]:
    """One mention per run of consecutive tokens with the same label; a token in ``breaks`` (a
    target) starts a mention of its own."""
    mentions: List[Mention] = []
    start = 0
    for t in range(1, len(labels) + 1):
        if t == len(labels) or labels[t] != labels[start] or t in breaks:
            if labels[start] is not None:
                mentions.append(Mention(start, t - 1, labels[start], lines[start]))
            start = t
    return mentions


def attach_targets(story: Dict, targets: Targets, source: str) -> Dict:
    """``mentions`` and per-token ``targets`` and ``human_majority`` lists of one story.

    A target must sit on a labelled token whose label is the target's gold label. A target token
    starts a mention even inside a run of its label (the release marks adjacent mentions of one
    entity, "a sign that", with the same label). A guess (or the gold label) is "new" when its label
    is on no earlier token; the majority of the guesses is right when it equals the gold this way,
    and a tie for the most guesses counts as wrong (``HUMAN_TIED``).
    """
    document, labels = story["document"], story["labels"]
    flags, human = [0] * len(labels), [0] * len(labels)
    for key, gold_guesses in targets.items():
        where = f"{source}: document {document}, target {key!r}"
        parts = key.split("_")
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            raise StructureError(f"{where}: key is not <sentence>_<token>")
        token = story["positions"].get((int(parts[0]), int(parts[1])))
        if token is None or labels[token] is None:
            raise StructureError(f"{where}: not a labelled token of {story['source']}")
        if not isinstance(gold_guesses, dict) or len(gold_guesses) != 1:
            raise StructureError(f"{where}: expected one {{gold label: [guesses]}}")
        [(gold, guesses)] = gold_guesses.items()
        if gold != labels[token]:
            raise StructureError(f"{where}: gold label {gold!r} but the token is labelled "
                                 f"{labels[token]!r} in {story['source']}")
        flags[token] = 1
        if guesses:
            human[token] = human_outcome(gold, guesses, set(filter(None, labels[:token])))
    breaks = {t for t, flag in enumerate(flags) if flag}
    return {"mentions": label_runs(labels, story["lines"], breaks), "targets": flags,
            "human_majority": human}


def human_outcome(gold: str, guesses: List[str], earlier: Set[str]) -> int:
    """``HUMAN_RIGHT``/``WRONG``/``TIED`` of the majority of ``guesses``, each guessed label
    not in ``earlier`` (the labels before the target) counted as a new entity."""
    votes = Counter(guess if guess in earlier else NEW for guess in guesses).most_common()
    if len(votes) > 1 and votes[0][1] == votes[1][1]:
        return HUMAN_TIED
    return HUMAN_RIGHT if votes[0][0] == (gold if gold in earlier else NEW) else HUMAN_WRONG
