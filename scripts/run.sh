#!/usr/bin/env bash
# One command from a fresh clone: install Maestro and launch the web app on the embedded offline default.
# Extra arguments go to app.py (e.g. --port 8080 --data-dir /srv/maestro --auth alice:a-long-secret).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_env.sh
exec .venv/bin/python app.py "$@"
