"""``scripts/linking/long_context_train.py`` end to end on the CPU at a tiny size: two arms
trained with ``training_configs/zeshel/long_context.jsonnet``, read at their own lengths over
the same test lists, bucketed by where the deciding fact lies."""

import json
import subprocess
import sys

from conftest import REPO_ROOT as REPO
from conftest import load_script

from allennlp_longent.config_defaults import packaged_minilm


def test_two_arms_are_trained_and_compared_on_both_buckets(tmp_path):
    out = tmp_path / "lc"
    command = [sys.executable, str(REPO / "scripts/linking/long_context_train.py"), str(out),
               "--arms", "512", "1024:repeat", "--plain-worlds", "1", "--late-worlds", "1",
               "--test-worlds", "1", "--mentions-per-world", "6", "--layers", "1",
               "--model", packaged_minilm()]
    printed = subprocess.run(command, check=True, capture_output=True, text=True, cwd=REPO).stdout
    result = json.loads((out / "results.json").read_text())
    assert list(result["arms"]) == ["512", "1024:repeat"]
    mentions = [json.loads(line)["mention_id"]
                for line in (out / "test/mentions/train.json").read_text().splitlines()]
    assert len(mentions) == 12
    # every test mention is scored by both arms and falls in exactly one bucket; the late-fact
    # world's mentions are the ones whose fact only the 1024-piece pair holds
    for scored in result["arms"].values():
        assert sorted(scored) == sorted(mentions)
    beyond, rest = result["buckets"]["beyond 512"], result["buckets"]["the rest"]
    assert sorted(beyond + rest) == sorted(mentions) and len(beyond) == len(rest) == 6
    load_script("make_zeshel_demo")  # puts scripts/demo_data on the path
    extra = load_script("zeshel_demo_extra")
    (late,) = extra.late_fact_worlds(1, 6, "long-context-test")
    assert sorted(beyond) == sorted(m.mention_id for m in late.mentions)
    # the table: one row per arm, the second with its sign test against the first, baselines
    table = result["table"]
    assert table[2].startswith("| 512 | ") and "vs 512" not in table[2]
    assert table[3].startswith("| 1024:repeat | ") and table[3].count("vs 512: +") == 2
    assert table[4].startswith("| BM25@1 (same lists) | ") and table[5].startswith("| chance | ")
    for arm, scored in result["arms"].items():
        hits = sum(scored[i] for i in beyond)
        assert f"| {arm} | {hits}/6 = " in "\n".join(table)
    assert "1024:repeat: trained in" in printed
    config = json.loads((out / "arm_1024_repeat/config.json").read_text())
    embedder = config["model"]["text_field_embedder"]["token_embedders"]["tokens"]
    assert embedder["max_length"] == 1024 and embedder["position_init"]["type"] == "repeat"
    assert config["dataset_reader"]["max_length"] == 1024
