"""Model ``cascade_linker``: the calibrated retrieve-then-rerank cascade
(:mod:`allennlp_longent.linking.cascade`) as one AllenNLP archive.

The archive's config holds the calibration (first stage of context evidence, weight λ,
temperature T, NIL score b and the sign test's record, written by ``longent calibrate``); a
``cross_encoder_ranker`` archive travels inside it and is loaded only when it is used: when λ > 0,
or when evaluating on labelled mentions (the cross-encoder-alone figure). Each mention is linked
against its knowledge base: its world in its ``documents_dir`` (zeshel), or the entities given
with it. With labelled mentions the metrics are those of :mod:`allennlp_longent.linking.evaluation`.
"""

import atexit
import logging
import shutil
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from allennlp.data import Vocabulary
from allennlp.models import Model

from allennlp_longent.linking.cascade import NIL, Cascade, CascadeSettings, Scored, accuracy
from allennlp_longent.linking.evaluation import RECALL_KS
from allennlp_longent.linking.evidence import ContextEvidence, EvidenceSettings
from allennlp_longent.linking.models.first_stage import MentionKnowledgeBases

logger = logging.getLogger(__name__)
CROSS_ENCODER_FILE = "cross_encoder.tar.gz"


@Model.register("cascade_linker")
class CascadeLinker(Model):
    """``calibration``: :class:`CascadeSettings` as a dict; ``cross_encoder``: the re-ranker's
    archive, relative to the cascade archive (``cross_encoder.tar.gz`` inside it) or a path;
    ``retriever`` and ``encoder``: the retriever of the first stage's candidates; ``baselines``:
    retrievers whose @1 and recall@k are measured beside the cascade on labelled mentions."""

    def __init__(self, vocab: Vocabulary, calibration: Dict[str, Any],
                 cross_encoder: Optional[str] = None, retriever: str = "bm25",
                 encoder: str = "packaged_minilm", mention_length: int = 16,
                 baselines: Sequence[str] = ("bm25", "dense", "hybrid"), batch_size: int = 8,
                 cuda_device: int = -1, serialization_dir: Optional[str] = None,
                 **kwargs) -> None:
        super().__init__(vocab, **kwargs)
        self.settings = CascadeSettings(**calibration)
        self.kbs = MentionKnowledgeBases(retriever, encoder, mention_length)
        self.baselines = list(baselines)
        self.batch_size = batch_size
        self.cuda_device = cuda_device
        self.cross_encoder = _keep(cross_encoder, serialization_dir)
        self._ranker: Optional[Tuple[Model, Any]] = None
        self.evidence = (ContextEvidence(EvidenceSettings(**self.settings.evidence))
                         if self.settings.evidence else None)
        self._counts: Dict[str, float] = {}

    def ranker(self) -> Tuple[Model, Any]:
        """The cross-encoder (eval mode) and its validation reader, loaded on first use."""
        if self._ranker is None:
            from allennlp.models.archival import load_archive

            from allennlp_longent.paths import check_archive

            check_archive(self.cross_encoder)  # names the file; AllenNLP's error would not
            loaded = load_archive(self.cross_encoder, cuda_device=self.cuda_device)
            loaded.model.eval()
            self._ranker = (loaded.model, loaded.validation_dataset_reader)
        return self._ranker

    def cascade(self, kb, rerank: bool, settings: Optional[CascadeSettings] = None,
                batch_size: Optional[int] = None) -> Cascade:
        """The cascade over ``kb`` with the archived settings (or ``settings``, e.g. a user's
        overrides); the cross-encoder is loaded only when ``rerank``."""
        ranker = self.ranker() if rerank and self.cross_encoder else None
        return Cascade(kb, ranker, settings or self.settings,
                       self.batch_size if batch_size is None else batch_size,
                       evidence=self.evidence)

    def forward(self, mention: List[Dict[str, Any]]) -> Dict[str, Any]:  # type: ignore[override]
        """Links each mention: ``predicted_document_id`` (``NIL`` when the NIL option is likelier)
        and ``ranked`` candidates with every score (:meth:`Cascade.ranked`)."""
        labelled = any(m.get("gold") is not None for m in mention)
        rerank = self.settings.weight > 0 or labelled  # λ = 0 links without the cross-encoder
        predicted: List[str] = [NIL] * len(mention)
        ranked: List[List[dict]] = [[] for _ in mention]
        for rows in self.kbs.grouped(mention).values():
            kb = self.kbs.of(mention[rows[0]])
            cascade = self.cascade(kb, rerank)
            queries = [mention[i]["query"] for i in rows]
            retrieved = cascade.retrieve(queries)
            scored = cascade.score(queries, retrieved, rerank_all=labelled)
            for i, found, item in zip(rows, retrieved, scored):
                ranked[i] = cascade.ranked(item)  # λ = 0: the cross-encoder's score unused
                predicted[i] = cascade.best(ranked[i])
                if mention[i].get("gold") is not None:
                    self._count(mention[i], kb, found, item, predicted[i])
        return {"predicted_document_id": predicted, "ranked": ranked,
                "mention_id": [m.get("mention_id") for m in mention],
                "mention": [m["query"].mention for m in mention]}

    def _count(self, mention: dict, kb, found: List[Tuple[Any, float, float]], item: Scored,
               predicted: str) -> None:
        gold, add = mention["gold"], self._add
        add("mentions")
        add("chance", 1 / max(len(kb), 1))
        add("cascade_nil", predicted == NIL)
        add("cascade_right", accuracy([item], [gold], self.settings.weight, self.settings))
        if self.settings.evidence:
            add("first_stage_right", accuracy([item], [gold], 0.0, self.settings))
            self._recall("first_stage", [e.id for e, _, _ in found], gold)
        if item.rerank is not None:
            add("cross_encoder_right", accuracy([item], [gold], 1.0, self.settings,
                                                abstain=False))
        if mention.get("entities") is not None:
            return
        own = mention["query"].document_id
        for name in self.baselines:
            ids = [e.id for e, _ in self.kbs.of(mention, name).candidates(
                [mention["query"]], max(RECALL_KS))[0]]
            add(f"{name}_right", bool(ids) and ids[0] == gold)
            self._recall(name, ids, gold)
            if name == "bm25":
                others = [i for i in ids if i != own]
                add("bm25_without_own_page_right", bool(others) and others[0] == gold)

    def _recall(self, name: str, ids: List[str], gold: str) -> None:
        for k in RECALL_KS:
            self._add(f"recall_{name}_at_{k}", gold in ids[:k])

    def _add(self, key: str, value: float = 1.0) -> None:
        self._counts[key] = self._counts.get(key, 0.0) + float(value)

    def get_metrics(self, reset: bool = False) -> Dict[str, float]:
        """Counts (``*_right``, ``recall_*``), accuracies ``*_at_1`` and ``chance`` (the mean
        of 1 / entities in the mention's knowledge base)."""
        counts = dict(self._counts)
        total = counts.get("mentions", 0.0)
        metrics = {k: v for k, v in counts.items() if k != "chance"}
        metrics["chance"] = counts.get("chance", 0.0) / max(total, 1.0)
        metrics["cascade_weight"] = self.settings.weight
        for key, value in counts.items():
            if key.endswith("_right"):
                metrics[key[: -len("_right")] + "_at_1"] = value / max(total, 1.0)
        if reset:
            self._counts = {}
        return metrics


