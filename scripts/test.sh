#!/usr/bin/env bash
# One command from a fresh clone: install Maestro with every test dependency and run the whole test suite.
# Browser tests need Debian's Chromium, the code sandbox needs bubblewrap and libseccomp2: installed here when
# running as root; otherwise the tests that need them skip loudly (and the app refuses to run code).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_env.sh test,transformers,router,train
# Debian packages the tests use for real: Chromium (browser tests), Tesseract (second OCR back end), bubblewrap
# and libseccomp2 (the code sandbox: skills/sandbox.py).
missing=""
[ -x /usr/bin/chromium ] || missing="$missing chromium"
command -v tesseract >/dev/null || missing="$missing tesseract-ocr"
command -v bwrap >/dev/null || missing="$missing bubblewrap"
/sbin/ldconfig -p 2>/dev/null | grep -q 'libseccomp\.so\.2' || missing="$missing libseccomp2"
if [ -n "$missing" ] && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  echo "installing Debian packages:$missing"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null) \
    || echo "WARNING: could not install$missing; the tests that need them will be skipped"
fi
.venv/bin/ruff check .
exec .venv/bin/python -m pytest "$@"
