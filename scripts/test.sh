#!/usr/bin/env bash
# One command from a fresh clone: install Maestro with every test dependency and run the whole test suite.
# Browser tests need Debian's Chromium: installed here when running as root, otherwise they skip loudly.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_env.sh test,transformers,router,train
if [ ! -x /usr/bin/chromium ] && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  echo "installing Debian's chromium for the browser tests..."
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null) \
    || echo "WARNING: could not install chromium; browser tests will be skipped"
fi
.venv/bin/ruff check .
exec .venv/bin/python -m pytest "$@"