def _keep(archive: Optional[str], serialization_dir: Optional[str]) -> Optional[str]:
    """Where the cross-encoder archive can be read later: a copy of the one inside the cascade
    archive (AllenNLP removes the extracted archive once the model is built), else the path."""
    if archive is None:
        return None
    inside = Path(serialization_dir) / archive if serialization_dir else None
    if inside is not None and inside.is_file():
        folder = tempfile.mkdtemp(prefix="cascade_linker_")
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        return shutil.copy(inside, Path(folder) / CROSS_ENCODER_FILE)
    if not Path(archive).is_file():
        raise FileNotFoundError(f"cross-encoder archive not found: {archive}")
    return str(archive)


def write_cascade_archive(output: Union[str, Path], settings: CascadeSettings,
                          cross_encoder: Optional[str] = None, **model: Any) -> Path:
    """Writes a ``cascade_linker`` archive: its config (``settings`` as the calibration and
    ``model``'s other constructor arguments), an empty vocabulary and state dict (the parts hold
    the weights) and a copy of the ``cross_encoder`` archive, if any, inside it."""
    import json

    import torch
    from allennlp.common.meta import Meta
    from allennlp.models.archival import archive_model

    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    reader = {"type": "zeshel_mentions"}
    config = {
        "dataset_reader": reader, "validation_dataset_reader": reader,
        "data_loader": {"batch_size": 256}, "validation_data_loader": {"batch_size": 256},
        "model": {"type": "cascade_linker", "calibration": asdict(settings),
                  "cross_encoder": CROSS_ENCODER_FILE if cross_encoder else None, **model},
    }
    with tempfile.TemporaryDirectory(dir=output.parent) as folder:
        (Path(folder) / "config.json").write_text(json.dumps(config, indent=2) + "\n")
        Vocabulary().save_to_files(str(Path(folder) / "vocabulary"))
        torch.save({}, Path(folder) / "best.th")
        Meta.new().to_file(str(Path(folder) / "meta.json"))
        if cross_encoder:
            shutil.copyfile(cross_encoder, Path(folder) / CROSS_ENCODER_FILE)
        archive_model(folder, archive_path=str(output),
                      include_in_archive=[CROSS_ENCODER_FILE] if cross_encoder else None)
    return output
