"""The Re-DocRED throughput benchmark's document builder (``scripts/benchmarks``)."""

from conftest import load_script


def _document(entities: int, offset: int = 0) -> dict:
    return {
        "title": f"doc {offset}",
        "sents": [["w"] * 5],
        "vertexSet": [[{"name": f"e{offset + i}", "sent_id": 0, "pos": [i, i + 1]}]
                      for i in range(entities)],
        "labels": [{"h": 0, "t": entities - 1, "r": "P17", "evidence": [0]},
                   {"h": 1, "t": 0, "r": "P131", "evidence": [0]}],
    }


def test_concatenation_reindexes_and_the_entity_cap_keeps_labels_between_kept_entities():
    script = load_script("benchmark_redocred_throughput")
    merged, after = script.concatenate([_document(3), _document(4, 3)], 8, 0)
    assert after == 2 and len(merged["sents"]) == 2 and len(merged["vertexSet"]) == 7
    assert merged["vertexSet"][3][0]["sent_id"] == 1
    assert [(x["h"], x["t"]) for x in merged["labels"]] == [(0, 2), (1, 0), (3, 6), (4, 3)]
    kept = script.keep_entities(merged, 4)
    assert [e[0]["name"] for e in kept["vertexSet"]] == ["e0", "e1", "e2", "e3"]
    assert [(x["h"], x["t"]) for x in kept["labels"]] == [(0, 2), (1, 0)]
    assert len(merged["vertexSet"]) == 7  # the input is not changed
    assert script.keep_entities(merged, None) is merged
    assert script.keep_entities(merged, 7) is merged
