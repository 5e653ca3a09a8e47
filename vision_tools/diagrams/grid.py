"""Rows and columns of a ruled grid or table, read from its long horizontal and vertical lines.

Only strokes that run a large part of the grid's width (or height) count as grid lines, so text inside the cells
never adds rows. The result is cross-checked by counting the enclosed cells, which must equal rows x columns.
"""

from __future__ import annotations

import cv2
import numpy as np
from PIL import Image

from vision_tools.diagrams import config
from vision_tools.diagrams.common import annotate, as_rgb_array, ink_strength, stretch_faint_ink
from vision_tools.diagrams.results import GridResult
from vision_tools.image.boxes import Box


def _line_positions(ink: np.ndarray, axis: int, extent: int) -> list[float]:
    """Centres of the long lines of ``ink``: axis 0 finds horizontal lines (y values), axis 1 vertical (x)."""
    length = max(8, extent // 12)
    kernel = np.ones((1, length) if axis == 0 else (length, 1), np.uint8)
    long_runs = cv2.morphologyEx(ink.astype(np.uint8), cv2.MORPH_OPEN, kernel)
    profile = long_runs.sum(axis=1 - axis).astype(np.float64)
    on = profile >= config.CONFIG.min_line_span * extent
    positions: list[float] = []
    start = None
    for i, flag in enumerate([*on.tolist(), False]):
        if flag and start is None:
            start = i
        elif not flag and start is not None:
            weights = profile[start:i]
            positions.append(float((np.arange(start, i) * weights).sum() / weights.sum()))
            start = None
    return positions


def _count_cells(ink: np.ndarray, rows: list[float], cols: list[float]) -> int:
    """Enclosed background regions inside the grid that are at least a quarter of a typical cell."""
    y0, y1, x0, x1 = int(rows[0]), int(rows[-1]) + 1, int(cols[0]), int(cols[-1]) + 1
    inside = (~ink[y0:y1, x0:x1]).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(inside, connectivity=4)
    cell_area = float(np.median(np.diff(rows)) * np.median(np.diff(cols)))
    return int(sum(1 for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= 0.25 * cell_area))


def grid_shape(image: Image.Image) -> GridResult:
    """Count the rows and columns of the ruled grid in ``image`` (outer border lines included).

    Raises ValueError when no grid (at least two horizontal and two vertical lines) is found.
    """
    rgb = as_rgb_array(image)
    ink = stretch_faint_ink(ink_strength(rgb)) > 0.2
    ys, xs = np.nonzero(ink)
    if len(xs) == 0:
        raise ValueError("no grid found: the image is blank")
    width = int(xs.max() - xs.min() + 1)
    height = int(ys.max() - ys.min() + 1)
    row_lines = _line_positions(ink, axis=0, extent=width)
    col_lines = _line_positions(ink, axis=1, extent=height)
    if len(row_lines) < 2 or len(col_lines) < 2:
        raise ValueError(
            f"no grid found: {len(row_lines)} horizontal and {len(col_lines)} vertical lines span the drawing"
        )
    rows, columns = len(row_lines) - 1, len(col_lines) - 1
    cells = _count_cells(ink, row_lines, col_lines)
    box = Box(col_lines[0], row_lines[0], col_lines[-1], row_lines[-1])
    result = GridResult(rows, columns, row_lines, col_lines, cells, box)
    h_segments = [((col_lines[0], y), (col_lines[-1], y)) for y in row_lines]
    v_segments = [((x, row_lines[0]), (x, row_lines[-1])) for x in col_lines]
    result.annotated = annotate(rgb, lines=h_segments + v_segments, caption=f"{rows} rows x {columns} columns")
    return result
