"""scripts/entity_nlm_breakdown.py: the kinds of gold entity and the printed accuracies."""

from conftest import load_script


def test_kinds_and_report(capsys):
    script = load_script("entity_nlm_breakdown")
    assert script.kind_of(0, 3) == "first entity"
    assert script.kind_of(2, 3) == "other existing"
    assert script.kind_of(3, 3) == "new"
    rows = [
        ("first entity", "right", "i"), ("first entity", "new", "i"),
        ("other existing", "first entity", "it"), ("new", "right", "cake"),
    ]
    script.report(rows, top=2)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "mentions 4, accuracy 0.500"
    assert out[2].split()[:4] == ["first", "entity", "2", "0.500"]
    assert out[3].split()[:4] == ["other", "existing", "1", "0.000"]
    assert "first entity 1.000" in out[3]
    assert out[-2].split() == ["i", "first", "entity", "2", "0.500"]
