"""The loop's own overhead per step: wall time minus the policy's, the tools' and the expert's time.

Runs the real default stack (keyword policy, OCR skill, RapidOCR, SQLite storage in a temporary data directory) on
a rendered sign N times and prints the median and p95 of the per-step overhead, both as the loop measures it
inside a step and including the storage commits (run wall time minus all policy/tool/expert time, per step).

    python -m benchmarks.bench_loop [--runs 50]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from agents.config import Settings
from agents.runtime import Maestro


def sign_image() -> Image.Image:
    image = Image.new("RGB", (480, 200), (250, 250, 245))
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf", 56)
    draw.rectangle((10, 10, 470, 190), outline=(180, 20, 20), width=8)
    draw.text((40, 65), "OPEN LATE", fill=(20, 20, 20), font=font)
    return image


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        maestro = Maestro.open(Settings.resolve(data_dir=Path(home)))
        image = sign_image()
        maestro.ask(image, "What is written on the sign?")  # warm-up: loads the OCR models
        inside: list[float] = []
        with_storage: list[float] = []
        answers = set()
        for _ in range(args.runs):
            started = time.perf_counter()
            run = maestro.ask(image, "What is written on the sign?")
            wall = (time.perf_counter() - started) * 1000
            answers.add(run.answer)
            inside += [step.overhead_ms for step in run.steps]
            work = sum(s.policy_ms + s.tool_ms + s.expert_ms for s in run.steps)
            with_storage.append((wall - work) / len(run.steps))
    print(f"runs: {args.runs}, steps per run: {len(run.steps)}, answers: {sorted(map(str, answers))}")
    print(f"loop overhead per step (inside the step): median {statistics.median(inside):.3f} ms, "
          f"p95 {percentile(inside, 95):.3f} ms")
    print(f"loop overhead per step incl. storage commits and image store: median {statistics.median(with_storage):.3f} ms, "
          f"p95 {percentile(with_storage, 95):.3f} ms")


if __name__ == "__main__":
    main()
