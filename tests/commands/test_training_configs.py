"""Every experiment in training_configs/ evaluates with the default external variables, the
reader and model it names are registered once the plugin's components are imported, and no key
of it is unknown to the constructor it reaches (allennlp_longent.config_check)."""

import json
import re

import _jsonnet
import pytest
from allennlp.data import DatasetReader
from allennlp.models import Model
from conftest import REPO_ROOT

import allennlp_longent.components  # noqa: F401
from allennlp_longent.config_check import unknown_keys
from allennlp_longent.config_defaults import config_defaults

EXPERIMENTS = sorted((REPO_ROOT / "training_configs").glob("*/*.jsonnet"))


def test_every_config_the_docs_name_is_an_experiment_here():
    """The configs README.md and docs/*.md name (found by their own pattern, not this glob) are
    all among EXPERIMENTS, and every task folder has some."""
    pages = [REPO_ROOT / "README.md", *(REPO_ROOT / "docs").glob("*.md")]
    named = {name for page in pages for name in re.findall(
        r"training_configs/\w+/\w+\.jsonnet", page.read_text(encoding="utf-8"))}
    assert len(named) >= 7
    found = {str(path.relative_to(REPO_ROOT)) for path in EXPERIMENTS}
    assert sorted(named - found) == []
    folders = {path.name for path in (REPO_ROOT / "training_configs").iterdir()} - {"lib"}
    assert {path.parent.name for path in EXPERIMENTS} == folders == {
        "entity_nlm", "entity_typing", "linking", "relations", "zeshel"}


@pytest.mark.parametrize("path", EXPERIMENTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_experiment_evaluates_to_registered_components(path):
    config = json.loads(_jsonnet.evaluate_file(str(path), ext_vars=config_defaults()))
    assert DatasetReader.by_name(config["dataset_reader"]["type"])
    assert Model.by_name(config["model"]["type"])
    assert config["train_data_path"]
    assert unknown_keys(config) == []


def test_context_projection_experiment_differs_in_that_one_key():
    root = REPO_ROOT / "training_configs" / "entity_nlm"
    base, variant = (
        json.loads(_jsonnet.evaluate_file(str(root / name), ext_vars=config_defaults()))
        for name in (
            "inscript_tacl_entity_prediction.jsonnet", "inscript_tacl_context_projection.jsonnet"
        )
    )
    assert variant["model"].pop("context_projection") is True
    assert variant == base


# transformers' warm-up schedules that AllenNLP wraps and steps once per epoch, not per batch
EPOCH_STEPPED_WARMUP = {"constant_with_warmup", "cosine_with_warmup",
                        "cosine_hard_restarts_with_warmup"}


@pytest.mark.parametrize("path", EXPERIMENTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_warmup_counted_in_epochs(path):
    """A warm-up of N steps must mean N batches: with a wrapped transformers schedule it means N
    epochs, and a one-epoch run trains at learning rate 0 (docs/linking.md, "The learning
    curve")."""
    config = json.loads(_jsonnet.evaluate_file(str(path), ext_vars=config_defaults()))
    scheduler = config.get("trainer", {}).get("learning_rate_scheduler") or {}
    assert scheduler.get("type") not in EPOCH_STEPPED_WARMUP
