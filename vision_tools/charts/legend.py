"""Legends: which text names which colour (a short patch or line sample of one ink just left of the text), and
where the entries OCR missed must be."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from vision_tools.charts.axes import Text
from vision_tools.charts.pixels import Palette, chebyshev, chroma_map
from vision_tools.image.boxes import Box


def find_legend(texts: list[Text], rgb: np.ndarray, palette: Palette,
                grey_keys: Sequence[int] = ()) -> list[tuple[Text, int]]:
    """``(text, colour index)`` for texts with a short patch (or line sample) of one ink colour just to their left.

    The key must be compact: within the text's height (a bar beside or under a label reaches beyond it) and
    within a few character heights of the text (a bar ending before a value label extends further left). Greys
    are text and axes, so a grey key is looked for only in the colours ``grey_keys`` names (a pie's grey "Others"
    slice), and only in that very colour.
    """
    entries = []
    texts = [_without_key_glyph(t, rgb) for t in texts]
    h_img = rgb.shape[0]
    ink = [i for i in palette.ink() if palette.chroma(i) >= 25 or i in grey_keys]
    for t in texts:
        h = max(4.0, t.height)
        ya, yb = int(max(0, t.box.y0 - 0.6 * h)), int(min(h_img, t.box.y1 + 0.6 * h + 1))
        xa, xb = int(max(0, t.box.x0 - 7 * h)), int(t.box.x0) - 1
        if xb - xa < 4 or yb - ya < 2:
            continue
        band = rgb[ya:yb, xa:xb]
        best, best_count = -1, 0
        mid = slice(int(t.cy - 0.25 * h) - ya, int(t.cy + 0.25 * h) + 1 - ya)
        coloured = chroma_map(band) >= 20  # grey text never is a key ...
        if not ink:
            continue
        # Each pixel belongs to its nearest ink only: a teal key lies within the tolerance of a steel blue too.
        distances = np.stack([chebyshev(band, palette.colours[index]) for index in ink])
        nearest = distances.argmin(axis=0)
        for position, index in enumerate(ink):
            if index in grey_keys:  # ... unless it is the grey of a slice, exactly
                hit = (distances[position] <= 12) & (nearest == position)
            else:
                hit = (distances[position] <= 45) & (nearest == position) & coloured
            # The key is the run of this colour nearest the text along its middle rows ...
            cols = _run_near(_bridge(np.asarray(hit[mid].any(axis=0))), float(xb - xa))
            if cols is None:
                continue
            # ... and it must end within the text's height (a bar or a pie beside the text does not).
            rows = _run_near(np.asarray(hit[:, cols[0]:cols[1] + 1].any(axis=1)), t.cy - ya)
            if rows is None:
                continue
            r0, r1, c0, c1 = rows[0] + ya, rows[1] + ya, cols[0] + xa, cols[1] + xa
            if r0 < t.box.y0 - 1 or r1 > t.box.y1 + 1:
                continue
            if c0 < t.box.x0 - 4.5 * h or c1 < t.box.x0 - 1.5 * h or c1 - c0 < 0.5 * h:
                continue
            block = hit[rows[0]:rows[1] + 1, cols[0]:cols[1] + 1]
            present = block.any(axis=0)
            centroids = (block * np.arange(block.shape[0])[:, None]).sum(axis=0)[present] / block.sum(axis=0)[present]
            if np.ptp(centroids) > max(2.0, 0.2 * h):
                continue  # a key is level; a sloping line passing by the text is not a key
            if block.mean() < 0.2 or block.sum() <= best_count:  # a key is solid (a line key with a marker less so)
                continue
            best, best_count = index, int(block.sum())
        if best >= 0:
            entries.append((t, best))
    if len(entries) > 1:
        # Entries of a legend line up in a column or a row; a stray hit (a marker read as a letter) does not.
        def aligned(a: Text, b: Text) -> bool:
            return abs(a.box.x0 - b.box.x0) <= 0.6 * a.height or abs(a.cy - b.cy) <= 0.4 * a.height
        entries = [(t, c) for t, c in entries if any(aligned(t, u) for u, _ in entries if u is not t)]
    return entries


#: A line key with a marker read by OCR as part of its entry: "IT Diesel", "-▲- Petrol", "+ North".
_KEY_GLYPH = re.compile(r"^(?P<glyph>[^a-z\s]{1,3})\s+(?P<name>\w.*)$")


def _without_key_glyph(text: Text, rgb: np.ndarray) -> Text:
    """``text`` without a leading glyph OCR made of the coloured key inside its box ("IT Diesel" is "Diesel");
    the text itself when the start of its box holds no coloured ink."""
    match = _KEY_GLYPH.match(text.text)
    if match is None or text.number is not None:
        return text
    share = (len(match.group("glyph")) + 1) / len(text.text)
    box = text.box
    split = box.x0 + share * box.width
    head = rgb[int(box.y0):int(box.y1) + 1, int(box.x0):int(split) + 1]
    if head.size == 0 or float((chroma_map(head) >= 20).mean()) < 0.1:
        return text
    return replace(text, text=match.group("name"), box=Box(split, box.y0, box.x1, box.y1))


def legend_region(entries: list[tuple[Text, int]], missing: int, shape: tuple[int, ...]) -> Box:
    """Where the ``missing`` legend entries that OCR did not read must be, around the ones it did: keys left of
    the texts, further entries below (a column) or to the right (a row)."""
    h = max(t.height for t, _ in entries)
    x0 = min(t.box.x0 for t, _ in entries) - 5 * h
    y0 = min(t.box.y0 for t, _ in entries) - (missing + 0.5) * 1.6 * h
    x1 = max(t.box.x1 for t, _ in entries) + (missing + 1) * 10 * h
    y1 = max(t.box.y1 for t, _ in entries) + (missing + 0.5) * 1.6 * h
    return Box(x0, y0, x1, y1).clamp(shape[1], shape[0])


def _run_near(flags: np.ndarray, centre: float) -> tuple[int, int] | None:
    """The ``(first, last)`` indices of the run of True in ``flags`` closest to ``centre``."""
    idx = np.flatnonzero(flags)
    if len(idx) == 0:
        return None
    breaks = np.flatnonzero(np.diff(idx) > 1)
    starts = np.concatenate([[idx[0]], idx[breaks + 1]])
    ends = np.concatenate([idx[breaks], [idx[-1]]])
    dist = np.maximum(0, np.maximum(starts - centre, centre - ends))
    k = int(dist.argmin())
    return int(starts[k]), int(ends[k])


def _bridge(flags: np.ndarray, gap: int = 2) -> np.ndarray:
    """``flags`` with holes of at most ``gap`` False entries between True ones filled (dashed keys)."""
    out = flags.copy()
    idx = np.flatnonzero(flags)
    for a, b in zip(idx[:-1], idx[1:], strict=True):
        if 1 < b - a <= gap + 1:
            out[a:b] = True
    return out
