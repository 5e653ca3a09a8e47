"""The layout of a document page from its OCR lines: skew, visual rows, and which line sits right of or below another.

Scanned receipts are often turned by a degree or two; on a 900-pixel-wide receipt that moves the right column
15 pixels down, enough to put an amount on the wrong row. The skew is the median slope of the long lines' top
edges (the detector returns rotated rectangles), and rows are built on line centres turned back by that angle.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vision_tools.documents import config
from vision_tools.text import OcrLine


@dataclass(frozen=True)
class Placed:
    """An OCR line with its position on the levelled page (``x0..y1``) and its row number."""

    line: OcrLine
    index: int  # position in reading order
    row: int
    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def text(self) -> str:
        return self.line.text

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    @property
    def cy(self) -> float:
        return (self.y0 + self.y1) / 2


@dataclass
class Layout:
    """Lines of one page in reading order, grouped into levelled rows (``Layout.of`` builds one from OCR lines).

    A plain dataclass of values, so a tool's result holding it can be stored and reused by a cached rerun."""

    image_size: tuple[int, int]
    skew: float  # degrees, as ``estimate_skew``
    lines: list[Placed]  # reading order
    rows: list[list[Placed]]  # the same lines, row by row
    line_height: float  # median line height, in levelled pixels

    @classmethod
    def of(cls, lines: list[OcrLine], image_size: tuple[int, int]) -> Layout:
        skew = estimate_skew(lines)
        levelled = [_levelled(line, skew, image_size) for line in lines]
        placed_rows: list[list[Placed]] = []
        placed_lines: list[Placed] = []
        for r, row in enumerate(_group_rows(levelled)):
            placed_row = []
            for line, (x0, y0, x1, y1) in row:
                placed = Placed(line, len(placed_lines), r, x0, y0, x1, y1)
                placed_lines.append(placed)
                placed_row.append(placed)
            placed_rows.append(placed_row)
        heights = [p.height for p in placed_lines]
        return cls(image_size, skew, placed_lines, placed_rows, float(np.median(heights)) if heights else 0.0)

    def row_text(self, row: int) -> str:
        return " ".join(p.text for p in self.rows[row])

    def right_of(self, placed: Placed) -> list[Placed]:
        """Lines on ``placed``'s row that start right of it, nearest first."""
        return [p for p in self.rows[placed.row] if p.index != placed.index and p.x0 >= placed.x1 - 0.3 * placed.height]

    def below(self, placed: Placed, max_rows: int = 1) -> list[Placed]:
        """Lines in the next ``max_rows`` rows under ``placed``, close enough to read as its continuation, that
        overlap it horizontally or start right of it; nearest row first, left to right."""
        out = []
        for row in self.rows[placed.row + 1: placed.row + 1 + max_rows]:
            for p in row:
                gap = p.y0 - placed.y1
                if gap <= 1.5 * max(placed.height, self.line_height) and p.x1 > placed.x0:
                    out.append(p)
        return out


def estimate_skew(lines: list[OcrLine]) -> float:
    """The page's skew in degrees: the median top-edge slope of its long lines (0 when fewer than three)."""
    ratio = config.CONFIG.long_line_ratio
    angles = [line.angle for line in lines if line.box.width >= ratio * max(line.box.height, 1.0)]
    if len(angles) < 3:
        return 0.0
    skew = float(np.median(angles))
    return skew if abs(skew) <= config.CONFIG.max_skew_degrees else 0.0


def _levelled(line: OcrLine, skew: float, size: tuple[int, int]) -> tuple[OcrLine, tuple[float, float, float, float]]:
    """``line``'s box moved so that its centre is where it would be on the page turned back by ``skew``; the
    box keeps its size (the detector's box of a skewed line is only a little taller than the line)."""
    cx, cy = line.box.center
    ox, oy = size[0] / 2, size[1] / 2
    theta = math.radians(-skew)
    dx, dy = cx - ox, cy - oy
    nx = ox + dx * math.cos(theta) - dy * math.sin(theta)
    ny = oy + dx * math.sin(theta) + dy * math.cos(theta)
    # The box of a turned line is taller than its text by its width times the slope; take that back out.
    slope = abs(line.box.width * math.tan(math.radians(skew)))
    height = max(0.6 * line.box.height, line.box.height - slope, 1.0)
    half_w, half_h = line.box.width / 2, height / 2
    return line, (nx - half_w, ny - half_h, nx + half_w, ny + half_h)


def _group_rows(items: list[tuple[OcrLine, tuple[float, float, float, float]]]
                ) -> list[list[tuple[OcrLine, tuple[float, float, float, float]]]]:
    """Rows by vertical overlap of the levelled boxes: top to bottom, left to right inside a row."""
    rows: list[list[tuple[OcrLine, tuple[float, float, float, float]]]] = []
    spans: list[tuple[float, float]] = []
    for item in sorted(items, key=lambda it: ((it[1][1] + it[1][3]) / 2, it[1][0])):
        _, (x0, y0, x1, y1) = item
        best, best_overlap = None, 0.0
        for i, (top, bottom) in enumerate(spans):
            overlap = min(bottom, y1) - max(top, y0)
            # Half the smaller height: neighbours on one row overlap nearly fully, stacked lines barely at all.
            if overlap >= 0.5 * min(bottom - top, y1 - y0) and overlap > best_overlap:
                best, best_overlap = i, overlap
        if best is None:
            rows.append([item])
            spans.append((y0, y1))
        else:
            rows[best].append(item)
    order = sorted(range(len(rows)), key=lambda i: sum(spans[i]))
    return [sorted(rows[i], key=lambda it: it[1][0]) for i in order]
