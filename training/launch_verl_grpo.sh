#!/usr/bin/env bash
# GRPO training of the Maestro orchestrator with verl on a GPU host (paper appendix D.4 settings).
#
#   training/launch_verl_grpo.sh EXPORT_DIR [hydra overrides ...]
#
# EXPORT_DIR is a `maestro export --format verl` folder (verl_train.parquet + images/). Environment:
#   MAESTRO_POLICY_MODEL  policy to train (default Qwen/Qwen3-VL-4B-Thinking; a local folder works)
#   MAESTRO_REGISTRY      registry whose experts the rollouts call (default: the repo's assets/registry.yaml);
#                         start its vLLM experts first with `maestro serve-experts`
#   MAESTRO_VAL_FILES     validation parquet (default: the training file, i.e. no held-out set)
#   N_GPUS                GPUs on this node (default 4, as in the paper)
# Needs, in this Python environment: verl with vLLM, and this repository's requirements (pip install -e .).
set -euo pipefail

if [[ $# -lt 1 || ! -f "$1/verl_train.parquet" ]]; then
    echo "usage: $0 EXPORT_DIR [hydra overrides...]  (EXPORT_DIR must hold verl_train.parquet)" >&2
    exit 2
fi
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
EXPORT="$(cd "$1" && pwd)"
shift

export MAESTRO_REPO="$REPO" MAESTRO_EXPORT="$EXPORT"
export MAESTRO_REGISTRY="${MAESTRO_REGISTRY:-$REPO/assets/registry.yaml}"
export PYTHONPATH="$REPO${PYTHONPATH:+:$PYTHONPATH}"
export HYDRA_FULL_ERROR=1

# verl's workers do not run inside the export folder, so the relative image paths are made absolute in a copy.
TRAIN="$EXPORT/verl_train.abs.parquet"
python3 - "$EXPORT" "$TRAIN" <<'PY'
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

root, target = Path(sys.argv[1]), Path(sys.argv[2])
rows = pq.read_table(root / "verl_train.parquet").to_pylist()
for row in rows:
    for image in row["images"]:
        image["image"] = str((root / image["image"]).resolve())
        if not Path(image["image"]).is_file():
            sys.exit(f"missing image {image['image']}")
pq.write_table(pa.Table.from_pylist(rows), target)
print(f"{len(rows)} prompts -> {target}")
PY
export MAESTRO_TRAIN_FILES="$TRAIN"
export MAESTRO_VAL_FILES="${MAESTRO_VAL_FILES:-$TRAIN}"

python3 -m verl.trainer.main_ppo \
    --config-path="$REPO/training" \
    --config-name=verl_grpo \
    trainer.n_gpus_per_node="${N_GPUS:-4}" \
    "$@"
