"""Base of the plugin's predictors: ``allennlp predict`` input errors name the record, and
``--predictor-args '{"skip_bad_records": true}'`` skips and counts bad records instead of stopping.

AllenNLP parses each non-blank input line on its own, so ``json.loads`` reports "line 1" for
every record and the first bad one ends the run. Here a record that is not valid JSON, or that
its predictor rejects (``RECORD_ERRORS``: a bad or missing field, a missing file it names), is
named by its number (its place among the non-blank lines) and its text. When skipping, its
output line is ``{"skipped_record": N, "error": ...}`` (so outputs stay aligned with inputs) and
a warning keeps the running count.
"""

import functools
import json
import logging
from typing import Any, Callable, Dict, List

from allennlp.common.util import JsonDict
from allennlp.predictors import Predictor

from allennlp_longent.paths import json_error

logger = logging.getLogger(__name__)

# What a bad record raises: a wrong field, a missing or wrong type of value, or a file it names
# (a ``world`` whose documents do not exist) that is not there.
RECORD_ERRORS = (ValueError, KeyError, TypeError, FileNotFoundError)
RECORD = "_longent_record"  # the record number, added to every input by load_line
BAD = "_longent_bad_record"  # the error of a record that could not be parsed


class JsonLinesPredictor(Predictor):
    def __init__(self, model, dataset_reader, frozen: bool = True,
                 skip_bad_records: bool = False) -> None:
        if next(model.parameters(), None) is None:
            # Predictor.__init__ reads the device off the first parameter; a model with none of
            # its own (a cascade loads its parts on first use) gives its device itself
            if frozen:
                model.eval()
            self._model = model
            self._dataset_reader = dataset_reader
            self.cuda_device = getattr(model, "cuda_device", -1)
            self._token_offsets = []
        else:
            super().__init__(model, dataset_reader, frozen)
        self.skip_bad_records = skip_bad_records
        self.records = 0
        self.skipped = 0

    def __init_subclass__(cls, **kwargs) -> None:
        """Wraps the subclass's own ``predict_json`` / ``predict_batch_json``."""
        super().__init_subclass__(**kwargs)
        if "predict_json" in cls.__dict__:
            cls.predict_json = _guard_one(cls.__dict__["predict_json"])
        if "predict_batch_json" in cls.__dict__:
            cls.predict_batch_json = _guard_batch(cls.__dict__["predict_batch_json"])

    def load_line(self, line: str) -> JsonDict:
        self.records += 1
        try:
            record = json.loads(line)
            if not isinstance(record, dict):
                raise ValueError(f"a JSON object is expected, not {type(record).__name__}")
        except ValueError as error:  # json.JSONDecodeError is a ValueError
            detail = json_error(error) if isinstance(error, json.JSONDecodeError) else str(error)
            return {BAD: self._message(self.records, detail, line), RECORD: self.records}
        record[RECORD] = self.records
        return record

    def _message(self, number: int, detail: str, text: str) -> str:
        text = text.strip()
        shown = text if len(text) <= 120 else text[:117] + "..."
        return f"input record {number} (non-blank line {number}): {detail}: {shown}"

    def _failed(self, inputs: JsonDict, error: Exception) -> Dict[str, Any]:
        """The output of a bad record when skipping; raises otherwise."""
        number = inputs.get(RECORD)
        message = inputs.get(BAD) or (
            self._message(number, str(error), json.dumps(_clean(inputs)))
            if number is not None else str(error)
        )
        if not self.skip_bad_records:
            raise ValueError(message + ' (--predictor-args \'{"skip_bad_records": true}\' skips '
                             "such records)") from error
        self.skipped += 1
        logger.warning("%s; skipped (%d of %d records so far)", message, self.skipped,
                       self.records)
        return {"skipped_record": number, "error": message}


def _clean(inputs: JsonDict) -> JsonDict:
    return {key: value for key, value in inputs.items() if key not in (RECORD, BAD)}


def _guard_one(predict: Callable) -> Callable:
    @functools.wraps(predict)
    def guarded(self: JsonLinesPredictor, inputs: JsonDict):
        if RECORD not in inputs:  # called from Python, not on a line of an input file
            return predict(self, inputs)
        if BAD in inputs:
            return self._failed(inputs, ValueError(inputs[BAD]))
        try:
            return predict(self, _clean(inputs))
        except RECORD_ERRORS as error:
            return self._failed(inputs, error)

    return guarded


def _guard_batch(predict_batch: Callable) -> Callable:
    @functools.wraps(predict_batch)
    def guarded(self: JsonLinesPredictor, inputs: List[JsonDict]):
        if not any(RECORD in record for record in inputs):
            return predict_batch(self, inputs)
        good = [i for i, record in enumerate(inputs) if BAD not in record]
        try:
            outputs = dict(zip(good, predict_batch(self, [_clean(inputs[i]) for i in good])))
        except RECORD_ERRORS:  # find the bad record(s) one by one
            outputs = {i: guarded_one(self, inputs[i]) for i in good}
        return [outputs[i] if i in outputs else self._failed(record, ValueError(record[BAD]))
                for i, record in enumerate(inputs)]

    def guarded_one(self: JsonLinesPredictor, record: JsonDict):
        try:
            return predict_batch(self, [_clean(record)])[0]
        except RECORD_ERRORS as error:
            return self._failed(record, error)

    return guarded


# Predictors that keep AllenNLP's methods get the same guard.
JsonLinesPredictor.predict_json = _guard_one(Predictor.predict_json)
JsonLinesPredictor.predict_batch_json = _guard_batch(Predictor.predict_batch_json)
