#!/usr/bin/env bash
# One command from a fresh clone: install Maestro with every test dependency and run the whole test suite.
# Browser tests need Debian's Chromium, the PostgreSQL tests Debian's postgresql, the code sandbox bubblewrap and
# libseccomp2: installed here when running as root; otherwise those tests skip loudly (and the app refuses to run
# code without its sandbox).
# Arguments go to pytest. With none (CI: .ci/run) every test runs; the fast lane for local work leaves out the tests
# marked slow (over a second or two: model loading, subprocesses), browser and postgres:
#   bash scripts/test.sh -m "not slow and not browser and not postgres"
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_env.sh test,transformers,router,train,postgres
# PostgreSQL server binaries (initdb, pg_ctl) where Debian's package or pg_config puts them.
has_postgres() {
  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && return 0
  command -v pg_config >/dev/null && [ -x "$(pg_config --bindir 2>/dev/null)/initdb" ] && return 0
  command -v initdb >/dev/null
}
# Debian packages the tests use for real: Chromium (browser tests), Tesseract (second OCR back end), PostgreSQL (the
# storage, evaluation and rating tests run on it too; the tests start their own throwaway server), bubblewrap and
# libseccomp2 (the code sandbox: sandbox/).
missing=""
[ -x /usr/bin/chromium ] || missing="$missing chromium"
command -v tesseract >/dev/null || missing="$missing tesseract-ocr"
has_postgres || missing="$missing postgresql"
command -v bwrap >/dev/null || missing="$missing bubblewrap"
/sbin/ldconfig -p 2>/dev/null | grep -q 'libseccomp\.so\.2' || missing="$missing libseccomp2"
if [ -n "$missing" ] && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  echo "installing Debian packages:$missing"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null) \
    || echo "WARNING: could not install$missing; the tests that need them will be skipped"
fi
# Where PostgreSQL is installed and we are root (CI), a server that cannot start is a failure, not a skip.
if [ "$(id -u)" = "0" ] && has_postgres; then
  export MAESTRO_REQUIRE_POSTGRES=1
fi
.venv/bin/ruff check .
# mypy ([tool.mypy] in pyproject.toml: agents, storage, skills, vision_tools, ui, sandbox) runs beside pytest, on the
# other core, so the fast lane does not wait for it. Either failing fails the script; mypy's errors are printed
# after the tests (its success is not, so pytest's summary stays the last line).
mypy_log="$(mktemp)"
echo "mypy: checking in the background (its errors, if any, are printed after the tests)"
.venv/bin/mypy >"$mypy_log" 2>&1 &
mypy_pid=$!
set +e
.venv/bin/python -m pytest "$@"
tests_rc=$?
wait "$mypy_pid"
mypy_rc=$?
set -e
if [ "$mypy_rc" -ne 0 ]; then
  cat "$mypy_log"
  echo "mypy failed (exit $mypy_rc)"
fi
rm -f "$mypy_log"
if [ "$tests_rc" -ne 0 ]; then exit "$tests_rc"; fi
exit "$mypy_rc"
