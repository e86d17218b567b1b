"""A tiny trained ``cross_encoder_ranker`` archive and a knowledge base, for the linker tests.

The ranker reads 128 word pieces (a 64-position random BERT extended with E_repeat) and is
trained for a few steps on the zeshel-format fixture in ``fixtures/kb/zeshel`` with BM25
candidates, then archived by AllenNLP's trainer like any real run.
"""

import re
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Tuple

from conftest import FIXTURES, SHARED_DATA, write_tiny_bert

from allennlp_longent.linking.candidates.zeshel import ZeshelCandidates, write_candidates
from allennlp_longent.linking.knowledge_base import KnowledgeBase

KB_FIXTURES = FIXTURES / "kb"
ZESHEL_FIXTURE = KB_FIXTURES / "zeshel"
MAX_LENGTH = 128

PARAGRAPH = (
    "Mara Quill painted the Grey Sea from the Arbor Lighthouse . Every morning the Tollan Ferry "
    "brought letters to Vell Island , and Mara Quill walked down to the harbour to read them ."
)
RULER_PATTERNS = [
    {"label": "ENTITY", "pattern": name}
    for name in ("Mara Quill", "Grey Sea", "Arbor Lighthouse", "Tollan Ferry", "Vell Island")
]

_BUILT: Dict[Path, Tuple[Path, Path]] = {}


def _words(texts: Iterable[str]) -> List[str]:
    """Lower-cased words and punctuation, as the uncased BERT pre-tokenizer splits them."""
    return sorted({word for text in texts for word in re.findall(r"\w+|[^\w\s]", text.lower())})


def _vocabulary_texts() -> List[str]:
    paths = list(KB_FIXTURES.glob("**/*.json*"))
    paths += list((SHARED_DATA / "zeshel_tiny" / "documents").glob("*.json"))
    return [PARAGRAPH] + [path.read_text(encoding="utf-8") for path in paths]


def build_tiny_linker(root: Path, trainer: Optional[dict] = None) -> Tuple[Path, Path]:
    """``(model archive, knowledge-base directory)`` under ``root``; built once per ``root``.
    ``trainer``: keys that replace the CPU trainer's (e.g. a CUDA device and ``use_amp``)."""
    if root in _BUILT:
        return _BUILT[root]
    from allennlp.commands.train import train_model
    from allennlp.common import Params

    bert = write_tiny_bert(root / "bert", max_position_embeddings=64,
                           words=_words(_vocabulary_texts()))
    candidates = root / "candidates"
    candidates.mkdir(parents=True)
    generator = ZeshelCandidates(ZESHEL_FIXTURE, top_k=3)
    write_candidates(generator.split("train", progress=False), candidates / "train.json")

    def extended() -> dict:  # a new dict each time: Params consumes what it reads
        return {"type": "extended_pretrained_transformer", "model_name": str(bert),
                "max_length": MAX_LENGTH}

    def reader(missing_gold: str) -> dict:
        return {
            "type": "zeshel",
            "tokenizer": extended(),
            "token_indexers": {"tokens": extended()},
            "max_length": MAX_LENGTH,
            "top_k": 3,
            "missing_gold": missing_gold,
            "candidates_dir": str(candidates),
        }

    train_path = str(ZESHEL_FIXTURE / "mentions" / "train.json")
    config = {
        "dataset_reader": reader("insert"),
        "validation_dataset_reader": reader("keep"),
        "train_data_path": train_path,
        "validation_data_path": train_path,
        "model": {
            "type": "cross_encoder_ranker",
            "text_field_embedder": {
                "token_embedders": {
                    "tokens": {**extended(), "position_init": {"type": "repeat"}}
                }
            },
            "dropout": 0.0,
            "candidate_chunk_size": 8,
        },
        "data_loader": {"batch_size": 3, "shuffle": False},
        "trainer": {"num_epochs": 3, "optimizer": {"type": "adam", "lr": 0.01}, "cuda_device": -1,
                    **(trainer or {})},
        "include_in_archive": ["transformers"],
    }
    train_model(Params(config), root / "run")
    kb = KnowledgeBase()
    kb.add_files([KB_FIXTURES / "entities.jsonl"])
    kb.save(root / "kb")
    _BUILT[root] = (root / "run" / "model.tar.gz", root / "kb")
    return _BUILT[root]


def cascade_of(archive: Path) -> str:
    """A ``cascade_linker`` archive around the tiny cross-encoder, uncalibrated (weight 0.5,
    per-mention z-scores, no NIL option): what the spaCy component and link-text take."""
    from allennlp_longent.linking.cascade import CascadeSettings
    from allennlp_longent.linking.models.cascade_linker import write_cascade_archive

    path = Path(archive).parent / "cascade.tar.gz"
    if not path.is_file():
        write_cascade_archive(path, CascadeSettings(), str(archive))
    return str(path)
