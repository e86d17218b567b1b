"""The "grouped" batch sampler keeps twins in one batch and loses no instance."""

import pytest
from allennlp.common import Params
from allennlp.common.checks import ConfigurationError
from allennlp.data import Instance
from allennlp.data.fields import MetadataField
from allennlp.data.samplers import BatchSampler

import allennlp_longent.registered  # noqa: F401


def _instances(worlds_and_mentions):
    return [Instance({"metadata": MetadataField({"world": w, "mention": m})})
            for w, m in worlds_and_mentions]


def _sampler(**extra) -> BatchSampler:
    return BatchSampler.from_params(Params({
        "type": "grouped", "batch_size": extra.pop("batch_size", 4),
        "key_fields": ["world", "mention"],
        "remove": "shared_", "only": "^docred_", **extra}))


def test_twins_share_a_batch_and_every_instance_comes_once():
    pairs = [(f"docred_{k:04d}", f"name {k}") for k in range(7)]
    twins = [(f"docred_shared_{k:04d}", f"name {k}") for k in range(7)]
    lone = [(f"extra_{k % 2}", "alike") for k in range(5)]  # not grouped: outside `only`
    instances = _instances(pairs + lone + twins)
    sampler = _sampler(seed=3)
    batches = list(sampler.get_batch_indices(instances))
    flat = sorted(i for b in batches for i in b)
    assert flat == list(range(len(instances)))
    assert all(len(b) <= 4 for b in batches)
    assert len(batches) >= (7 + 5 + 7) / 4
    where = {i: n for n, b in enumerate(batches) for i in b}
    for k in range(7):
        assert where[k] == where[len(pairs) + len(lone) + k], f"twin {k} split across batches"
    # get_num_batches predicts the next shuffle's count and leaves it unchanged
    count = sampler.get_num_batches(instances)
    assert count == len(list(sampler.get_batch_indices(instances)))


def test_shuffle_changes_the_order_but_not_the_groups():
    instances = _instances([(f"docred_{k}", "m") for k in range(40)])
    sampler = _sampler(seed=0)
    first = list(sampler.get_batch_indices(instances))
    second = list(sampler.get_batch_indices(instances))
    assert first != second
    assert sorted(i for b in second for i in b) == list(range(40))
    plain = list(_sampler(shuffle=False).get_batch_indices(instances))
    assert plain == [list(range(k, k + 4)) for k in range(0, 40, 4)]


def test_a_missing_field_and_a_group_too_large_are_named():
    with pytest.raises(ConfigurationError, match="no metadata field 'mention'"):
        list(_sampler().get_batch_indices([Instance({"metadata": MetadataField({"world": "w"})})]))
    crowd = _instances([("docred_0001", "x"), ("docred_shared_0001", "x")] * 3)
    with pytest.raises(ConfigurationError, match="group of 6 instances"):
        list(_sampler().get_batch_indices(crowd))


def test_only_instances_matching_only_are_grouped():
    alike = _instances([("extra_0", "the fire")] * 3 + [("docred_0002", "x"),
                                                        ("docred_shared_0002", "x")])
    sampler = _sampler(batch_size=2, shuffle=False)
    assert list(sampler.get_batch_indices(alike)) == [[0, 1], [2], [3, 4]]
