"""A tiny random LUKE (scripts/make_tiny_luke.py) for the tests of this folder; its path is also
exported as LONGENT_LUKE so the smoke configs can be read."""

import os
import runpy
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session", name="tiny_luke")
def tiny_luke_fixture(tmp_path_factory) -> str:
    script = runpy.run_path(str(REPO_ROOT / "scripts" / "make_tiny_luke.py"))
    path = str(script["write_tiny_luke"](tmp_path_factory.mktemp("tiny_luke")))
    previous = os.environ.get("LONGENT_LUKE")
    os.environ["LONGENT_LUKE"] = path
    yield path
    if previous is None:
        os.environ.pop("LONGENT_LUKE")
    else:
        os.environ["LONGENT_LUKE"] = previous
