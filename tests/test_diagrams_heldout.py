"""Diagram tools on held-out drawings: BlindTest-style images drawn fresh here (matplotlib, as the benchmark does)
at stroke widths from 0.5 to 4 px, sizes from 384 to 1155 px, black, faint gray or coloured ink. No dev item is
reused, so these check the *kind* of image the tools were built for, not the dev set they were tuned on."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from benchmarks.synthetic.diagrams import WIDTHS_PX, generate
from vision_tools.diagrams import (
    circles_touch,
    count_line_crossings,
    count_nested_squares,
    count_overlapping_shapes,
    grid_shape,
)

pytest.importorskip("matplotlib")


def _items(tmp_path: Path, categories: tuple[str, ...], n: int, seed: int, widths: tuple[float, ...] = WIDTHS_PX):
    for item in generate(tmp_path, n, seed, categories=categories, widths=widths):
        yield item, Image.open(tmp_path / item["image"]).convert("RGB")


@pytest.mark.parametrize("width", WIDTHS_PX)
def test_overlapping_circles_and_pentagons_are_counted_at_every_stroke_width(tmp_path: Path, width: float) -> None:
    wrong = []
    for item, image in _items(tmp_path, ("circles", "pentagons"), 8, seed=int(width * 10), widths=(width,)):
        shape = "circle" if item["category"] == "diagram_circles" else "pentagon"
        result = count_overlapping_shapes(image, shape)
        if result.answer != item["answer"]:
            wrong.append((item["id"], item["meta"], item["answer"], result.summary()))
    assert not wrong


def test_faint_half_pixel_outlines_are_not_invisible(tmp_path: Path) -> None:
    # 0.5 px strokes in light gray or pastel never reach a quarter of full contrast; they are still outlines.
    for item, image in _items(tmp_path, ("circles", "nested_squares"), 8, seed=11, widths=(0.5,)):
        count = (count_overlapping_shapes(image, "circle") if item["category"] == "diagram_circles"
                 else count_nested_squares(image))
        assert count.answer == item["answer"], (item["meta"], count.summary())
        assert count.confidence >= 0.9


@pytest.mark.slow
def test_nested_squares_grids_crossings_and_touching_circles(tmp_path: Path) -> None:
    tools = {"diagram_nested_squares": lambda image, meta: count_nested_squares(image).answer,
             "diagram_grid": lambda image, meta: f"({grid_shape(image).rows},{grid_shape(image).columns})",
             "diagram_crossings": lambda image, meta: count_line_crossings(image, *meta["colours"]).answer,
             "diagram_touching": lambda image, meta: circles_touch(image).answer}
    wrong = []
    for item, image in _items(tmp_path, ("nested_squares", "grid", "crossings", "touching"), 40, seed=3):
        meta = item["meta"]
        expected = f"({meta['rows']},{meta['columns']})" if item["category"] == "diagram_grid" else item["answer"]
        got = tools[item["category"]](image, meta)
        if got != expected:
            wrong.append((item["id"], meta, expected, got))
    assert not wrong
