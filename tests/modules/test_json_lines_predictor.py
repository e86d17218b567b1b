"""``allennlp predict`` on an input with a malformed line and a record missing a field: the error
names the record and its text; with skip_bad_records the run goes on and counts them."""

import json

import pytest
import torch
from allennlp.commands.predict import _PredictManager

from allennlp_longent.linking.documents import WorldDocuments
from allennlp_longent.modules.json_lines_predictor import JsonLinesPredictor

LINES = ['{"x": 1}', '{"x": 2,, "y": 3}', "", '{"y": 4}', '{"x": 5}']


class Echo(JsonLinesPredictor):
    def predict_json(self, inputs):
        if "x" not in inputs:
            raise ValueError("input is missing the field 'x'")
        return {"x": inputs["x"]}

    def predict_batch_json(self, inputs):
        return [self.predict_json(record) for record in inputs]


def run(tmp_path, batch_size, **kwargs):
    (tmp_path / "in.jsonl").write_text("\n".join(LINES) + "\n")
    predictor = Echo(torch.nn.Linear(1, 1), None, **kwargs)
    manager = _PredictManager(predictor, str(tmp_path / "in.jsonl"), str(tmp_path / "out.jsonl"),
                              batch_size, False, False)
    manager.run()
    return predictor, [json.loads(line) for line in (tmp_path / "out.jsonl").open()]


def test_a_malformed_line_is_named_and_stops_the_run(tmp_path):
    with pytest.raises(ValueError) as raised:
        run(tmp_path, batch_size=1)
    assert str(raised.value).startswith(
        "input record 2 (non-blank line 2): Expecting property name enclosed in double quotes at "
        'column 9 (character 8): {"x": 2,, "y": 3} (--predictor-args'
    )


@pytest.mark.parametrize("batch_size", [1, 3])
def test_skip_bad_records_counts_them_and_keeps_going(tmp_path, batch_size):
    predictor, outputs = run(tmp_path, batch_size, skip_bad_records=True)
    assert [o.get("x") for o in outputs] == [1, None, None, 5]
    assert [o.get("skipped_record") for o in outputs] == [None, 2, 3, None]
    assert "missing the field 'x'" in outputs[2]["error"] and '{"y": 4}' in outputs[2]["error"]
    assert (predictor.records, predictor.skipped) == (4, 2)


def test_called_from_python_nothing_changes():
    predictor = Echo(torch.nn.Linear(1, 1), None, skip_bad_records=True)
    assert predictor.predict_json({"x": 7}) == {"x": 7}
    with pytest.raises(ValueError, match="missing the field 'x'"):
        predictor.predict_json({"y": 1})


class WorldEcho(JsonLinesPredictor):
    """Reads the record's world as the linker predictor does (a missing world file raises
    ``FileNotFoundError`` in ``WorldDocuments``)."""

    def predict_json(self, inputs):
        return {"documents": len(WorldDocuments(inputs["documents_dir"]).world(inputs["world"]))}

    def predict_batch_json(self, inputs):
        return [self.predict_json(record) for record in inputs]


@pytest.mark.parametrize("batch_size", [1, 2])
def test_a_record_naming_a_missing_world_is_a_record_error(tmp_path, batch_size):
    (tmp_path / "docs").mkdir()
    document = {"document_id": "A", "title": "A", "text": "a"}
    (tmp_path / "docs" / "here.json").write_text(json.dumps(document) + "\n")
    lines = [json.dumps({"world": world, "documents_dir": str(tmp_path / "docs")})
             for world in ("here", "harbor_cities", "here")]
    (tmp_path / "in.jsonl").write_text("\n".join(lines) + "\n")

    def predict(**kwargs):
        predictor = WorldEcho(torch.nn.Linear(1, 1), None, **kwargs)
        _PredictManager(predictor, str(tmp_path / "in.jsonl"), str(tmp_path / "out.jsonl"),
                        batch_size, False, False).run()
        return [json.loads(line) for line in (tmp_path / "out.jsonl").open()]

    with pytest.raises(ValueError, match=r"^input record 2 \(non-blank line 2\): no documents for "
                                         r"world 'harbor_cities'.*skip_bad_records"):
        predict()
    outputs = predict(skip_bad_records=True)
    assert [o.get("documents") for o in outputs] == [1, None, 1]
    assert outputs[1]["skipped_record"] == 2 and "harbor_cities.json" in outputs[1]["error"]
