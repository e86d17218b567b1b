"""Zero-shot entity linking data (Logeswaran et al. 2019) as cross-encoder candidate lists.

Each instance is one mention with its top-k candidates. In the ``pairs`` layout (cross-encoder)
each candidate is the pair
``[CLS] left [Ms] mention [Me] right [SEP] title [ENT] description [SEP]`` (Yao et al. 2020,
§4), with the word-piece budget split equally between the two sides; a side that needs less
gives the rest to the other. In the ``separate`` layout (bi-encoder; Wu et al. 2020,
§3.1) the mention ``[CLS] left [Ms] mention [Me] right [SEP]`` and each entity
``[CLS] title [ENT] description [SEP]`` are sequences of their own.
"""

import logging
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Tuple, Union

import torch
from allennlp.data import DatasetReader, Instance, Token
from allennlp.data.fields import Field, ListField, MetadataField, TensorField, TextField
from allennlp.data.token_indexers import PretrainedTransformerIndexer, TokenIndexer
from allennlp.data.tokenizers import PretrainedTransformerTokenizer, Tokenizer

from allennlp_longent.linking.documents import Document, WorldDocuments, read_json_lines, require
from allennlp_longent.paths import missing_file_message

logger = logging.getLogger(__name__)

MISSING_GOLD_POLICIES = ("keep", "drop", "insert")
LAYOUTS = ("pairs", "separate")
MENTION_FIELDS = ("mention_id", "context_document_id", "corpus", "start_index", "end_index")


class DocumentPieces:
    """Word pieces of a whitespace-tokenized text, with the first piece of every word."""

    def __init__(self, ids: List[int], word_starts: List[int]) -> None:
        self.ids = ids
        self.word_starts = word_starts  # len(words) + 1 entries; the last is len(ids)

    def span(self, start_word: int, end_word: int) -> Tuple[int, int]:
        """Piece range ``[begin, end)`` of the inclusive word range."""
        return self.word_starts[start_word], self.word_starts[end_word + 1]


