#!/usr/bin/env bash
# Creates .venv (if missing) and installs Maestro into it with the given extras, keeping the CPU build of torch.
# Usage: scripts/setup_env.sh [EXTRAS]   e.g. scripts/setup_env.sh test,transformers
# A stamp in .venv records what the last install was made from, so that a second call with nothing changed skips
# pip (scripts/test.sh calls this on every run). `rm .venv/.maestro-install-stamp` forces a full install.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"
python="${PYTHON:-python3}"
stamp=.venv/.maestro-install-stamp
# Everything an install depends on besides the code itself (the install is editable, so code edits need none):
# the dependencies and their pins, this script's pip commands, and the top-level packages the editable finder maps.
inputs_hash="$( { cat pyproject.toml constraints.txt scripts/setup_env.sh; ls -d ./*/__init__.py; } \
  | sha256sum | cut -d' ' -f1)"
# The stamp is that hash on its first line, then every extra installed from those inputs, one a line.
stamped_extras=""
if [ -x .venv/bin/python ] && [ -f "$stamp" ] && [ "$(head -n 1 "$stamp")" = "$inputs_hash" ]; then
  stamped_extras="$(tail -n +2 "$stamp")"
  up_to_date=1
  for extra in ${extras//,/ }; do
    grep -qxF -- "$extra" <<<"$stamped_extras" || up_to_date=0
  done
  if [ "$up_to_date" = 1 ]; then
    echo "setup_env: .venv already installed from these files${extras:+ with [$extras]}; skipping pip"
    exit 0
  fi
fi
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
# No stamp while pip works: an install that stops half-way must not be taken for a finished one.
rm -f "$stamp"
.venv/bin/python -m pip install --quiet --upgrade pip
spec="."
if [ -n "$extras" ]; then spec=".[${extras}]"; fi
.venv/bin/python -m pip install --quiet -c constraints.txt -e "$spec"
# Extras installed earlier from the same inputs are still there: keep them in the stamp, once each.
printf '%s\n' "$inputs_hash" $stamped_extras ${extras//,/ } | awk 'NR == 1 || !seen[$0]++' >"$stamp"
