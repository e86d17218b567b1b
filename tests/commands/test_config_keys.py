"""A misspelled config key, in an experiment or in the .libsonnet it imports, stops `allennlp
train` before it starts, naming the key, a close known key and the file and line it is written
at (AllenNLP alone trains without a word for the trainer, and raises a bare TypeError for a
reader)."""

import json
import shutil
import sys

import pytest
from allennlp.common.checks import ConfigurationError
from conftest import REPO_ROOT

from allennlp_longent.config_check import check_config_file, unknown_keys
from allennlp_longent.config_defaults import config_defaults

SMOKE = REPO_ROOT / "training_configs" / "zeshel" / "smoke_minilm.jsonnet"


@pytest.mark.parametrize("path", sorted((REPO_ROOT / "fixtures").glob("**/*.jsonnet")),
                         ids=lambda path: path.name)
def test_the_test_configs_have_no_unknown_key(path):
    """The experiments the tests train (training_configs/ are checked in test_training_configs)."""
    import _jsonnet

    variables = dict(config_defaults(), LONGENT_TEST_BERT="bert", LONGENT_TEST_ZESHEL="zeshel")
    assert unknown_keys(json.loads(_jsonnet.evaluate_file(str(path), ext_vars=variables))) == []


@pytest.fixture
def configs(tmp_path):
    """A copy of training_configs/lib and of the smoke experiment, to misspell keys in."""
    shutil.copytree(REPO_ROOT / "training_configs" / "lib", tmp_path / "lib")
    (tmp_path / "zeshel").mkdir()
    shutil.copy(SMOKE, tmp_path / "zeshel" / "smoke.jsonnet")
    return tmp_path


def misspell(path, old: str, new: str) -> int:
    """Replaces the one line holding ``old``; returns its 1-based number."""
    lines = path.read_text().splitlines()
    [number] = [i for i, line in enumerate(lines, 1) if old in line]
    lines[number - 1] = lines[number - 1].replace(old, new)
    path.write_text("\n".join(lines) + "\n")
    return number


def test_the_copies_check_clean(configs):
    check_config_file(configs / "zeshel" / "smoke.jsonnet")


def test_a_trainer_key_misspelled_in_the_experiment(configs):
    experiment = configs / "zeshel" / "smoke.jsonnet"
    line = misspell(experiment, "learning_rate_scheduler+:", "learning_rate_schedular+:")
    with pytest.raises(ConfigurationError) as raised:
        check_config_file(experiment)
    assert str(raised.value) == (
        "unknown config key 'trainer.learning_rate_schedular': GradientDescentTrainer has no "
        "parameter 'learning_rate_schedular'; did you mean 'learning_rate_scheduler'? "
        f"(written at {experiment}:{line})")


def test_a_reader_key_misspelled_in_the_libsonnet(configs):
    library = configs / "lib" / "zeshel.libsonnet"
    line = misspell(library, "  missing_gold: missing_gold,", "  missing_gld: missing_gold,")
    with pytest.raises(ConfigurationError) as raised:
        check_config_file(configs / "zeshel" / "smoke.jsonnet")
    message = ("unknown config key '{}.missing_gld': ZeshelReader has no parameter "
               f"'missing_gld'; did you mean 'missing_gold'? (written at {library}:{line})")
    assert str(raised.value).splitlines() == [
        message.format("dataset_reader"), message.format("validation_dataset_reader")]


def test_a_key_misspelled_in_overrides(configs):
    experiment = configs / "zeshel" / "smoke.jsonnet"
    with pytest.raises(ConfigurationError, match=r"unknown config key 'model.dropot'.*did you "
                                                 r"mean 'dropout'\? \(written at .*smoke.jsonnet "
                                                 r"\(or --overrides\)\)"):
        check_config_file(experiment, '{"model.dropot": 0.1}')


def test_allennlp_train_stops_before_it_starts(configs, tmp_path, monkeypatch):
    """The `allennlp train` command line, in this process: the plugin's check runs first (the
    data paths are missing, so without the check it fails at once instead of training)."""
    from allennlp.commands import main

    experiment = configs / "zeshel" / "smoke.jsonnet"
    misspell(experiment, "learning_rate_scheduler+:", "learning_rate_schedular+:")
    missing_data = '{"train_data_path": "no/such.json", "validation_data_path": "no/such.json"}'
    monkeypatch.setattr(sys, "argv", ["allennlp", "train", str(experiment), "-s",
                                      str(tmp_path / "run"), "-o", missing_data,
                                      "--include-package", "allennlp_longent"])
    with pytest.raises(ConfigurationError, match="'trainer.learning_rate_schedular'"):
        main()
    assert not (tmp_path / "run").exists()
