#!/usr/bin/env bash
# The JupyterLab extension's tests: its pure logic under node's test runner, then the browser
# tests (a real JupyterLab started on a free loopback port, Debian's Chromium through Playwright).
#
#   tests/ui/run_ui_tests.sh [pytest options]     e.g. -k restart, -x
#   PYTHON=/path/to/python tests/ui/run_ui_tests.sh
#
# Builds the extension first if its sources changed (extension/build.sh), installs Chromium
# with apt if it is missing (as root), and the `playwright` Python package if it is missing.
# Playwright never downloads a browser here: the tests use /usr/bin/chromium.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
PY="${PYTHON:-}"
if [ -z "$PY" ]; then
  if [ -x "$REPO/.venv/bin/python" ]; then PY="$REPO/.venv/bin/python"; else PY="$(command -v python3)"; fi
fi
CHROMIUM="${ASCENDCRAFT_CHROMIUM:-/usr/bin/chromium}"
start=$(date +%s)

if [ ! -x "$CHROMIUM" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "run_ui_tests.sh: installing Debian's chromium"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "run_ui_tests.sh: error: no Chromium at $CHROMIUM; install it (apt-get install chromium) or set ASCENDCRAFT_CHROMIUM" >&2
    exit 2
  fi
fi
if ! "$PY" -c "import playwright" 2>/dev/null; then
  echo "run_ui_tests.sh: installing the playwright Python package (no browser download)"
  "$PY" -m pip install -q "playwright>=1.45,<2"
fi

PYTHON="$PY" bash "$REPO/extension/build.sh"

echo "run_ui_tests.sh: unit tests of the view's logic (node --test)"
(cd "$REPO/extension" && node --experimental-detect-module --no-warnings --test --test-reporter=spec test/)

echo "run_ui_tests.sh: browser tests"
status=0
ASCENDCRAFT_UI=1 "$PY" -m pytest -q -p no:cacheprovider "$HERE" "$@" || status=$?
echo "run_ui_tests.sh: done in $(( $(date +%s) - start )) s (screenshots in tests/ui/artifacts/)"
exit $status
