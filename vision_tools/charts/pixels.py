"""Colour analysis shared by the chart parsers: backgrounds, the palette of ink colours, masks and rectangles.

Charts are drawn with a handful of flat colours. The palette is found from a coarse colour histogram (16 levels per
channel) whose well-populated bins are merged into colours; anti-aliased edges are rare and fall below the count
threshold, and blends of a thin line with the background (which a thin line produces in bulk) are recognised as
blends and dropped — unless the colour fills a solid block somewhere (a bar tinted between grey and red to encode a
second variable is a fill, not an edge). Light, nearly grey colours are treated as background (figure, plot area,
grid, legend box), which keeps ggplot/seaborn grey panels out of the marks, unless they fill solid blocks that
together cover little of the image (a pale grey bar or slice among coloured ones).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision_tools.charts import config


@dataclass(frozen=True)
class Rect:
    """An axis-aligned filled region of one palette colour, in work-image pixels (x1, y1 exclusive)."""

    x0: int
    y0: int
    x1: int
    y1: int
    colour: int  # index into the palette
    fill: float  # share of the bounding box covered by the colour

    @property
    def width(self) -> int:
        return self.x1 - self.x0

    @property
    def height(self) -> int:
        return self.y1 - self.y0

    @property
    def cx(self) -> float:
        return (self.x0 + self.x1) / 2

    @property
    def cy(self) -> float:
        return (self.y0 + self.y1) / 2


@dataclass
class Palette:
    """The flat colours of an image: ``colours[i]`` RGB, ``counts[i]`` pixels, ``background[i]`` flag."""

    colours: np.ndarray  # (n, 3) int16
    counts: np.ndarray  # (n,)
    background: np.ndarray  # (n,) bool

    def ink(self) -> list[int]:
        """Indices of the non-background colours, most frequent first."""
        order = np.argsort(-self.counts)
        return [int(i) for i in order if not self.background[i]]

    def rgb(self, index: int) -> tuple[int, int, int]:
        r, g, b = (int(v) for v in self.colours[index])
        return (r, g, b)

    def chroma(self, index: int) -> int:
        c = self.colours[index]
        return int(c.max() - c.min())


def chebyshev(rgb: np.ndarray, colour: np.ndarray | tuple[int, int, int]) -> np.ndarray:
    """Per-pixel largest channel difference between ``rgb`` (H, W, 3 uint8) and ``colour``."""
    red, green, blue = (float(v) for v in np.clip(np.asarray(colour), 0, 255).astype(np.uint8))
    # uint8 throughout (three times faster than int16 arithmetic), against a scalar: filling an image-sized array
    # with the colour took seven times as long as the difference itself.
    # (OpenCV takes a 4-tuple as a Scalar; its type stubs only list arrays.)
    diff: np.ndarray = cv2.absdiff(rgb, (red, green, blue, 0.0))  # type: ignore[call-overload]
    return np.maximum(np.maximum(diff[..., 0], diff[..., 1]), diff[..., 2])


def chroma_map(rgb: np.ndarray) -> np.ndarray:
    """Per-pixel largest minus smallest channel of ``rgb`` (H, W, 3 uint8): 0 for greys.

    Channel by channel: numpy's ``max(axis=2)`` over three values per pixel is some ten times slower."""
    red, green, blue = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    return np.maximum(np.maximum(red, green), blue) - np.minimum(np.minimum(red, green), blue)


def border_colour(rgb: np.ndarray) -> np.ndarray:
    """The most common colour along the image border (the figure background)."""
    border = np.concatenate([rgb[0], rgb[-1], rgb[:, 0], rgb[:, -1]]).astype(np.int32)
    keys = (border[:, 0] >> 3) << 10 | (border[:, 1] >> 3) << 5 | (border[:, 2] >> 3)
    mode = np.bincount(keys).argmax()
    return np.median(border[keys == mode], axis=0).astype(np.int16)


def find_palette(rgb: np.ndarray, max_colours: int = 16) -> Palette:
    """The flat colours of ``rgb``, background ones flagged."""
    h, w = rgb.shape[:2]
    flat = rgb.reshape(-1, 3).astype(np.int32)
    keys = (flat[:, 0] >> 4) << 8 | (flat[:, 1] >> 4) << 4 | (flat[:, 2] >> 4)
    counts = np.bincount(keys, minlength=4096)
    min_count = max(30, int(0.0001 * h * w))
    bins = [int(b) for b in np.argsort(-counts) if counts[b] >= min_count][:64]
    sums = np.stack([np.bincount(keys, weights=flat[:, c], minlength=4096) for c in range(3)], axis=1)
    means = {b: sums[b] / counts[b] for b in bins}
    colours: list[np.ndarray] = []
    totals: list[int] = []
    for b in bins:  # most populated first, so each colour is anchored on its core, not its blends
        for i, c in enumerate(colours):
            if np.abs(c - means[b]).max() <= 18:
                totals[i] += int(counts[b])
                break
        else:
            colours.append(means[b])
            totals.append(int(counts[b]))
    fig_bg = border_colour(rgb)
    array = np.array(colours, dtype=np.int16).reshape(-1, 3)
    tot = np.array(totals)
    solid = _solid(rgb, array)
    # A light grey is background (a panel, a legend box, grid lines) unless it fills solid blocks that together
    # cover little of the image: bars or slices drawn in a pale grey among coloured ones.
    grey_chroma, light = config.CONFIG.grey_chroma, config.CONFIG.light
    is_bg = np.array([np.abs(c - fig_bg).max() <= 12 or (
        c.max() - c.min() < grey_chroma and c.mean() > light and not (solid[i] and n < 0.25 * h * w))
        for i, (c, n) in enumerate(zip(array, tot, strict=True))], dtype=bool)
    keep = _drop_blends(array, tot, is_bg) | solid
    array, tot, is_bg = array[keep], tot[keep], is_bg[keep]
    order = np.argsort(-tot)[:max_colours]
    return Palette(array[order], tot[order], is_bg[order])