@DatasetReader.register("zeshel")
class ZeshelReader(DatasetReader):
    """Reads ``<root>/mentions/<split>.json`` with ``<root>/documents/`` and
    ``<root>/tfidf_candidates/<split>.json`` (or the directories given).

    Parameters
    ----------
    tokenizer : the transformer tokenizer of the ranker (``max_length`` is the pair length).
    max_length : word pieces per (mention, candidate) pair, special tokens included.
    top_k : candidates kept per mention, in the candidate file's order.
    missing_gold : a mention whose gold entity is not among its top-k candidates is kept with
        label -1 (``keep``, for honest unnormalized evaluation), skipped (``drop``), or gets the
        gold appended (``insert``; in place of the last candidate when there are ``top_k``); the
        count is logged after each pass.
    layout : ``pairs`` (field ``pairs``: one sequence per candidate) or ``separate`` (fields
        ``mention``, ``candidates`` and, with a gold, ``entity``: the gold entity's sequence).
        ``max_length`` then bounds each sequence and ``mention_max_length`` (default
        ``max_length``) the mention's; markers may be ``None`` (left out), which suits a sentence
        encoder used untrained.
    context_share : in the ``pairs`` layout, the share of the budget the context side gets
        when both sides need more than theirs (0.5: equal halves); a side needing less gives the
        rest to the other.
    match_ngram : in the ``pairs`` layout, replace the segment type ids by match flags: type 1
        for the word pieces inside an n-gram of pieces found on the other side too
        (:func:`shared_ngram_flags`), type 0 for the rest; the transformer's second type
        embedding then marks what context and description share, such as a quoted fact.
    """

    def __init__(
        self,
        tokenizer: Tokenizer,
        token_indexers: Optional[Dict[str, TokenIndexer]] = None,
        max_length: int = 512,
        top_k: int = 64,
        missing_gold: str = "keep",
        mention_start_marker: Optional[str] = "[unused0]",
        mention_end_marker: Optional[str] = "[unused1]",
        title_marker: Optional[str] = "[unused2]",
        layout: str = "pairs",
        mention_max_length: Optional[int] = None,
        documents_dir: Optional[str] = None,
        candidates_dir: Optional[str] = None,
        context_share: float = 0.5,
        match_ngram: Optional[int] = None,
        **kwargs,
    ) -> None:
        super().__init__(
            manual_distributed_sharding=True, manual_multiprocess_sharding=True, **kwargs
        )
        if missing_gold not in MISSING_GOLD_POLICIES:
            raise ValueError(
                f"missing_gold must be one of {MISSING_GOLD_POLICIES}: {missing_gold!r}"
            )
        if layout not in LAYOUTS:
            raise ValueError(f"layout must be one of {LAYOUTS}: {layout!r}")
        if top_k < 1:
            raise ValueError(f"top_k must be positive, got {top_k}")
        if not 0.0 < context_share < 1.0:
            raise ValueError(f"context_share must lie strictly between 0 and 1: {context_share}")
        self.context_share = context_share
        if match_ngram is not None and (match_ngram < 1 or layout != "pairs"):
            raise ValueError(f"match_ngram needs the pairs layout and n >= 1: {match_ngram}")
        self.match_ngram = match_ngram
        if not isinstance(tokenizer, PretrainedTransformerTokenizer):
            raise ValueError("the zeshel reader needs a pretrained-transformer tokenizer")
        self._tokenizer = tokenizer
        self._hf = tokenizer.tokenizer
        self._token_indexers = token_indexers or {
            "tokens": PretrainedTransformerIndexer(tokenizer._model_name)
        }
        self.max_length = max_length
        self.top_k = top_k
        self.missing_gold = missing_gold
        self.layout = layout
        self._markers = [
            self._single_piece(marker, name)
            for marker, name in (
                (mention_start_marker, "mention_start_marker"),
                (mention_end_marker, "mention_end_marker"),
                (title_marker, "title_marker"),
            )
        ]
        if layout == "pairs" and None in self._markers:
            raise ValueError("the pairs layout needs all three markers")
        if layout == "pairs":
            special = tokenizer.num_special_tokens_for_pair()
        else:
            special = tokenizer.num_special_tokens_for_sequence()
        self._budget = max_length - special
        self._mention_budget = (mention_max_length or max_length) - special
        # Context side: two markers and one mention piece; candidate side: the title marker.
        needed = special + (3 + 1 if layout == "pairs" else 3)
        if min(max_length, mention_max_length or max_length) < needed:
            raise ValueError(
                f"max_length={max_length} is too small: a pair needs at least {needed} word pieces "
                f"({special} special tokens, mention markers, a mention piece, the title marker)"
            )
        self.documents_dir = documents_dir
        self.candidates_dir = candidates_dir
        self._pieces: Dict[Tuple[str, str], DocumentPieces] = {}

    def _single_piece(self, marker: Optional[str], name: str) -> Optional[int]:
        if marker is None:
            return None
        ids = self._hf.convert_tokens_to_ids([marker])
        if len(ids) != 1 or ids[0] is None or ids[0] == self._hf.unk_token_id:
            raise ValueError(f"{name}={marker!r} is not a single token of the tokenizer vocabulary")
        return ids[0]

    def pieces(self, key: str, text: str) -> DocumentPieces:
        """Word pieces of the whitespace words of ``text``, computed once per (``key``, text)."""
        if (key, text) not in self._pieces:
            self._pieces[(key, text)] = self.tokenize_words(text.split())
        return self._pieces[(key, text)]

    def tokenize_words(self, words: List[str]) -> DocumentPieces:
        if not words:
            return DocumentPieces([], [0])
        encoding = self._hf(
            words, is_split_into_words=True, add_special_tokens=False, verbose=False
        )
        counts = [0] * len(words)
        for word_id in encoding.word_ids():
            counts[word_id] += 1
        starts = [0]
        for count in counts:
            starts.append(starts[-1] + count)
        return DocumentPieces(list(encoding["input_ids"]), starts)

    # ------------------------------------------------------------------ reading

    def _read(self, file_path: str) -> Iterable[Instance]:
        mentions_path = Path(file_path)
        if not mentions_path.is_file():  # e.g. a wrong LONGENT_ZESHEL: name the missing folder
            raise FileNotFoundError(missing_file_message(mentions_path, "mention file"))
        root = mentions_path.parent.parent
        documents = WorldDocuments(self.documents_dir or root / "documents")
        candidates_path = (
            Path(self.candidates_dir or root / "tfidf_candidates") / mentions_path.name
        )
        candidates = self._read_candidates(candidates_path, mentions_path)
        counts = {"mentions": 0, "gold_outside": 0}
        for line_number, mention in self.shard_iterable(read_json_lines(mentions_path)):
            where = f"{mentions_path}:{line_number} (mention {mention.get('mention_id')!r})"
            instance = self._mention_instance(mention, where, documents, candidates, counts)
            if instance is not None:
                yield instance
        action = {"keep": "kept with label -1", "drop": "dropped", "insert": "given the gold"}
        logger.info(
            "%s: %d of %d mentions had the gold entity outside the top-%d candidates (%s)",
            mentions_path,
            counts["gold_outside"],
            counts["mentions"],
            self.top_k,
            action[self.missing_gold],
        )

    def _read_candidates(self, path: Path, mentions_path: Path) -> Dict[str, List[str]]:
        if not path.is_file():
            raise FileNotFoundError(f"candidate file for {mentions_path} not found: {path}")
        mention_ids = {record.get("mention_id") for _, record in read_json_lines(mentions_path)}
        candidates = {}
        for line_number, record in read_json_lines(path):
            where = f"{path}:{line_number}"
            require(record, ("mention_id", "tfidf_candidates"), where)
            if record["mention_id"] not in mention_ids:
                raise ValueError(
                    f"{where}: candidates for unknown mention {record['mention_id']!r} "
                    f"(not in {mentions_path})"
                )
            candidates[record["mention_id"]] = list(record["tfidf_candidates"])
        return candidates

    def _mention_instance(
        self,
        mention: dict,
        where: str,
        documents: WorldDocuments,
        candidates: Dict[str, List[str]],
        counts: Dict[str, int],
    ) -> Optional[Instance]:
        require(mention, MENTION_FIELDS, where)
        try:
            world = documents.world(mention["corpus"])
        except (ValueError, FileNotFoundError) as error:  # name the mention, not just the world
            raise type(error)(f"{where}: {error}") from error
        context = world.get(mention["context_document_id"])
        if context is None:
            raise ValueError(
                f"{where}: context document {mention['context_document_id']!r} not in "
                f"{documents.path(mention['corpus'])}"
            )
        gold = mention.get("label_document_id")
        if gold is not None and gold not in world:
            raise ValueError(
                f"{where}: label document {gold!r} not in {documents.path(mention['corpus'])}"
            )
        if mention["mention_id"] not in candidates:
            raise ValueError(f"{where}: no candidate list for this mention")
        candidate_ids = candidates[mention["mention_id"]][: self.top_k]
        unknown = [doc_id for doc_id in candidate_ids if doc_id not in world]
        if unknown:
            raise ValueError(
                f"{where}: candidate(s) {unknown} not in {documents.path(mention['corpus'])}"
            )
        counts["mentions"] += 1
        if gold is not None and gold not in candidate_ids:
            counts["gold_outside"] += 1
            if self.missing_gold == "drop":
                return None
            if self.missing_gold == "insert":
                candidate_ids = candidate_ids[: self.top_k - 1] + [gold]
        try:
            return self.text_to_instance(
                context["text"],
                int(mention["start_index"]),
                int(mention["end_index"]),
                [world[doc_id] for doc_id in candidate_ids],
                gold_document_id=gold,
                world=mention["corpus"],
                mention_id=mention["mention_id"],
                context_key=context["document_id"],
                gold_document=world.get(gold) if gold is not None else None,
            )
        except ValueError as error:
            raise ValueError(f"{where}: {error}") from error

    # ------------------------------------------------------------------ instances

    def text_to_instance(  # type: ignore[override]
        self,
        context: Union[str, List[str]],
        mention_start: int,
        mention_end: int,
        candidates: List[Document],
        gold_document_id: Optional[str] = None,
        world: Optional[str] = None,
        mention_id: Optional[str] = None,
        context_key: Optional[str] = None,
        gold_document: Optional[Document] = None,
    ) -> Instance:
        """One mention with its candidates; ``context`` is whitespace-tokenized text or its words,
        and the mention's offsets are inclusive word offsets into it.

        Without ``gold_document_id`` (linking new text) the instance has no ``label``, so the
        model computes no loss and no metric.
        """
        context_words = context.split() if isinstance(context, str) else list(context)
        if not 0 <= mention_start <= mention_end < len(context_words):
            raise ValueError(
                f"mention offsets [{mention_start}, {mention_end}] out of range for a context "
                f"of {len(context_words)} words"
            )
        if not candidates:
            raise ValueError("a mention needs at least one candidate")
        if context_key is None:
            pieces = self.tokenize_words(context_words)
        else:
            pieces = self.pieces(context_key, " ".join(context_words))
        ids = [candidate["document_id"] for candidate in candidates]
        label = ids.index(gold_document_id) if gold_document_id in ids else -1
        if gold_document is None and gold_document_id in ids:
            gold_document = candidates[label]
        dlength = len(pieces.ids)
        if gold_document is not None:
            dlength += len(self.pieces(gold_document["document_id"], gold_document["text"]).ids)
        metadata = {
            "mention_id": mention_id,
            "world": world,
            "mention": " ".join(context_words[mention_start : mention_end + 1]),
            "candidate_ids": ids,
            "candidate_titles": [candidate["title"] for candidate in candidates],
            "gold_document_id": gold_document_id,
            "dlength": dlength if gold_document is not None else None,
        }
        fields: Dict[str, Field] = {"metadata": MetadataField(metadata)}
        if self.layout == "pairs":
            fields["pairs"] = ListField(
                [self._pair_field(pieces, mention_start, mention_end, c) for c in candidates]
            )
        else:
            fields["mention"] = self.mention_field(pieces, mention_start, mention_end)
            fields["candidates"] = ListField([self.entity_field(c) for c in candidates])
            if gold_document is not None:
                fields["entity"] = self.entity_field(gold_document)
        if gold_document_id is not None:
            fields["label"] = TensorField(torch.tensor(label, dtype=torch.long))
        return Instance(fields)

    def _entity_ids(self, document: Document) -> List[int]:
        """``title [ENT] description`` (the marker left out when it is ``None``)."""
        description = self.pieces(document["document_id"], document["text"]).ids
        title = self.pieces("title:" + document["document_id"], document["title"]).ids
        marker = [self._markers[2]] if self._markers[2] is not None else []
        return title + marker + description

    def _pair_field(
        self, pieces: DocumentPieces, start: int, end: int, candidate: Document
    ) -> TextField:
        context_ids, candidate_ids = self._split_budget(
            pieces, start, end, self._entity_ids(candidate)
        )
        return TextField(self._pair_tokens(context_ids, candidate_ids))

    def mention_field(self, pieces: DocumentPieces, start: int, end: int) -> TextField:
        """``[CLS] left [Ms] mention [Me] right [SEP]``, ``mention_max_length`` pieces at most."""
        window = self._context_window(pieces, start, end, self._mention_budget)
        return TextField(self._single_tokens(window))

    def text_field(self, text: str) -> TextField:
        """``[CLS] text [SEP]`` cut to ``max_length`` pieces (a sentence, a mention string)."""
        return TextField(self._single_tokens(self.tokenize_words(text.split()).ids[: self._budget]))

    def entity_field(self, document: Document) -> TextField:
        """``[CLS] title [ENT] description [SEP]`` cut to ``max_length`` pieces."""
        return TextField(self._single_tokens(self._entity_ids(document)[: self._budget]))

    def _split_budget(
        self, context: DocumentPieces, start: int, end: int, candidate: List[int]
    ) -> Tuple[List[int], List[int]]:
        """``context_share`` of the budget for the context (equal halves by default); a side
        needing less than its share gives the rest away."""
        context_needed = len(context.ids) + 2
        share = int(self._budget * self.context_share)
        if context_needed <= share:
            context_budget = context_needed
        elif len(candidate) <= self._budget - share:
            context_budget = self._budget - len(candidate)
        else:
            context_budget = share
        context_ids = self._context_window(context, start, end, context_budget)
        return context_ids, candidate[: self._budget - len(context_ids)]

    def _context_window(
        self, context: DocumentPieces, start: int, end: int, budget: int
    ) -> List[int]:
        """``left [Ms] mention [Me] right`` in ``budget`` pieces, centred on the mention."""
        begin, stop = context.span(start, end)
        opening, closing = ([m] if m is not None else [] for m in self._markers[:2])
        markers = len(opening) + len(closing)
        mention = context.ids[begin:stop][: max(1, budget - markers)]
        room = budget - markers - len(mention)
        left = min(begin, room // 2)
        right = min(len(context.ids) - stop, room - left)
        left = min(begin, room - right)
        return (
            context.ids[begin - left : begin]
            + opening
            + mention
            + closing
            + context.ids[stop : stop + right]
        )

    def _single_tokens(self, ids: List[int]) -> List[Token]:
        """``start ids end`` with the tokenizer's special tokens."""
        tokenizer = self._tokenizer
        texts = self._hf.convert_ids_to_tokens(ids)
        type_id = tokenizer.single_sequence_token_type_id
        return (
            tokenizer.single_sequence_start_tokens
            + [Token(text, text_id=i, type_id=type_id) for text, i in zip(texts, ids)]
            + tokenizer.single_sequence_end_tokens
        )

    def _pair_tokens(self, first: List[int], second: List[int]) -> List[Token]:
        """``start first mid second end`` with the tokenizer's special tokens and type ids (or,
        with ``match_ngram``, the match flags of :func:`shared_ngram_flags`)."""
        tokenizer = self._tokenizer
        texts = self._hf.convert_ids_to_tokens(first + second)
        if self.match_ngram is None:
            first_types = [tokenizer.sequence_pair_first_token_type_id] * len(first)
            second_types = [tokenizer.sequence_pair_second_token_type_id] * len(second)
        else:
            first_types = shared_ngram_flags(first, second, self.match_ngram)
            second_types = shared_ngram_flags(second, first, self.match_ngram)
        return (
            self._typed(tokenizer.sequence_pair_start_tokens)
            + [Token(t, text_id=i, type_id=k) for t, i, k in zip(texts, first, first_types)]
            + self._typed(tokenizer.sequence_pair_mid_tokens)
            + [
                Token(t, text_id=i, type_id=k)
                for t, i, k in zip(texts[len(first) :], second, second_types)
            ]
            + self._typed(tokenizer.sequence_pair_end_tokens)
        )

    def _typed(self, special: List[Token]) -> List[Token]:
        """Special tokens as they are, or of type 0 when type ids are match flags."""
        if self.match_ngram is None:
            return special
        return [Token(t.text, text_id=t.text_id, type_id=0) for t in special]

    def apply_token_indexers(self, instance: Instance) -> None:
        for name, field in instance.fields.items():
            if isinstance(field, TextField):
                field.token_indexers = self._token_indexers
            elif isinstance(field, ListField) and name in ("pairs", "candidates"):
                for text in field.field_list:
                    text.token_indexers = self._token_indexers


def shared_ngram_flags(pieces: List[int], other: List[int], n: int) -> List[int]:
    """1 for each piece inside an ``n``-gram of pieces that also occurs in ``other``, else 0: an
    exact-match input feature (Chen et al. 2017, §3.1, "exact match"), here over n-grams so that
    a quoted phrase stands out from shared function words."""
    seen = {tuple(other[i : i + n]) for i in range(len(other) - n + 1)}
    flags = [0] * len(pieces)
    for i in range(len(pieces) - n + 1):
        if tuple(pieces[i : i + n]) in seen:
            flags[i : i + n] = [1] * n
    return flags
