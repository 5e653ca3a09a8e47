#!/usr/bin/env bash
# Creates .venv (if missing) and installs Maestro into it with the given extras, keeping the CPU build of torch.
# Usage: scripts/setup_env.sh [EXTRAS]   e.g. scripts/setup_env.sh test,transformers
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"
python="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
spec="."
if [ -n "$extras" ]; then spec=".[${extras}]"; fi
.venv/bin/python -m pip install --quiet -c constraints.txt -e "$spec"
