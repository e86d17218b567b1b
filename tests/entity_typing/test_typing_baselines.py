"""The typing baselines of scripts/relations/redocred_baselines.py on a hand-built document."""

import pytest
from conftest import load_script


def test_typing_scores_by_hand():
    baselines = load_script("redocred_baselines")
    document = {"vertexSet": [
        [{"type": "PER"}, {"type": "PER"}, {"type": "PER"}],  # guessed {PER, LOC}, single PER
        [{"type": "LOC"}],  # guessed {ORG}, single ORG
        [{"type": "ORG"}, {"type": "MISC"}],  # guessed {MISC}, single MISC
    ]}
    sets = iter([{"PER", "LOC"}, {"ORG"}, {"MISC"}])
    singles = iter(["PER", "ORG", "MISC"])
    scores = baselines.typing_scores([document], lambda e: next(sets), lambda e: next(singles))
    # loose: correct 1 + 0 + 1, predicted 2 + 1 + 1, gold 1 + 1 + 2
    assert scores["precision"] == pytest.approx(2 / 4)
    assert scores["recall"] == pytest.approx(2 / 4)
    # entities: PER right, ORG wrong, MISC right; mentions: 3 + 0 + 1 of 6
    assert scores["accuracy"] == pytest.approx(2 / 3)
    assert scores["mention_accuracy"] == pytest.approx(4 / 6)
