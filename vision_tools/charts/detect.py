"""A quick look, before any OCR, at whether an image is a rendered chart: axes, or a disk of flat colours.

``chart_likeness(image)`` takes a few milliseconds. A rendered chart is a graphic (a handful of flat colours cover
almost every pixel, which a photograph never does) with either a pair of axis lines — a long dark horizontal line
and a long dark vertical line meeting at a corner — or a large area of a few flat saturated colours (pie slices,
filled areas, bars without drawn axes), or three or more evenly spaced gridlines with some coloured ink (a line
chart on a grey panel with white gridlines and no axis lines). Thin axis lines survive the reduction because the image is shrunk by
taking the darkest pixel of each block, not an average.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from PIL import Image

from vision_tools.charts import config
from vision_tools.charts.lollipops import lollipop_bars
from vision_tools.charts.pixels import find_palette
from vision_tools.image.loading import require_rgb

#: The score from which an image is taken for a chart (axes, large flat colour areas, or gridlines with coloured
#: marks): the Chart skill answers there, and a sign's rules (one bare price is the named thing's) do not.
CHART_LIKE = 0.7


@dataclass(frozen=True)
class ChartLikeness:
    """How much an image looks like a rendered chart, 0-1, and why."""

    score: float
    graphic: float  # share of pixels covered by the 12 most common colours
    axes: bool  # an L of a long horizontal and a long vertical dark line
    flat_colour: float  # share of pixels in large flat saturated colours
    reason: str

    @property
    def chart(self) -> bool:
        """Whether the image is taken for a chart (``CHART_LIKE``)."""
        return self.score >= CHART_LIKE

    def summary(self) -> str:
        return f"chart likeness {self.score:.2f}: {self.reason}"

    def to_dict(self) -> dict:
        return {"score": round(self.score, 3), "graphic": round(self.graphic, 3), "axes": self.axes,
                "flat_colour": round(self.flat_colour, 3), "reason": self.reason}


def chart_likeness(image: Image.Image) -> ChartLikeness:
    """How much ``image`` looks like a rendered chart (bars, lines, areas, pie, scatter with axes)."""
    image = require_rgb(image, 16, "be looked at")
    block = max(1, int(np.ceil(max(image.size) / config.CONFIG.likeness_side)))
    small = _block_min(np.asarray(image.convert("L")), block)
    colours = np.asarray(image)[::block, ::block]  # one pixel per block: colours stay flat, no blends are made
    graphic = _graphic_share(colours)
    axes = _has_axes(small)
    flat = _flat_saturated_share(colours)
    if graphic < 0.8:
        return ChartLikeness(0.1 * graphic, graphic, axes, flat,
                             f"not a rendered graphic (the 12 commonest colours cover {graphic:.0%} of it)")
    if axes:
        return ChartLikeness(0.9, graphic, axes, flat, "a graphic with an x and a y axis line")
    if flat >= 0.08:
        return ChartLikeness(0.7, graphic, axes, flat, f"a graphic with large flat colour areas ({flat:.0%})")
    if _row_of_bars(colours) or _row_of_bars(np.ascontiguousarray(colours.transpose(1, 0, 2)[:, ::-1])):
        return ChartLikeness(0.7, graphic, axes, flat, "a graphic with a row of flat bars on a common baseline")
    if _gridlines(image) and _coloured_share(colours) >= 0.002:
        return ChartLikeness(0.7, graphic, axes, flat, "a graphic with evenly spaced gridlines and coloured marks")
    if _lollipops(image):
        return ChartLikeness(0.7, graphic, axes, flat, "a graphic with lollipops (round heads on stems from one "
                                                       "baseline)")
    return ChartLikeness(0.3, graphic, axes, flat, "a graphic without axes or flat colour areas")


def _lollipops(image: Image.Image) -> bool:
    """Whether ``image`` holds a lollipop chart drawn without axis lines (``lollipops.lollipop_bars``), looked for
    on a copy of at most 1000 px (heads stay over the 7 px a disc needs; at 800 thin stems fade)."""
    scale = min(1.0, 1000 / max(image.size))
    work = image if scale == 1.0 else image.resize((round(image.width * scale), round(image.height * scale)),
                                                   Image.Resampling.LANCZOS)
    rgb = np.asarray(work)
    return bool(lollipop_bars(rgb, find_palette(rgb)))


def _row_of_bars(colours: np.ndarray) -> bool:
    """Three or more solid blocks of one flat colour (grey too) standing on one baseline, alike in width, evenly
    spaced, and not all of one height: the bars of a chart drawn without axis lines (a slide, a news graphic)."""
    flat = colours.reshape(-1, 3)
    keys, counts = np.unique(flat // 8, axis=0, return_counts=True)
    order = np.argsort(counts)[::-1]
    area = colours.shape[0] * colours.shape[1]
    for index in order[1:5]:  # the commonest colour is the ground
        if counts[index] < 0.01 * area:
            break
        mask = np.all(colours // 8 == keys[index], axis=2).astype(np.uint8)
        found, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
        blocks = [(x, y, w, h) for x, y, w, h, n in stats[1:found]
                  if n >= 0.002 * area and n >= 0.85 * w * h and h >= 3 and w >= 2]
        bottoms: dict[int, list[tuple[int, int, int, int]]] = {}
        for block in blocks:
            bottoms.setdefault(int(block[1] + block[3]) // 3, []).append(block)
        for row in bottoms.values():
            if len(row) < 3:
                continue
            widths = [w for _, _, w, _ in row]
            heights = [h for _, _, _, h in row]
            lefts = sorted(x for x, _, _, _ in row)
            pitch = float(np.diff(lefts).min())
            # Evenly spaced: each gap a whole number of pitches (a bar of another colour may stand between).
            steps = np.diff(lefts) / max(pitch, 1.0)
            if (pitch > max(widths) and max(widths) <= 1.15 * min(widths) and max(heights) >= 1.15 * min(heights)
                    and np.all(np.abs(steps - np.round(steps)) <= 0.15) and steps.max() <= 4):
                return True
    return False


def _gridlines(image: Image.Image) -> bool:
    """Three or more evenly spaced thin lines across at least half the image, in either direction: a chart's grid,
    light on a grey panel or grey on white, where no axis line is drawn (a seaborn or spreadsheet line chart)."""
    scale = min(1.0, 800 / max(image.size))
    grey = image.convert("L")
    if scale < 1.0:
        grey = grey.resize((max(1, round(image.width * scale)), max(1, round(image.height * scale))),
                           Image.Resampling.BOX)
    pixels = np.asarray(grey, dtype=np.int16)
    return _evenly_spaced_lines(pixels) or _evenly_spaced_lines(pixels.T)


def _evenly_spaced_lines(grey: np.ndarray) -> bool:
    """Whether rows of ``grey`` hold three or more thin lines (each brighter or darker than the rows two above and
    two below along half the width or more) at equal spacing (within 12 %)."""
    if grey.shape[0] < 8:
        return False
    middle, above, below = grey[2:-2], grey[:-4], grey[4:]
    lighter = (middle - above > 6) & (middle - below > 6)
    darker = (above - middle > 6) & (below - middle > 6)
    rows = np.flatnonzero(np.maximum(lighter.mean(axis=1), darker.mean(axis=1)) >= 0.5) + 2
    if rows.size < 3:
        return False
    centres = [float(run.mean()) for run in np.split(rows, np.flatnonzero(np.diff(rows) > 1) + 1)]
    gaps = np.diff(centres)
    if gaps.size < 2:
        return False
    typical = float(np.median(gaps))
    return typical >= 6 and int(np.sum(np.abs(gaps - typical) <= 0.12 * typical)) >= 2


def _coloured_share(rgb: np.ndarray) -> float:
    """Share of pixels in clearly coloured ink (chroma >= 60): a data series, not grey text or a ruled form."""
    red, green, blue = (rgb[..., i].astype(np.int16) for i in range(3))
    chroma = np.maximum(np.maximum(red, green), blue) - np.minimum(np.minimum(red, green), blue)
    return float((chroma >= 60).mean())


def _block_min(grey: np.ndarray, block: int) -> np.ndarray:
    if block == 1:
        return grey
    h, w = (grey.shape[0] // block) * block, (grey.shape[1] // block) * block
    # Element-wise minima of strided views, rows then columns: numpy's reduction over short inner axes
    # (reshape(...).min(axis=(1, 3))) is ten times slower here, and this is on every routing decision.
    rows = grey[0:h:block, :w]
    for i in range(1, block):
        rows = np.minimum(rows, grey[i:h:block, :w])
    out = rows[:, 0::block]
    for j in range(1, block):
        out = np.minimum(out, rows[:, j::block])
    return out


def _graphic_share(rgb: np.ndarray) -> float:
    keys = (rgb[..., 0].astype(np.int32) >> 4) << 8 | (rgb[..., 1].astype(np.int32) >> 4) << 4 | (rgb[..., 2] >> 4)
    counts = np.sort(np.bincount(keys.ravel(), minlength=4096))[::-1]
    return float(counts[:12].sum() / max(1, keys.size))


def _flat_saturated_share(rgb: np.ndarray) -> float:
    """Share of pixels in saturated colours (chroma >= 40) that each cover at least 1 % of the image."""
    red, green, blue = rgb[..., 0], rgb[..., 1], rgb[..., 2]  # per channel: max over a 3-long axis is slow
    chroma = np.maximum(np.maximum(red, green), blue).astype(np.int16) - np.minimum(np.minimum(red, green), blue)
    keys = (red.astype(np.int32) >> 4) << 8 | (green.astype(np.int32) >> 4) << 4 | (blue >> 4)
    keys = keys[chroma >= 40]
    if keys.size == 0:
        return 0.0
    counts = np.bincount(keys, minlength=4096)
    total = rgb.shape[0] * rgb.shape[1]
    return float(counts[counts >= 0.01 * total].sum() / total)


def _has_axes(grey: np.ndarray) -> bool:
    """A long dark horizontal line (>= 40 % of the width) and a long dark vertical one (>= 30 % of the height)
    whose ends meet within a few pixels (the axes' corner)."""
    dark = grey < config.CONFIG.likeness_dark
    h, w = dark.shape
    rows = _long_runs(dark, 0.4 * w)  # (row, start col, end col)
    cols = _long_runs(dark.T, 0.3 * h)  # (col, start row, end row)
    if not rows or not cols:
        return False
    tol = max(4, round(0.025 * max(h, w)))  # outer tick marks extend an axis line past the corner
    for y, x0, x1 in rows:
        for x, y0, y1 in cols:
            near_x = x0 - tol <= x <= x1 + tol and (abs(x - x0) <= tol or abs(x - x1) <= tol)
            near_y = y0 - tol <= y <= y1 + tol and (abs(y - y0) <= tol or abs(y - y1) <= tol)
            if near_x and near_y:
                return True
    return False


def _long_runs(dark: np.ndarray, min_len: float) -> list[tuple[int, int, int]]:
    """For each row of ``dark``: its longest run of dark pixels (gaps of 1 px bridged) when at least ``min_len``."""
    out = []
    candidates = np.flatnonzero(dark.sum(axis=1) >= min_len)
    for r in candidates:
        idx = np.flatnonzero(dark[r])
        breaks = np.flatnonzero(np.diff(idx) > 2)
        starts = np.concatenate([[idx[0]], idx[breaks + 1]])
        ends = np.concatenate([idx[breaks], [idx[-1]]])
        k = int(np.argmax(ends - starts))
        if ends[k] - starts[k] + 1 >= min_len:
            out.append((int(r), int(starts[k]), int(ends[k])))
    return out
