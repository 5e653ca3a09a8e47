#!/usr/bin/env bash
# Refit the shipped calibration (assets/calibration.json) from the dev sets' tuning splits, in one command:
#   scripts/fit_calibration.sh [WORK_DIR] [CONCURRENCY]
# Evaluates BlindTest, SROIE, Misleading ChartQA (../shared/datasets), the synthetic mix (seeds 0 and 1, 40 per
# generator) and the notices benchmark (seeds 0 and 1, 100 signs each: the labelled record of the sign-reading rules)
# through the default registry into WORK_DIR (default /tmp/maestro-calibration), then fits on the
# tuning split of every folder and prints the per-set tables (validation apart). An existing results folder is
# resumed, not redone, so a second call only refits. See docs/trust.md.
set -euo pipefail
cd "$(dirname "$0")/.."
WORK="${1:-/tmp/maestro-calibration}"
CONC="${2:-1}"
PY=.venv/bin/python
DATA=../shared/datasets
mkdir -p "$WORK"
for seed in 0 1; do
  [ -f "$WORK/synthetic-$seed/items.jsonl" ] || $PY -m benchmarks.make_synthetic "$WORK/synthetic-$seed" --per-kind 40 --seed $seed
  [ -f "$WORK/notices-$seed/items.jsonl" ] || $PY -m benchmarks.synthetic.notices "$WORK/notices-$seed" --n 100 --seed $seed
done
run_eval() {  # dataset folder
  $PY -m ui.cli eval "$1" --out "$2" --concurrency "$CONC" --resume --data-dir "$WORK/home"
}
run_eval "$DATA/blindtest-dev/items.jsonl" "$WORK/eval/blindtest-dev"
run_eval "$DATA/sroie-dev/items.jsonl" "$WORK/eval/sroie-dev"
run_eval "$DATA/misleading-chartqa-dev/items.jsonl" "$WORK/eval/misleading-chartqa-dev"
for seed in 0 1; do run_eval "$WORK/synthetic-$seed/items.jsonl" "$WORK/eval/synthetic-$seed"; done
for seed in 0 1; do run_eval "$WORK/notices-$seed/items.jsonl" "$WORK/eval/notices-$seed"; done
$PY -m ui.cli calibrate "$WORK"/eval/* --data-dir "$WORK/home" --out assets/calibration.json --plots "$WORK/plots"
