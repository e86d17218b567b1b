#!/usr/bin/env bash
# Screenshot an HTML file in headless Chromium (Debian: apt-get install -y chromium), offline:
#   bash scripts/linking/screenshot_html.sh PAGE.html OUT.png [WIDTH,HEIGHT] [#FRAGMENT]
# A fragment such as #mention-0-1 opens that mention's candidate box (CSS :target), as hovering would.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 PAGE.html OUT.png [WIDTH,HEIGHT] [#FRAGMENT]" >&2; exit 2; }
page="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
[ -f "$page" ] || { echo "no such file: $page" >&2; exit 1; }
out="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"
size="${3:-1100,900}"
browser="$(command -v chromium || command -v chromium-browser || true)"
[ -n "$browser" ] || { echo "chromium not found (Debian: apt-get install -y chromium)" >&2; exit 1; }
profile="$(mktemp -d)"
trap 'rm -rf "$profile"' EXIT
"$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
  --disable-component-update --disable-sync --no-first-run --hide-scrollbars \
  --user-data-dir="$profile" --window-size="$size" --screenshot="$out" "file://$page${4:-}" \
  2> >(grep -v -e dbus -e Fontconfig -e "unexpected operator" >&2 || true)  # launcher noise
[ -s "$out" ] || { echo "chromium wrote no screenshot to $out" >&2; exit 1; }
echo "$out"
