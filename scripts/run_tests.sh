#!/usr/bin/env bash
# Sets up the environment if needed, then runs the linter and the whole test suite.
# Extra arguments go to pytest (e.g. `bash scripts/run_tests.sh tests/linking -k reader`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
.venv/bin/ruff check allennlp_longent tests scripts
.venv/bin/python -m pytest -q -p no:cacheprovider --durations=15 "$@"
