"""``allennlp predict`` on an input with a malformed line and a record missing a field: the error
names the record and its text; with skip_bad_records the run goes on and counts them."""

import json

import pytest
import torch
from allennlp.commands.predict import _PredictManager

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
        'column 9: {"x": 2,, "y": 3} (--predictor-args'
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
