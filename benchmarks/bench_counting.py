"""Benchmark of counting by detection and geometry primitives: accuracy per task and latency per tool call.

Run from the repository root: ``python -m benchmarks.bench_counting [--n 200] [--seed 1]``.
Tasks:
- synthetic shapes (benchmarks/synthetic/shapes.py): the item's question answered by ``count_shapes`` with the
  item's target, per category; plus "inventory": every (colour, kind) count of an image right at once;
- BlindTest dev (if present): counting_circles / counting_pentagons / nested_squares with ``count_shapes`` —
  overlapping thin outlines, which the diagram tools are built for; reported for reference;
- round objects: rendered coins with inner details, ``count_round_objects``;
- geometry: random triangles, all three angles within 2 degrees by ``geometry_primitives``.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from benchmarks.synthetic.shapes import generate
from vision_tools.detection import count_round_objects, count_shapes, find_shapes
from vision_tools.geometry import geometry_primitives

BLINDTEST = Path(__file__).resolve().parent.parent.parent / "shared" / "datasets" / "blindtest-dev"
_BLIND_SHAPE = {"counting_circles": "circle", "counting_pentagons": "pentagon", "nested_squares": "square"}


def _timed(fn, *args, **kwargs):  # noqa: ANN001, ANN202 - thin timing wrapper
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - start


def _latency(name: str, times: list[float]) -> str:
    arr = np.asarray(times)
    return f"  {name:<22} n={len(arr):<4} p50={np.percentile(arr, 50):.3f}s p95={np.percentile(arr, 95):.3f}s"


def bench_shapes(n: int, seed: int, times: dict[str, list[float]]) -> dict[str, tuple[int, int]]:
    scores: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    with tempfile.TemporaryDirectory() as tmp:
        items = generate(Path(tmp), n, seed=seed)
        for it in items:
            image = Image.open(Path(tmp) / it["image"]).convert("RGB")
            result, dt = _timed(count_shapes, image, it["target"]["shape"], it["target"]["colour"])
            times["count_shapes"].append(dt)
            cat = it["category"]
            scores[cat][0] += int(result.answer == it["answer"])
            scores[cat][1] += 1
            found = Counter((s.colour, s.kind) for s in find_shapes(np.asarray(image)) if s.kind not in ("other", "line"))
            want = Counter((o["colour"], o["kind"]) for o in it["objects"])
            scores["inventory (all counts)"][0] += int(found == want)
            scores["inventory (all counts)"][1] += 1
            if found != want:
                print(f"    miss {it['id']} ({it['background']}, {it['style']}): missing {dict(want - found)} "
                      f"extra {dict(found - want)}")
    return {k: (v[0], v[1]) for k, v in scores.items()}


def bench_blindtest(times: dict[str, list[float]]) -> dict[str, tuple[int, int]]:
    scores: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    if not (BLINDTEST / "items.jsonl").exists():
        return {}
    for line in (BLINDTEST / "items.jsonl").read_text().splitlines():
        it = json.loads(line)
        shape = _BLIND_SHAPE.get(it["category"])
        if shape is None:
            continue
        image = Image.open(BLINDTEST / it["image"]).convert("RGB")
        result, dt = _timed(count_shapes, image, shape)
        times["count_shapes"].append(dt)
        # Reference only: the Counting skill sends these to the diagram tools (bench_blindtest: 100 %).
        label = f"ref. blindtest {it['category']} by count_shapes"
        scores[label][0] += int(result.answer == it["answer"])
        scores[label][1] += 1
    return {k: (v[0], v[1]) for k, v in scores.items()}


def bench_round(n: int, seed: int, times: dict[str, list[float]]) -> tuple[int, int]:
    rng = random.Random(seed)
    right = 0
    for _ in range(n):
        img = Image.new("RGB", (800, 600), tuple(rng.randint(200, 245) for _ in range(3)))
        d = ImageDraw.Draw(img)
        placed: list[tuple[int, int, int]] = []
        for _ in range(rng.randint(2, 12)):
            r = rng.randint(20, 60)
            for _ in range(50):
                x, y = rng.randint(r + 2, 798 - r), rng.randint(r + 2, 598 - r)
                if all(math.hypot(x - a, y - b) > r + c + 4 for a, b, c in placed):
                    placed.append((x, y, r))
                    fill = tuple(rng.randint(60, 180) for _ in range(3))
                    d.ellipse((x - r, y - r, x + r, y + r), fill=fill, outline=(40, 40, 40), width=3)
                    d.ellipse((x - r // 3, y - r // 3, x + r // 3, y + r // 3), outline=(40, 40, 40), width=2)
                    break
        result, dt = _timed(count_round_objects, img)
        times["count_round_objects"].append(dt)
        right += int(result.count == len(placed))
    return right, n


def bench_geometry(n: int, seed: int, times: dict[str, list[float]]) -> tuple[int, int]:
    rng = random.Random(seed)
    right = 0
    for _ in range(n):
        while True:
            pts = [(rng.randint(60, 740), rng.randint(60, 540)) for _ in range(3)]
            sides = [math.dist(pts[i], pts[(i + 1) % 3]) for i in range(3)]
            angles = [_interior(pts, i) for i in range(3)]
            if min(sides) > 150 and min(angles) > 20:
                break
        img = Image.new("RGB", (800, 600), "white")
        d = ImageDraw.Draw(img)
        d.polygon(pts, outline="black", width=3)
        result, dt = _timed(geometry_primitives, img, read_labels=False)
        times["geometry_primitives"].append(dt)
        got = sorted(a.degrees for a in result.angles)
        right += int(len(got) == 3 and all(abs(g - w) <= 2.0 for g, w in zip(got, sorted(angles), strict=True)))
    return right, n


def _interior(pts: list[tuple[int, int]], i: int) -> float:
    p, a, b = np.array(pts[i]), np.array(pts[i - 1]), np.array(pts[(i + 1) % 3])
    u, v = a - p, b - p
    return math.degrees(math.acos(float(np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v)))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200, help="synthetic shape images")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    times: dict[str, list[float]] = defaultdict(list)
    rows: dict[str, tuple[int, int]] = {}
    rows.update(bench_shapes(args.n, args.seed, times))
    rows.update(bench_blindtest(times))
    rows["round objects (rendered)"] = bench_round(max(10, args.n // 5), args.seed, times)
    rows["geometry triangle angles"] = bench_geometry(max(10, args.n // 5), args.seed, times)
    print("accuracy per task")
    for name, (ok, total) in rows.items():
        print(f"  {name:<48} {ok:>4}/{total:<4} {100.0 * ok / max(total, 1):6.1f}%")
    if any(name.startswith("ref. ") for name in rows):
        print("  (ref. rows: overlapping thin outlines, which the skill counts with the diagram tools instead)")
    print("latency per tool call")
    for name, ts in times.items():
        print(_latency(name, ts))


if __name__ == "__main__":
    main()
