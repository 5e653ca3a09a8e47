"""Needle benchmark on 4K images: how often ``find_region`` finds the needle, and latency per tool call.

Run from the repository root: ``python -m benchmarks.bench_zoom [--n 30] [--seed 0]``. For each item the tool is
asked for the item's ``meta.target`` (what an orchestrator would pass: "red star", "yellow label", "HARBOR"):

- shape and word items are found when the best match's box overlaps the true box (shapes: IoU >= 0.3; words:
  each box's centre lies in the other, as detector boxes are padded) and its quadrant is the answer;
- label items are found when OCR (``read_text``) of the best match's box reads the word (as the OCR skill reads
  "the text on the yellow label"; the padded crop would also show parts of the neighbouring words);
- each shape item is also searched at 8K (pixels doubled) to show the downscale-first search holds its cost.

Latency is reported per call: ``find_region`` per kind, and the follow-up ``read_text`` of the label's box.
"""

from __future__ import annotations

import argparse
import re
import statistics
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

from PIL import Image

from agents.evaluation.answers import match_answer
from benchmarks.synthetic import needles
from vision_tools.image import Box, load_image
from vision_tools.text import read_text
from vision_tools.zoom import find_region

_EFFORT = re.compile(r"read (\d+) of (\d+) detected lines")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


def _locates(found: Box, truth: Box, kind: str) -> bool:
    """Shapes: IoU >= 0.3. Words: mutual centring, since text-detector boxes are padded well beyond the ink."""
    if kind != "word":
        return found.iou(truth) >= 0.3
    cx, cy = truth.center
    fx, _ = found.center
    return found.x0 <= cx <= found.x1 and found.y0 <= cy <= found.y1 and \
        truth.x0 - truth.height <= fx <= truth.x1 + truth.height


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--show-errors", action="store_true")
    parser.add_argument("--no-8k", dest="eight_k", action="store_false", help="skip the 8K copies of shape items")
    args = parser.parse_args()

    found: dict[str, list[bool]] = defaultdict(list)
    timings: dict[str, list[float]] = defaultdict(list)
    errors = []
    efforts: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        started = time.perf_counter()
        items = needles.generate(out, args.n, seed=args.seed)
        generation = time.perf_counter() - started
        read_text(load_image(out / items[0]["image"]).crop((0, 0, 400, 200)))  # model warm-up, not timed
        for item in items:
            image = load_image(out / item["image"])
            meta = item["meta"]
            kind = "text" if meta["kind"] == "word" else "auto"
            started = time.perf_counter()
            result = find_region(image, meta["target"], kind=kind)
            timings[f"find_region[{meta['kind']}]"].append(time.perf_counter() - started)
            if result.kind == "text":
                efforts.append(result.effort)
            best = result.matches[0] if result.matches else None
            truth = Box(*meta["box"])
            if best is None:
                ok, got = False, "(nothing)"
            elif meta["kind"] == "label":
                started = time.perf_counter()
                reading = read_text(image, region=best.box)
                timings["read_text[label box]"].append(time.perf_counter() - started)
                got = " ".join(reading.text.split())
                ok = match_answer(got, item["answer"], kind="exact")
            else:
                got = f"{best.quadrant} iou={best.box.iou(truth):.2f} {best.label}"
                ok = _locates(best.box, truth, meta["kind"]) and match_answer(best.quadrant, item["answer"], kind="exact")
            found[item["category"]].append(ok)
            if not ok:
                errors.append((item["id"], meta["target"], item["answer"], got))
            if meta["kind"] == "shape" and args.eight_k:
                # The same scene at 8K (7680x4320, pixels doubled): the downscale-first search should cost the same.
                big = image.resize((image.width * 2, image.height * 2), Image.Resampling.NEAREST)
                started = time.perf_counter()
                result = find_region(big, meta["target"])
                timings["find_region[shape, 8K]"].append(time.perf_counter() - started)
                big_truth = Box(*(2 * v for v in meta["box"]))
                best = result.matches[0] if result.matches else None
                found["needle_shape_8k"].append(best is not None and best.box.iou(big_truth) >= 0.3
                                                and best.quadrant == item["answer"])

    print(f"Needle benchmark: {len(items)} images of {needles.SIZE[0]}x{needles.SIZE[1]}, seed {args.seed} "
          f"(generated in {generation:.1f} s)")
    print(f"{'category':<16}{'n':>4}{'found':>9}")
    for category in sorted(found):
        n = len(found[category])
        print(f"{category:<16}{n:>4}{sum(found[category]) / n:>9.1%}")
    everything = [v for vs in found.values() for v in vs]
    print(f"{'all':<16}{len(everything):>4}{sum(everything) / len(everything):>9.1%}")
    for name, values in sorted(timings.items()):
        print(f"{name:<24} n={len(values):>3} p50 {statistics.median(values):.3f} s  p95 {percentile(values, 95):.3f} s")
    if efforts:
        counts = [tuple(int(v) for v in m.groups()) for m in map(_EFFORT.search, efforts) if m]
        passes = Counter(effort.rsplit("(", 1)[-1].rstrip(")") for effort in efforts)
        print(f"text search: lines read / detected, median {statistics.median(r for r, _ in counts):.0f} / "
              f"{statistics.median(d for _, d in counts):.0f}; passes: "
              + ", ".join(f"{name} {n}" for name, n in passes.most_common()))
    if args.show_errors:
        for error in errors:
            print("  MISS", *error, sep=" | ")


if __name__ == "__main__":
    main()
