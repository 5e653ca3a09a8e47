"""OCR benchmark on rendered text: exact transcription rate per category and latency per ``read_text`` call.

Run from the repository root: ``python -m benchmarks.bench_ocr [--n 60] [--seed 0] [--backend rapidocr]``.
"Exact" is strict: the OCR text, rows joined by spaces and whitespace collapsed, equals the rendered text
character for character (case included). "Match" is the evaluation's rule (``agents.evaluation.answers.match_answer``:
case, punctuation and articles ignored). Latency includes upscaling and ordering; the first call, which loads the
models, is timed separately as warm-up.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from agents.evaluation.answers import match_answer
from benchmarks.synthetic import text as text_gen
from vision_tools.image import load_image
from vision_tools.text import read_text


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--backend", default="rapidocr")
    parser.add_argument("--show-errors", action="store_true")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        items = text_gen.generate(out, args.n, seed=args.seed)
        started = time.perf_counter()
        read_text(load_image(out / items[0]["image"]), backend=args.backend)
        warmup = time.perf_counter() - started

        exact: dict[str, list[bool]] = defaultdict(list)
        matched: dict[str, list[bool]] = defaultdict(list)
        latencies: list[float] = []
        errors = []
        for item in items:
            image = load_image(out / item["image"])
            started = time.perf_counter()
            result = read_text(image, backend=args.backend)
            latencies.append(time.perf_counter() - started)
            got = " ".join(result.text.split())
            ok = got == item["answer"]
            exact[item["category"]].append(ok)
            matched[item["category"]].append(match_answer(got, item["answer"], kind="exact"))
            if not ok:
                errors.append((item["id"], item["meta"]["font"], item["meta"]["size"], item["answer"], got))

    print(f"OCR benchmark: {len(items)} rendered-text images, back end {args.backend}, seed {args.seed}")
    print(f"{'category':<18}{'n':>4}{'exact':>9}{'match':>9}")
    for category in sorted(exact):
        n = len(exact[category])
        print(f"{category:<18}{n:>4}{sum(exact[category]) / n:>9.1%}{sum(matched[category]) / n:>9.1%}")
    all_exact = [v for vs in exact.values() for v in vs]
    all_match = [v for vs in matched.values() for v in vs]
    print(f"{'all':<18}{len(all_exact):>4}{sum(all_exact) / len(all_exact):>9.1%}{sum(all_match) / len(all_match):>9.1%}")
    print(f"read_text latency: p50 {statistics.median(latencies):.3f} s, p95 {percentile(latencies, 95):.3f} s, "
          f"max {max(latencies):.3f} s; warm-up (model load + first call) {warmup:.2f} s")
    if args.show_errors:
        for error in errors:
            print("  MISS", *error, sep=" | ")


if __name__ == "__main__":
    main()