def _drop_blends(colours: np.ndarray, counts: np.ndarray, is_bg: np.ndarray) -> np.ndarray:
    """Mask of colours that are not a mix of a more frequent ink colour with a background colour."""
    keep = np.ones(len(colours), dtype=bool)
    backgrounds = colours[is_bg].astype(np.float64)
    for i, c in enumerate(colours):
        if is_bg[i]:
            continue
        for j, ink in enumerate(colours):
            if j == i or is_bg[j] or counts[j] < counts[i]:
                continue
            for bg in backgrounds:
                span = ink - bg
                norm = float(span @ span)
                if norm < 1:
                    continue
                alpha = float((c - bg) @ span) / norm
                if 0.1 < alpha < 0.95 and np.abs(bg + alpha * span - c).max() <= 14:
                    keep[i] = False
    return keep


def _solid(rgb: np.ndarray, colours: np.ndarray) -> np.ndarray:
    """Mask of colours that fill a solid block somewhere (a 9x9 square survives erosion): a fill, never the blend
    along an anti-aliased edge, even when its colour lies between an ink and the background (a bar tinted from
    grey to red to encode a second variable)."""
    out = np.zeros(len(colours), dtype=bool)
    small = rgb[::2, ::2]
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (5, 5))  # 5 px at half size: a 9-10 px square
    for i, c in enumerate(colours):
        mask = (chebyshev(small, c) <= 12).astype(np.uint8)
        if mask.sum() >= 25 and cv2.erode(mask, kernel).any():
            out[i] = True
    return out


def background_mask(rgb: np.ndarray, palette: Palette, tol: int | None = None) -> np.ndarray:
    """Pixels within ``tol`` (by default ``config.CONFIG.colour_tol``) of a background colour and no nearer to an
    ink colour: a pale slice (a grey "Others", a light cyan) lies within the tolerance of a faint background blend
    and is ink all the same."""
    tol = config.CONFIG.colour_tol if tol is None else tol
    near_bg = np.full(rgb.shape[:2], 255, dtype=np.uint8)
    for i in np.flatnonzero(palette.background):
        near_bg = np.minimum(near_bg, chebyshev(rgb, palette.colours[i]))
    mask = near_bg <= tol
    for ink in palette.ink():
        mask &= ~(chebyshev(rgb, palette.colours[ink]) < near_bg)
    return mask


def colour_mask(rgb: np.ndarray, palette: Palette, index: int, tol: int | None = None) -> np.ndarray:
    tol = config.CONFIG.colour_tol if tol is None else tol
    return chebyshev(rgb, palette.colours[index]) <= tol


def kernel_size(shape: tuple[int, ...]) -> int:
    """Opening size that removes text strokes and grid lines but keeps bars: grows with the image."""
    return 5 if min(shape[:2]) >= 360 else 3


def filled_rects(rgb: np.ndarray, palette: Palette, min_side: int = 3) -> list[Rect]:
    """Solid rectangles of every ink colour: bars, legend patches, square markers."""
    k = kernel_size(rgb.shape)
    close = cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3))
    opener = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
    rects: list[Rect] = []
    for index in palette.ink():
        mask: np.ndarray = colour_mask(rgb, palette, index).astype(np.uint8)
        # Closing first: a 1-2 px grid line drawn over a bar must not cut it in two.
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, close)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, opener)
        n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
        for x, y, w, h, area in stats[1:]:
            if w < min_side or h < min_side or area < 20:
                continue
            fill = area / float(w * h)
            if fill >= 0.85:
                rects.append(Rect(int(x), int(y), int(x + w), int(y + h), index, round(fill, 3)))
    return _bridged(rects)


def _bridged(rects: list[Rect], gap: int = 4) -> list[Rect]:
    """``rects`` with two of one colour joined where one sits on the other, edges aligned, at most ``gap`` px apart:
    a bar cut by a reference line drawn across it ("long-term average", 3-4 px thick, dashed), which the closing
    (2 px) does not bridge. Only whole solid pieces are joined, so no line chart's markers turn into a bar."""
    out = list(rects)
    i = 0
    while i < len(out):
        a = out[i]
        for j in range(i + 1, len(out)):
            b = out[j]
            if a.colour != b.colour or abs(a.x0 - b.x0) > 1 or abs(a.x1 - b.x1) > 1 or min(a.height, b.height) <= gap:
                continue
            upper, lower = (a, b) if a.y0 <= b.y0 else (b, a)
            if 0 <= lower.y0 - upper.y1 <= gap:
                out[i] = Rect(min(a.x0, b.x0), upper.y0, max(a.x1, b.x1), lower.y1, a.colour, min(a.fill, b.fill))
                del out[j]
                break
        else:
            i += 1
    return out


def cluster_1d(values: list[float], tol: float) -> list[list[int]]:
    """Indices of ``values`` grouped so that sorted neighbours closer than ``tol`` share a group."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    groups: list[list[int]] = []
    for i in order:
        if groups and values[i] - values[groups[-1][-1]] <= tol:
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups
