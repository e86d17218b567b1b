"""scripts/entity_nlm/entity_nlm_breakdown.py: kinds, distance buckets and the printed table, by
hand."""

from conftest import load_script


def test_kinds_distances_and_report(capsys):
    script = load_script("entity_nlm_breakdown")
    assert script.kind_of(0, 3) == "first entity"
    assert script.kind_of(2, 3) == "other existing"
    assert script.kind_of(3, 3) == "new"
    ids = [0, -1, 1, -1, -1, -1, -1, 0] + [-1] * 40 + [1]
    assert script.distance_bucket(ids, 0) == "new"
    assert script.distance_bucket(ids, 7) == "6-15"  # 7 tokens after token 0
    assert script.distance_bucket(ids, 48) == "41+"  # 46 tokens after token 2
    assert script.distance_bucket([1, 1], 1) == "1-5"
    rows = [
        ("first entity", "right", "1-5", "i"), ("first entity", "new", "1-5", "i"),
        ("other existing", "first entity", "16-40", "it"), ("new", "right", "new", "cake"),
    ]
    script.report(rows, top=2)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "targets 4, accuracy 0.500"
    assert out[2].split()[:4] == ["first", "entity", "2", "0.500"]
    assert out[3].split()[:4] == ["other", "existing", "1", "0.000"]
    assert "first entity 1.000" in out[3]
    distance = out.index(next(line for line in out if line.startswith("distance")))
    assert out[distance + 2].split()[:3] == ["1-5", "2", "0.500"]
    assert out[distance + 4].split()[:3] == ["16-40", "1", "0.000"]
    assert out[-2].split() == ["i", "first", "entity", "2", "0.500"]
