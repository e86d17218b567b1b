"""Every experiment in training_configs/ evaluates with the default external variables, and the
reader and model it names are registered once the plugin's components are imported."""

import json

import _jsonnet
import pytest
from allennlp.data import DatasetReader
from allennlp.models import Model
from conftest import REPO_ROOT

import allennlp_longent.components  # noqa: F401
from allennlp_longent.config_defaults import config_defaults

EXPERIMENTS = sorted((REPO_ROOT / "training_configs").glob("*/*.jsonnet"))


def test_there_are_experiments():
    assert len(EXPERIMENTS) > 20


@pytest.mark.parametrize("path", EXPERIMENTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_experiment_evaluates_to_registered_components(path):
    config = json.loads(_jsonnet.evaluate_file(str(path), ext_vars=config_defaults()))
    assert DatasetReader.by_name(config["dataset_reader"]["type"])
    assert Model.by_name(config["model"]["type"])
    assert config["train_data_path"]


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
