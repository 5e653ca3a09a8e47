"""Every vision tool in one command: BlindTest dev (diagram primitives) and the synthetic sets (text, needles in 4K,
shapes, charts), each printing accuracy per task and latency p50/p95 per tool call.

    python -m benchmarks.bench_vision [--n 60] [--seed 0] [--only blindtest ocr zoom counting charts]

It runs the per-tool benchmarks one after another in fresh processes (so model loading and memory of one do not
colour the next) and passes ``--n``/``--seed`` to those that generate data.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

SUITES = {
    "blindtest": [],
    "ocr": ["--n", "{n}", "--seed", "{seed}"],
    "zoom": ["--n", "{n}", "--seed", "{seed}"],
    "counting": ["--n", "{n}", "--seed", "{seed}"],
    "charts": ["--n", "{n}", "--seed", "{seed}"],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=60, help="items per synthetic suite")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", nargs="*", choices=list(SUITES), default=list(SUITES))
    args = parser.parse_args()
    failed = []
    for suite in args.only:
        extra = [a.format(n=args.n, seed=args.seed) for a in SUITES[suite]]
        print(f"\n===== {suite} =====", flush=True)
        started = time.perf_counter()
        code = subprocess.call([sys.executable, "-m", f"benchmarks.bench_{suite}", *extra])
        print(f"({suite}: {time.perf_counter() - started:.0f} s, exit {code})", flush=True)
        if code:
            failed.append(suite)
    if failed:
        sys.exit(f"failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
