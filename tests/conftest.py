"""Shared test fixtures: tiny models built on the fly and the real data beside the repository."""

import os
from pathlib import Path

import pytest
import torch

import allennlp_longent.components  # noqa: F401  (registers every component for every test)

REPO_ROOT = Path(__file__).resolve().parents[1]
FIXTURES = REPO_ROOT / "fixtures"
SHARED_DATA = Path(os.environ.get("LONGENT_SHARED_DATA", REPO_ROOT.parent / "shared" / "data"))

torch.set_num_threads(max(1, min(2, torch.get_num_threads())))


def load_script(name: str):
    """The module of ``scripts/<folder>/<name>.py``, imported by path (scripts/ is not a
    package); the folder is found, so a test names only the script."""
    import importlib.util

    found = sorted((REPO_ROOT / "scripts").glob(f"*/{name}.py"))
    if len(found) != 1:
        raise FileNotFoundError(f"scripts/*/{name}.py: {len(found)} files match")
    spec = importlib.util.spec_from_file_location(name, found[0])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def tiny_linker_files(tmp_path_factory):
    """``(model archive, KB folder)`` of ``tests/linking/tiny_linker.py``, built once per session
    (the module is shared with the tests that import it by name, and so is its cache)."""
    import importlib.util
    import sys

    module = sys.modules.get("tiny_linker")
    if module is None:
        spec = importlib.util.spec_from_file_location(
            "tiny_linker", REPO_ROOT / "tests" / "linking" / "tiny_linker.py")
        module = sys.modules["tiny_linker"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return module.build_tiny_linker(tmp_path_factory.getbasetemp() / "tiny_linker")


def shared_data(*parts: str) -> Path:
    """Path under the shared data folder; skips the test outside CI when the folder is absent.

    In CI (``CI=true``) a missing folder fails the test instead, so it cannot pass by skipping.
    """
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        if os.environ.get("CI") == "true":
            raise FileNotFoundError(f"shared data missing in CI: {path}")
        pytest.skip(f"shared data not available: {path}")
    return path


TINY_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + [f"[unused{i}]" for i in range(5)]


def write_tiny_bert(
    directory: Path, max_position_embeddings: int = 64, words: list[str] | None = None
):
    """Saves a tiny random BERT with a word-piece vocabulary to ``directory``; returns the path."""
    from transformers import BertConfig, BertModel, BertTokenizerFast

    directory.mkdir(parents=True, exist_ok=True)
    vocab = TINY_VOCAB + sorted(set(words or _default_words()))
    (directory / "vocab.txt").write_text("\n".join(vocab) + "\n")
    tokenizer = BertTokenizerFast(
        vocab_file=str(directory / "vocab.txt"), model_max_length=max_position_embeddings
    )
    tokenizer.save_pretrained(directory)
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=16,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=max_position_embeddings,
    )
    torch.manual_seed(0)
    BertModel(config).save_pretrained(directory)
    return directory


def write_tiny_sentence_encoder(directory: Path, words: list[str] | None = None,
                                pooling: str = "mean", normalize: bool = True) -> Path:
    """A tiny random BERT laid out as a sentence-transformers checkpoint (``1_Pooling``,
    ``modules.json``) declaring ``pooling`` and, if ``normalize``, a Normalize module."""
    import json

    write_tiny_bert(directory, 64, words)
    (directory / "1_Pooling").mkdir()
    modes = {"cls": "pooling_mode_cls_token", "mean": "pooling_mode_mean_tokens",
             "max": "pooling_mode_max_tokens"}
    config = {"word_embedding_dimension": 16, "pooling_mode_mean_sqrt_len_tokens": False}
    config.update({key: name == pooling for name, key in modes.items()})
    (directory / "1_Pooling" / "config.json").write_text(json.dumps(config))
    modules = [{"idx": 0, "name": "0", "path": "",
                "type": "sentence_transformers.models.Transformer"},
               {"idx": 1, "name": "1", "path": "1_Pooling",
                "type": "sentence_transformers.models.Pooling"}]
    if normalize:
        modules.append({"idx": 2, "name": "2", "path": "2_Normalize",
                        "type": "sentence_transformers.models.Normalize"})
    (directory / "modules.json").write_text(json.dumps(modules))
    return directory


def _default_words() -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    common = (
        "the a of and to in is was he she it his her they on at by for with as from that this "
        "an be are were which who had has have not but or one two first new war ship star "
        "doctor wrestling military planet time lord empire jedi champion battle army"
    ).split()
    return list(letters) + ["##" + c for c in letters] + common + [str(i) for i in range(10)]


@pytest.fixture(scope="session")
def tiny_bert_dir(tmp_path_factory) -> Path:
    return write_tiny_bert(tmp_path_factory.mktemp("tiny_bert"))


@pytest.fixture(scope="session", name="tiny_luke")
def tiny_luke_fixture(tmp_path_factory):
    """A tiny random LUKE written by ``scripts/make_tiny_luke.py``; its path is also exported as
    ``LONGENT_LUKE`` while the session lasts, so the smoke configs read it."""
    import runpy

    script = runpy.run_path(str(REPO_ROOT / "scripts" / "make_tiny_luke.py"))
    path = str(script["write_tiny_luke"](tmp_path_factory.mktemp("tiny_luke")))
    previous = os.environ.get("LONGENT_LUKE")
    os.environ["LONGENT_LUKE"] = path
    yield path
    if previous is None:
        os.environ.pop("LONGENT_LUKE")
    else:
        os.environ["LONGENT_LUKE"] = previous


def piece_starts(model: str, words):
    """Index of each word's first word piece after [CLS], counted with the HF tokenizer."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model)
    starts, position = [], 1
    for word in words:
        starts.append(position)
        position += len(tokenizer.tokenize(word))
    return starts + [position]


def positions(instance):
    """The non-padding entity positions of an instance, one list per entity."""
    return [[p for p in row if p >= 0] for row in instance["entity_position_ids"].tensor.tolist()]
