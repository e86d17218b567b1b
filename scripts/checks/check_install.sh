#!/usr/bin/env bash
# Installs the plugin as a user would, in a fresh virtual environment, and measures what issue 10
# asks: `pip install .`, the README's extra step, `import allennlp_longent.components`,
# `spacy.blank("en")` with and without the plugin installed (interleaved rounds, wall and CPU
# seconds, ratio of the means), and `longent --help`.
#   bash scripts/checks/check_install.sh [VENV]    (default: a new folder from mktemp; an existing VENV
#                                            that already has the plugin skips the install)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="${1:-$(mktemp -d)/venv}"
py="$venv/bin/python"
work="$(mktemp -d)"
if [ ! -x "$py" ]; then
  python3 -m venv "$venv"
  echo "== pip install . (fresh venv $venv)"
  (cd "$work" && /usr/bin/time -f "pip install .: %e s wall, %U+%S s CPU" "$py" -m pip install -q "$repo")
  rm -rf "$repo/build" "$repo/allennlp_longent.egg-info"
  echo "== the README's extra step"
  "$py" -m pip install -q --no-deps allennlp==2.10.1
fi
"$py" -c "import allennlp_longent.components; print('import allennlp_longent.components: ok')"
had_egg_info=0; [ -d "$repo/allennlp_longent.egg-info" ] && had_egg_info=1
"$py" -m pip wheel -q --no-deps "$repo" -w "$work/wheel" >/dev/null
rm -rf "$repo/build"
[ "$had_egg_info" = 1 ] || rm -rf "$repo/allennlp_longent.egg-info"
cd "$work"  # not the repository: its egg-info would advertise the entry point without install
wheel="$(ls "$work"/wheel/allennlp_longent-*.whl)"
measure() {  # label -> appends "wall cpu" to $work/$label
  /usr/bin/time -f "%e %U %S" -o "$work/t" "$py" -X importtime -c "import spacy; spacy.blank('en')" \
    2>"$work/importtime.$1"
  read -r wall user sys <"$work/t"
  echo "$wall $(echo "$user + $sys" | bc)" >>"$work/$1"
  echo "  $1: $wall s wall, $(echo "$user + $sys" | bc) s CPU; plugin modules imported:" \
    "$(grep -c 'allennlp_longent' "$work/importtime.$1" || true)"
}
echo "== spacy.blank('en'): with / without the plugin installed, 3 interleaved rounds"
for round in 1 2 3; do
  measure with
  "$py" -m pip uninstall -q -y allennlp-longent
  measure without
  "$py" -m pip install -q --no-deps "$wheel"
done
awk 'FNR==1{f++} {w[f]+=$1; c[f]+=$2; n[f]++} END {
  printf "ratio with/without: wall %.2fx, CPU %.2fx\n", (w[1]/n[1])/(w[2]/n[2]), (c[1]/n[1])/(c[2]/n[2]) }' \
  "$work/with" "$work/without"
echo "== longent --help"
for i in 1 2 3; do /usr/bin/time -f "  %e s wall, %U+%S s CPU" "$venv/bin/longent" --help >/dev/null; done
rm -rf "$work"
